"""One document's load: metadata -> fetch -> limits -> extract -> chunk -> artifacts, as
one value.

`DocumentLoader.load` takes the exact revision state the revision switch chose (the
object version and its sidecar version) and returns a `DocumentLoad`: the document's
metadata (sidecar + user metadata, `chunkwise.ingest.sidecars.read_metadata`, read and
checked first: a bad sidecar fails the document before anything is extracted), the
chunks (stamped with the document's identity), their token total, what the extraction
report says in numbers (`ExtractionFacts`), the chunking figures and how long each stage
took. Nothing is written to the index here, and nothing is embedded
(`chunkwise.ingest.embed_batch` embeds the chunks of a batch's documents together); the
only write is the revision's artifacts, the canonical text every chunk offset refers to
and its report.

Every limit is checked before the work it bounds: the suffix and the size on the
HEAD answer, the size again on the bytes, the text against the chunk limit before
chunking, the chunk and token limits before embedding; the document's budget
(`chunkwise.ingest.budget`) before every stage. Over any of them the document
fails alone with `LimitExceeded` (`PermanentError`).
"""

from __future__ import annotations

import json
import posixpath
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from chunkwise.embedding.embed import sizer_for
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.config import ARTIFACT_SUFFIXES, PipelineConfig
from chunkwise.ingest.ports import ArtifactStore, ObjectStore
from chunkwise.ingest.sidecars import read_metadata
from chunkwise.metadata.model import DocumentMetadata
from chunkwise.schema import Chunk
from chunkwise.stats import percentiles

if TYPE_CHECKING:
    from chunkwise.chunking.config import ChunkerConfig
    from chunkwise.chunking.model import ChunkingReport
    from chunkwise.embedding.embed import Embedder
    from chunkwise.extract import Extraction, ExtractionReport, ExtractLimits, OcrPort
    from chunkwise.index.versions import ObjectVersion
    from chunkwise.models.counter import HFTokenCounter


@dataclass(frozen=True)
class ExtractionFacts:
    """What the extraction report says in numbers: logged and counted per document."""

    format: str
    pages: int | None  # PDF only
    ocr_pages: int
    pages_without_text: int
    tables: int  # tables of the canonical text, as the chunker sees them
    tables_found: int  # fragments detected before stitching
    tables_stitched: int  # tables assembled from more than one fragment
    warnings: int

    @classmethod
    def of(cls, report: ExtractionReport) -> ExtractionFacts:
        return cls(
            format=str(report.format),
            pages=report.pages,
            ocr_pages=len(report.ocr_pages),
            pages_without_text=len(report.pages_without_text),
            tables=len(report.tables),
            tables_found=report.tables_found,
            tables_stitched=report.tables_stitched,
            warnings=len(report.warnings),
        )

    def log_fields(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ChunkingFacts:
    """What chunking made of the text (the report's figures and the chunk lengths)."""

    chunks: int
    runts: int
    max_tokens: int
    tokens: int  # the sum of the chunks' token counts
    chars: dict[str, float]  # p1/p5/p50/p95 of the chunk lengths in characters

    @classmethod
    def of(cls, chunks: Sequence[Chunk], report: ChunkingReport) -> ChunkingFacts:
        return cls(
            chunks=len(chunks),
            runts=report.runts,
            max_tokens=report.max_tokens,
            tokens=sum(c.token_count for c in chunks),
            chars=percentiles([c.end - c.start for c in chunks]),
        )


@dataclass(frozen=True)
class DocumentLoad:
    """One revision state loaded: its chunks, its metadata and what the load learnt."""

    chunks: list[Chunk]
    extraction: ExtractionFacts
    chunking: ChunkingFacts
    stages: dict[str, float]  # seconds of metadata, fetch, extract, chunk, artifacts
    metadata: DocumentMetadata = field(default_factory=DocumentMetadata)

    @property
    def tokens(self) -> int:
        return self.chunking.tokens


def with_identity(chunks: Iterable[Chunk], doc_id: str, version: ObjectVersion) -> list[Chunk]:
    """The chunks stamped with their document and revision (the ids the index uses)."""
    return [
        c.model_copy(
            update={
                "doc_id": doc_id,
                "source_key": version.key,
                "revision": version.revision,
                "source_etag": version.etag.strip('"'),
                "last_modified": version.last_modified,
            }
        )
        for c in chunks
    ]


@contextmanager
def _timed(stages: dict[str, float], stage: str) -> Iterator[None]:
    t0 = time.perf_counter()
    yield
    stages[stage] = time.perf_counter() - t0


class DocumentLoader:
    """Loads one document at a time; the tokenizer, the limits and the chunker
    configuration are built on first use (a batch of deletes needs none of them)."""

    def __init__(
        self,
        config: PipelineConfig,
        store: ObjectStore,
        artifacts: ArtifactStore,
        embedder: Embedder,
        *,
        chunker_config: ChunkerConfig | None = None,
        counter: HFTokenCounter | None = None,
        limits: ExtractLimits | None = None,
        ocr: OcrPort | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.artifacts = artifacts
        self.embedder = embedder
        self.ocr = ocr
        self._chunker_config = chunker_config
        self._counter = counter
        self._limits = limits
        # doc_id -> extractions run (the pipeline reports and clears them per batch)
        self.extractions: dict[str, int] = {}

    @property
    def counter(self) -> HFTokenCounter:
        if self._counter is None:
            self._counter = sizer_for(self.embedder)
        return self._counter

    @property
    def limits(self) -> ExtractLimits:
        if self._limits is None:
            from chunkwise.extract import ExtractLimits

            self._limits = ExtractLimits(max_bytes=self.config.max_object_bytes)
        return self._limits

    @property
    def chunker_config(self) -> ChunkerConfig:
        if self._chunker_config is None:
            from chunkwise.chunking.config import ChunkerConfig

            self._chunker_config = ChunkerConfig()
        return self._chunker_config

    def load(self, version: ObjectVersion, doc_id: str, budget: DocumentBudget) -> DocumentLoad:
        """The revision ``version`` of document ``doc_id``, within ``budget``; raises the
        document's error (`PermanentError`: never indexable; `TransientError`: retry)."""
        from chunkwise.extract import EmptyDocument, LimitExceeded, extract

        stages: dict[str, float] = {}
        self._check_object(version)
        budget.check("metadata")
        with _timed(stages, "metadata"):
            metadata = self.read_metadata(version)
        budget.check("fetch")
        with _timed(stages, "fetch"):
            data = self.store.get_version(version.key, version.version_id)
        if len(data) > self.config.max_object_bytes:
            raise LimitExceeded("max_object_bytes", self.config.max_object_bytes, len(data))
        self._check_table_extent(data, posixpath.basename(version.key))
        budget.check("extract")
        self.extractions[doc_id] = self.extractions.get(doc_id, 0) + 1
        with _timed(stages, "extract"):
            extraction = extract(
                data,
                filename=posixpath.basename(version.key),
                limits=self._limits_within(budget),
                ocr=self.ocr,
            )
        del data  # the source bytes are not needed past extraction
        self._check_text_size(extraction.text)
        budget.check("chunk")
        with _timed(stages, "chunk"):
            chunks, report = self._chunk(extraction.text, doc_id, version)
        if not chunks:
            raise EmptyDocument(f"{version.key!r}: extracted text has no chunkable content")
        chunking = ChunkingFacts.of(chunks, report)
        self._check_work(chunking)
        budget.check("artifacts")
        with _timed(stages, "artifacts"):
            self._write_artifacts(doc_id, version, extraction, chunking)
        return DocumentLoad(
            chunks, ExtractionFacts.of(extraction.report), chunking, stages, metadata
        )

    def read_metadata(self, version: ObjectVersion) -> DocumentMetadata:
        """The revision state's metadata (`MetadataError` naming the field if refused)."""
        return read_metadata(self.store, version, readers_key=self.config.readers_key)

    def _check_object(self, version: ObjectVersion) -> None:
        """The type and size limits on what S3's HEAD said, before anything is fetched."""
        from chunkwise.extract import LimitExceeded, UnsupportedFormat

        suffix = posixpath.splitext(version.key)[1].lower()
        if self.config.allowed_suffixes and suffix not in self.config.allowed_suffixes:
            raise UnsupportedFormat(
                f"{version.key!r}: suffix {suffix or '(none)'!r} not in the allowed types "
                f"{', '.join(self.config.allowed_suffixes)}"
            )
        if version.size > self.config.max_object_bytes:
            raise LimitExceeded("max_object_bytes", self.config.max_object_bytes, version.size)

    def _limits_within(self, budget: DocumentBudget) -> ExtractLimits:
        """The extraction limits, their time limit cut to what the document has left."""
        left = budget.seconds_left()
        if left is None or left >= self.limits.max_seconds:
            return self.limits
        return self.limits.model_copy(update={"max_seconds": max(left, 0.001)})

    def _check_table_extent(self, data: bytes, filename: str) -> None:
        """Refuse, before it is read, a spreadsheet or CSV whose declared size
        (extract/preflight.py) makes more chunks than the document may have: an
        estimate with low figures (6 characters a cell, half of ``max_chars`` a chunk;
        the 100,000 x 10 sheet of bench/extract_tables.py estimates 6,666 and makes
        12,554), so what it refuses is over the limit; the rest is checked exactly
        after chunking."""
        from chunkwise.extract import LimitExceeded
        from chunkwise.extract.preflight import MIN_CHARS_PER_CELL, estimated_chunks, table_extent

        extent = table_extent(data, filename, self.limits)
        if extent is None:
            return
        per_chunk = self.chunker_config.max_chars // 2
        at_least = estimated_chunks(extent, per_chunk)
        limit = self.config.max_chunks_per_document
        if at_least > limit:
            raise LimitExceeded(
                "max_chunks_per_document",
                limit,
                at_least,
                f"{extent.basis}: about {at_least:,} chunks or more (at {MIN_CHARS_PER_CELL} "
                f"characters a cell, {per_chunk} a chunk), refused before it is read",
            )

    def _check_text_size(self, text: str) -> None:
        """Refuse before chunking a text that cannot fit the chunk limit. Bodies cover
        every non-whitespace character and hold at most the merge ceiling each (bodies
        past it are single blocks cut by the token cap, which at BERT's token lengths
        stay shorter), so non-whitespace characters / merge ceiling bounds the count."""
        from chunkwise.extract import LimitExceeded

        visible = len(text) - sum(text.count(c) for c in " \n\t\r")
        at_least = visible // self.chunker_config.merge_ceiling
        if at_least > self.config.max_chunks_per_document:
            raise LimitExceeded(
                "max_chunks_per_document",
                self.config.max_chunks_per_document,
                at_least,
                f"{visible} non-blank characters make at least {at_least} chunks",
            )

    def _chunk(
        self, text: str, doc_id: str, version: ObjectVersion
    ) -> tuple[list[Chunk], ChunkingReport]:
        from chunkwise.chunking.chunk import ChunkingReport, chunk_text

        report = ChunkingReport()
        raw = chunk_text(
            text, lang="auto", config=self.chunker_config, counter=self.counter, report=report
        )
        return with_identity(raw, doc_id, version), report

    def _check_work(self, chunking: ChunkingFacts) -> None:
        """Chunk and token limits, before anything is embedded or written."""
        from chunkwise.extract import LimitExceeded

        cfg = self.config
        if chunking.chunks > cfg.max_chunks_per_document:
            raise LimitExceeded(
                "max_chunks_per_document", cfg.max_chunks_per_document, chunking.chunks
            )
        if chunking.tokens > cfg.max_tokens_per_document:
            raise LimitExceeded(
                "max_tokens_per_document", cfg.max_tokens_per_document, chunking.tokens
            )

    def _write_artifacts(
        self, doc_id: str, version: ObjectVersion, extraction: Extraction, chunking: ChunkingFacts
    ) -> None:
        """The canonical text the offsets refer to, and the extraction + chunking report."""
        md_key = self.config.artifact_key(doc_id, version.revision, ARTIFACT_SUFFIXES[0])
        self.artifacts.put(md_key, extraction.text.encode("utf-8"), "text/markdown; charset=utf-8")
        meta = {
            "doc_id": doc_id,
            "bucket": self.config.bucket,
            "key": version.key,
            "revision": version.revision,
            "last_modified": version.last_modified,
            "etag": version.etag.strip('"'),
            "extracted_text": f"s3://{self.config.artifacts_location}/{md_key}",
            "content_sha256": extraction.content_sha256,
            "extraction": extraction.report.model_dump(mode="json"),
            "chunking": {
                "chunks": chunking.chunks,
                "runts": chunking.runts,
                "max_tokens": chunking.max_tokens,
                "chars": chunking.chars,
            },
        }
        self.artifacts.put(
            self.config.artifact_key(doc_id, version.revision, ARTIFACT_SUFFIXES[1]),
            json.dumps(meta, ensure_ascii=False, indent=2).encode("utf-8"),
            "application/json",
        )
