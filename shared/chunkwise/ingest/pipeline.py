"""The ingest pipeline: "key K in bucket B changed" -> the index agrees with S3.

samdocs/architecture.md, "One upload, step by step" and
"The revision protocol". The same functions run in the ingest Lambda, in the
local runner (`chunkwise local run`) and in tests; handlers only adapt events.

Reconcile, don't replay
-----------------------
An event only says that a key changed. `Pipeline.ingest_batch` (an SQS batch;
`Pipeline.ingest` is a batch of one) hands the keys to the revision switch
(`chunkwise.ingest.revisions`, via `ingest_batch`), which reads each
document's head, asks S3 for the key's current version (HEAD) and, if the head
does not name it yet, indexes that exact revision (GetObject with its VersionId
-> limits -> extract -> store the canonical text and report in the artifacts
location -> chunk -> embed in batches -> create the chunks pending), HEADs S3
again and commits the head; then the new chunks go live and the older revision
is superseded. If the key is gone the head becomes a tombstone (the chunks
become ``deleted``).

Identifiers
-----------
``doc_id`` = first 32 hex digits of sha256(``bucket`` + NUL + ``key``)
(`chunkwise.index.bodies.make_doc_id`): stable for the life of the key, the same in
every generation, safe as ``_id`` prefix and routing value. The revision is the
S3 VersionId (``etag-<etag>`` for unversioned buckets).

Artifacts
---------
``<artifacts_prefix><doc_id>/<revision>.md`` (the canonical text every chunk
offset refers to) and ``.json`` (extraction report + chunking stats) go to the
artifacts bucket, or to a prefix of the source bucket outside the watched
input prefix. A configuration that would put artifacts where the trigger
listens is rejected (`PipelineConfig`): derived files must never re-trigger
ingestion.

Messages on the ingest queue
----------------------------
- S3 event notifications (``Records[].s3``), also as delivered by emulators
  (no versionId / sequencer, keys with ``%20`` or ``+``);
- ``s3:TestEvent`` (skipped);
- EventBridge "Object Created" / "Object Deleted" events (``detail.object.key``);
- chunkwise's own ``{"chunkwise": "reconcile" | "rechunk", "bucket", "key",
  "generation"?}`` messages sent by the sweep and the re-chunk fan-out.

Errors: `PermanentError` (extraction, limits, mapping) -> the message ends in
the DLQ after the queue's retries; `TransientError` -> retried.
"""

from __future__ import annotations

import gc
import json
import logging
import posixpath
import time
import urllib.parse
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from chunkwise import progress
from chunkwise.embedding.embed import sizer_for
from chunkwise.errors import ChunkwiseError, ConfigError, PermanentError, TransientError
from chunkwise.extract.formats import accepted_suffixes
from chunkwise.index.bodies import (
    GENERATION_RE,
    ObjectVersion,
    RevisionState,
    State,
    make_doc_id,
)
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.revisions import Loaded, Outcome, RevisionSwitch, SwitchIndexPort
from chunkwise.schema import Chunk
from chunkwise.stats import percentiles

if TYPE_CHECKING:
    from chunkwise.chunking.config import ChunkerConfig
    from chunkwise.embedding.embed import Embedder
    from chunkwise.extract import ExtractLimits, OcrPort
    from chunkwise.models.counter import HFTokenCounter

log = logging.getLogger("chunkwise.pipeline")

#: Marker of chunkwise's own queue messages.
MESSAGE_TAG = "chunkwise"
#: Object suffixes handed to extraction: the format registry's (extract/formats.py).
DEFAULT_SUFFIXES = accepted_suffixes()
MIB = 1024 * 1024
#: The files written per revision: canonical text, then report.
ARTIFACT_SUFFIXES = (".md", ".json")


# --------------------------------------------------------------------------- ports


class ObjectStore(Protocol):
    """The source bucket (real: `chunkwise.adapters.s3.S3Bucket`; tests: `FakeBucket`)."""

    @property
    def bucket(self) -> str: ...

    def head_current(self, key: str) -> ObjectVersion | None:
        """The key's current version; None if it does not exist or is a delete marker."""
        ...

    def get_version(self, key: str, version_id: str) -> bytes:
        """The bytes of exactly that version ("null" = unversioned object)."""
        ...

    def list_current(self, prefix: str = "") -> Iterator[ObjectVersion]:
        """Current versions of every key under ``prefix`` (delete markers excluded)."""
        ...


class ArtifactStore(Protocol):
    """Where derived files go (never where the trigger listens)."""

    def put(self, key: str, data: bytes, content_type: str) -> None: ...

    def delete(self, keys: Sequence[str]) -> None:
        """Delete these keys (absent ones are fine): the retention step."""
        ...


class RetentionIndexPort(Protocol):
    """What the retention step needs from the index (real: OpenSearchIndex)."""

    def expired_revisions(
        self, older_than_seconds: int, *, now: datetime | None = None
    ) -> set[tuple[str, str]]: ...

    def sweep(self, older_than_seconds: int, *, now: datetime | None = None) -> int: ...

    def revision_states(self, doc_id: str) -> dict[str, RevisionState]: ...


class QueuePort(Protocol):
    """The ingest queue, for the sweep and the re-chunk fan-out."""

    def send_batch(self, bodies: Sequence[str]) -> None:
        """Send the message bodies (the adapter splits them into batches of 10)."""
        ...


class LiveSetPort(Protocol):
    """Which revisions are visible (live or pending) for every source key, and which
    revisions are known to fail for good."""

    def live_revisions(self) -> dict[str, set[str]]: ...

    def known_failures(self) -> dict[str, dict[str, str]]:
        """source key -> {revision: reason} of revisions that failed permanently."""
        ...


# --------------------------------------------------------------------------- config


class PipelineConfig(BaseModel):
    """Where things are and what one ingestion may consume. Validated once."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    bucket: str = Field(min_length=3)
    input_prefix: str = Field("", description="only keys under it are ingested ('' = all)")
    artifacts_bucket: str = Field("", description="'' = the source bucket")
    artifacts_prefix: str = "extracted/"
    max_object_bytes: int = Field(100 * MIB, gt=0)
    allowed_suffixes: tuple[str, ...] = DEFAULT_SUFFIXES
    # Work one document may cause, checked after chunking and before embedding (the
    # expensive step: a remote model is called per text). 5,000 chunks are ~2.5 M
    # characters of prose; a 20 MB HTML page made 44,010.
    max_chunks_per_document: int = Field(5000, gt=0)
    max_tokens_per_document: int = Field(1_500_000, gt=0)

    @model_validator(mode="after")
    def _artifacts_not_watched(self) -> PipelineConfig:
        same_bucket = self.artifacts_bucket in ("", self.bucket)
        if same_bucket and (
            self.input_prefix == "" or self.artifacts_prefix.startswith(self.input_prefix)
        ):
            raise ValueError(
                "artifacts_prefix: artifacts would be written where the ingest trigger listens "
                f"(bucket {self.bucket!r}, input prefix {self.input_prefix!r}); use a separate "
                "artifacts bucket or an input prefix that does not contain the artifacts prefix"
            )
        if same_bucket and self.input_prefix.startswith(self.artifacts_prefix):
            raise ValueError("input_prefix: must not lie under artifacts_prefix")
        return self

    @property
    def artifacts_location(self) -> str:
        return self.artifacts_bucket or self.bucket

    def artifact_key(self, doc_id: str, revision: str, suffix: str) -> str:
        return f"{self.artifacts_prefix}{doc_id}/{revision}{suffix}"

    def watches(self, key: str) -> bool:
        """Is ``key`` an input document (under the input prefix, not an artifact)?"""
        if not key.startswith(self.input_prefix) or key.endswith("/"):
            return False
        same_bucket = self.artifacts_bucket in ("", self.bucket)
        return not (same_bucket and key.startswith(self.artifacts_prefix))


def build_config(**values: Any) -> PipelineConfig:
    from pydantic import ValidationError

    try:
        return PipelineConfig.model_validate(values)
    except ValidationError as exc:
        parts = [f"{'.'.join(map(str, e['loc'])) or 'config'}: {e['msg']}" for e in exc.errors()]
        raise ConfigError("invalid pipeline config: " + "; ".join(parts)) from exc


# --------------------------------------------------------------------------- messages


Kind = Literal["changed", "reconcile", "rechunk"]


@dataclass(frozen=True)
class ObjectChange:
    """ "Key K in bucket B changed" - all an event can be trusted to say."""

    bucket: str
    key: str
    kind: Kind = "changed"
    generation: str | None = None
    raw_key: str = ""  # as it appeared in the event (before unquote_plus)
    source: str = ""  # "s3", "eventbridge", "chunkwise"
    event_name: str = ""
    event_version: str | None = None  # informative only, never trusted


class MessageError(PermanentError):
    """A queue message that is not any event this pipeline understands."""


def decode_key(raw: str) -> str:
    """S3 notification keys are URL-encoded, '+' for space (see samdocs/architecture.md)."""
    return urllib.parse.unquote_plus(raw)


def parse_message(body: str | Mapping[str, Any]) -> list[ObjectChange]:
    """Every object change in one SQS message body; [] for test events.

    Raises MessageError for bodies that are none of the supported shapes.
    """
    if isinstance(body, str):
        try:
            doc: Any = json.loads(body)
        except json.JSONDecodeError as exc:
            # The position only: the body may carry document names or content.
            raise MessageError(f"message body is not JSON ({exc.msg} at {exc.pos})") from None
    else:
        doc = body
    if not isinstance(doc, Mapping):
        raise MessageError(f"message body is a JSON {type(doc).__name__}, not an object")
    if doc.get("Event") == "s3:TestEvent":
        return []
    # SNS envelope (S3 -> SNS -> SQS fan-out)
    if doc.get("Type") == "Notification" and isinstance(doc.get("Message"), str):
        return parse_message(doc["Message"])
    if MESSAGE_TAG in doc:
        return [_chunkwise_change(doc)]
    if "Records" in doc:
        records = doc["Records"] or []
        if not isinstance(records, list):
            raise MessageError("Records is not a list")
        return [_s3_record_change(rec) for rec in records]
    if doc.get("source") == "aws.s3" and isinstance(doc.get("detail"), Mapping):
        event_name = str(doc.get("detail-type", ""))
        return [_object_change(doc["detail"], "eventbridge", event_name, "version-id")]
    raise MessageError(f"unrecognised message with fields {sorted(map(str, doc))[:20]}")


def _text_at(doc: Mapping[str, Any], *path: str) -> str:
    """A non-empty string at ``path``; MessageError naming the path otherwise."""
    value: Any = doc
    for name in path:
        if not isinstance(value, Mapping) or name not in value:
            raise MessageError(f"message without {'.'.join(path)}")
        value = value[name]
    if not isinstance(value, str | int) or not str(value):
        raise MessageError(f"message field {'.'.join(path)} is not a non-empty string")
    return str(value)


def _optional_at(doc: Mapping[str, Any], *path: str) -> str | None:
    try:
        return _text_at(doc, *path)
    except MessageError:
        return None


def _chunkwise_change(doc: Mapping[str, Any]) -> ObjectChange:
    kind = doc[MESSAGE_TAG]
    if kind not in ("reconcile", "rechunk", "changed"):
        raise MessageError(f"unknown chunkwise message kind {str(kind)[:40]!r}")
    generation = doc.get("generation")
    if generation is not None and (
        not isinstance(generation, str) or not GENERATION_RE.match(generation)
    ):
        raise MessageError(
            "chunkwise message with an invalid generation (expected lowercase [a-z0-9_.])"
        )
    key = _text_at(doc, "key")
    return ObjectChange(
        bucket=_text_at(doc, "bucket"),
        key=key,
        kind=kind,
        generation=generation,
        raw_key=key,
        source="chunkwise",
        event_name=str(kind),
    )


def _s3_record_change(rec: Any) -> ObjectChange:
    s3 = rec.get("s3") if isinstance(rec, Mapping) else None
    if not isinstance(s3, Mapping):
        raise MessageError("record without s3 section")
    return _object_change(s3, "s3", str(rec.get("eventName", "")), "versionId")


def _object_change(
    where: Mapping[str, Any], source: str, event_name: str, version_field: str
) -> ObjectChange:
    """The change named by an event's ``bucket.name`` / ``object.key`` section: S3
    notifications and EventBridge events name the object alike, but spell the
    version field differently (``versionId`` / ``version-id``)."""
    raw = _text_at(where, "object", "key")
    return ObjectChange(
        bucket=_text_at(where, "bucket", "name"),
        key=decode_key(raw),
        raw_key=raw,
        source=source,
        event_name=event_name,
        event_version=_optional_at(where, "object", version_field),
    )


def change_message(
    bucket: str, key: str, kind: Kind = "reconcile", generation: str | None = None
) -> str:
    """A chunkwise queue message body (sweep and re-chunk fan-out)."""
    msg: dict[str, Any] = {MESSAGE_TAG: kind, "bucket": bucket, "key": key}
    if generation:
        msg["generation"] = generation
    return json.dumps(msg, ensure_ascii=False)


# --------------------------------------------------------------------------- ingest


@dataclass
class IngestResult:
    """What one ingestion did (logged by the handler, turned into metrics)."""

    key: str
    doc_id: str
    # "pending" only while the batch runs; "failed": see ``error``
    status: Literal["pending", "indexed", "unchanged", "retired", "ignored", "failed"]
    revision: str | None = None
    generation: str | None = None
    chunks: int = 0
    runts: int = 0
    rounds: int = 0
    actions: list[str] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)  # seconds per stage
    chunk_chars: dict[str, float] = field(default_factory=dict)  # p1/p5/p50/p95
    error: ChunkwiseError | None = None

    def log_fields(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "doc_id": self.doc_id,
            "status": self.status,
            "revision": self.revision,
            "generation": self.generation,
            "chunks": self.chunks,
            "runts": self.runts,
            "rounds": self.rounds,
            "actions": self.actions,
            "stages": {k: round(v, 4) for k, v in self.stages.items()},
            "chunk_chars": self.chunk_chars,
        }


IndexFactory = Callable[[str | None], SwitchIndexPort]


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


class Pipeline:
    """Ingest one object change at a time. Thread-compatible: one per worker."""

    def __init__(
        self,
        config: PipelineConfig,
        *,
        store: ObjectStore,
        artifacts: ArtifactStore,
        index_for: IndexFactory,
        embedder: Embedder,
        chunker_config: ChunkerConfig | None = None,
        counter: HFTokenCounter | None = None,
        limits: ExtractLimits | None = None,
        ocr: OcrPort | None = None,
    ) -> None:
        if store.bucket != config.bucket:
            raise ConfigError(f"store bucket {store.bucket!r} != config bucket {config.bucket!r}")
        self.config = config
        self.store = store
        self.artifacts = artifacts
        self.index_for = index_for
        self.embedder = embedder
        self._chunker_config = chunker_config
        self._counter = counter
        self._limits = limits
        self.ocr = ocr

    # -- lazily built heavy parts
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

    # -- the entry points
    def ingest(self, change: ObjectChange, budget: DocumentBudget | None = None) -> IngestResult:
        """Make the index agree with S3's current version of ``change.key``; raises the
        document's error (`PermanentError`: never indexable; `TransientError`: retry).

        ``budget`` bounds this document's time and memory (the ingest function derives
        it from the invocation's remaining time); over it, `LimitExceeded`.
        """
        (result,) = self.ingest_batch([change], lambda _c: budget or DocumentBudget.unbounded())
        if result.error is not None:
            raise result.error
        return result

    def ingest_batch(
        self,
        changes: Sequence[ObjectChange],
        budget_for: Callable[[ObjectChange], DocumentBudget] | None = None,
    ) -> list[IngestResult]:
        """Several changes (one SQS batch) through the revision switch together: one
        index round trip per phase for all of them (`ingest_batch`). One
        result per change, in order; a failed one has status "failed" and its error."""
        return ingest_batch(self, changes, budget_for or (lambda _c: DocumentBudget.unbounded()))

    def _limits_within(self, budget: DocumentBudget) -> ExtractLimits:
        """The extraction limits, their time limit cut to what the document has left."""
        left = budget.seconds_left()
        if left is None or left >= self.limits.max_seconds:
            return self.limits
        return self.limits.model_copy(update={"max_seconds": max(left, 0.001)})

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

    def _check_work(self, chunks: Sequence[Chunk]) -> None:
        """Chunk and token limits, before anything is embedded or written."""
        from chunkwise.extract import LimitExceeded

        cfg = self.config
        if len(chunks) > cfg.max_chunks_per_document:
            raise LimitExceeded("max_chunks_per_document", cfg.max_chunks_per_document, len(chunks))
        tokens = sum(c.token_count for c in chunks)
        if tokens > cfg.max_tokens_per_document:
            raise LimitExceeded("max_tokens_per_document", cfg.max_tokens_per_document, tokens)

    def resolve_key(self, change: ObjectChange) -> str:
        """Decoded key, unless only the raw event key exists (an emulator or an
        EventBridge rule that did not URL-encode a key with a literal '+' or '%')."""
        if not change.raw_key or change.raw_key == change.key:
            return change.key
        if (
            self.store.head_current(change.key) is None
            and self.config.watches(change.raw_key)
            and self.store.head_current(change.raw_key) is not None
        ):
            log.warning("key %r exists only undecoded; using it", change.raw_key)
            return change.raw_key
        return change.key

    def load_chunks(
        self, version: ObjectVersion, doc_id: str, result: IngestResult, budget: DocumentBudget
    ) -> list[Chunk]:
        from chunkwise.chunking.chunk import ChunkingReport, chunk_text
        from chunkwise.extract import LimitExceeded, UnsupportedFormat, extract

        key = version.key
        suffix = posixpath.splitext(key)[1].lower()
        if self.config.allowed_suffixes and suffix not in self.config.allowed_suffixes:
            raise UnsupportedFormat(
                f"{key!r}: suffix {suffix or '(none)'!r} not in the allowed types "
                f"{', '.join(self.config.allowed_suffixes)}"
            )
        if version.size > self.config.max_object_bytes:
            raise LimitExceeded("max_object_bytes", self.config.max_object_bytes, version.size)
        budget.check("fetch")
        t = time.perf_counter()
        data = self.store.get_version(key, version.version_id)
        result.stages["fetch"] = time.perf_counter() - t
        if len(data) > self.config.max_object_bytes:
            raise LimitExceeded("max_object_bytes", self.config.max_object_bytes, len(data))
        budget.check("extract")
        t = time.perf_counter()
        extraction = extract(
            data, filename=posixpath.basename(key), limits=self._limits_within(budget), ocr=self.ocr
        )
        result.stages["extract"] = time.perf_counter() - t
        del data  # the source bytes are not needed past extraction
        self._check_text_size(extraction.text)
        budget.check("chunk")

        t = time.perf_counter()
        report = ChunkingReport()
        raw = chunk_text(
            extraction.text,
            lang="auto",
            config=self.chunker_config,
            counter=self.counter,
            report=report,
        )
        chunks = with_identity(raw, doc_id, version)
        result.stages["chunk"] = time.perf_counter() - t
        result.chunks = len(chunks)
        result.runts = report.runts
        result.chunk_chars = percentiles([c.end - c.start for c in chunks])
        if not chunks:
            from chunkwise.extract import EmptyDocument

            raise EmptyDocument(f"{key!r}: extracted text has no chunkable content")
        self._check_work(chunks)
        budget.check("artifacts")

        t = time.perf_counter()
        self._write_artifacts(doc_id, version, extraction, report, result)
        result.stages["artifacts"] = time.perf_counter() - t
        return chunks

    def _write_artifacts(
        self,
        doc_id: str,
        version: ObjectVersion,
        extraction: Any,
        report: Any,
        result: IngestResult,
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
                "chunks": result.chunks,
                "runts": report.runts,
                "max_tokens": report.max_tokens,
                "chars": result.chunk_chars,
            },
        }
        self.artifacts.put(
            self.config.artifact_key(doc_id, version.revision, ARTIFACT_SUFFIXES[1]),
            json.dumps(meta, ensure_ascii=False, indent=2).encode("utf-8"),
            "application/json",
        )


# --------------------------------------------------------------------------- one SQS batch
# Every document of the batch moves through the switch's phases together (one
# OpenSearch round trip per phase, `chunkwise.ingest.revisions`); extraction,
# chunking and embedding stay per document, each within its own budget, so one bad
# document fails alone.

#: Texts per embedding call between budget checks (a step of the local model takes
#: about a second on a loaded core; Bedrock embeds one text per call anyway).
EMBED_STEP = 16

BudgetFor = Callable[[ObjectChange], DocumentBudget]


def ingest_batch(
    pipeline: Pipeline, changes: Sequence[ObjectChange], budget_for: BudgetFor
) -> list[IngestResult]:
    """One result per change, in order; a failed one carries its error (``status``
    "failed"): a `PermanentError` for the DLQ, a `TransientError` to retry."""
    results = [_admit(pipeline, c) for c in changes]
    by_generation: dict[str | None, dict[str, list[tuple[ObjectChange, IngestResult]]]] = {}
    for change, result in zip(changes, results, strict=True):
        if result.status == "pending":
            docs = by_generation.setdefault(change.generation, {})
            docs.setdefault(result.doc_id, []).append((change, result))
    for generation, docs in by_generation.items():
        _switch(pipeline, pipeline.index_for(generation), docs, budget_for)
    return results


def _admit(pipeline: Pipeline, change: ObjectChange) -> IngestResult:
    """The change's result, "pending" when it is one for the switch."""
    config = pipeline.config
    doc_id = make_doc_id(config.bucket, change.key)
    result = IngestResult(key=change.key, doc_id=doc_id, status="pending")
    result.generation = change.generation
    if change.bucket != config.bucket:
        result.status = "failed"
        result.error = PermanentError(
            f"event for bucket {change.bucket!r}, but this pipeline serves {config.bucket!r}"
        )
    elif not config.watches(change.key):
        log.info("ignored: %r is not under the input prefix %r", change.key, config.input_prefix)
        result.status = "ignored"
    else:
        try:
            result.key = pipeline.resolve_key(change)
        except ChunkwiseError as exc:
            result.status, result.error = "failed", exc
        result.doc_id = make_doc_id(config.bucket, result.key)
    return result


def _switch(
    pipeline: Pipeline,
    port: SwitchIndexPort,
    docs: Mapping[str, list[tuple[ObjectChange, IngestResult]]],
    budget_for: BudgetFor,
) -> None:
    loader = _Loader(pipeline, {d: items[0] for d, items in docs.items()}, budget_for)
    switch = RevisionSwitch(port, pipeline.store.head_current, loader)
    t0 = time.perf_counter()
    outcomes = switch.run({d: items[0][1].key for d, items in docs.items()})
    elapsed = time.perf_counter() - t0
    for doc_id, outcome in outcomes.items():
        first = docs[doc_id][0][1]
        for _change, result in docs[doc_id]:
            if result is not first:  # the same key twice in one batch: one switch
                result.stages, result.chunks, result.runts = first.stages, first.chunks, first.runts
            result.stages["total"] = elapsed
            _apply(port, outcome, result)


def _apply(port: SwitchIndexPort, outcome: Outcome, result: IngestResult) -> None:
    result.rounds = outcome.rounds
    result.actions = [outcome.status]
    result.revision = outcome.revision
    if outcome.status == "indexed":
        result.status = "indexed"
    elif outcome.status == "unchanged":
        result.status = "unchanged" if outcome.revision else "retired"
    elif outcome.status == "retired":
        result.status = "retired"
    else:
        result.status = "failed"
        result.error = outcome.error or TransientError(f"{result.key!r}: switch ended open")
        if isinstance(result.error, PermanentError) and outcome.revision:
            _record_failure(port, result, outcome.revision, result.error)


def _record_failure(
    port: SwitchIndexPort, result: IngestResult, revision: str, exc: PermanentError
) -> None:
    """Best effort: the document's own error is what the caller must see; without
    the marker the next sweep only enqueues the revision once more."""
    try:
        port.record_failure(result.doc_id, result.key, revision, str(exc))
    except ChunkwiseError as marker_error:
        log.warning(
            "could not record the failure of %s/%s: %s", result.doc_id, revision, marker_error
        )


class _Loader:
    """The switch's `LoadFn`: fetch, extract and chunk each document in its own budget,
    and embed the chunks of consecutive documents together, in calls of the
    embedder's batch size (Cohere Embed takes 96 texts per call: ten documents of ten
    chunks are two calls, not ten); an error stays that document's."""

    def __init__(
        self,
        pipeline: Pipeline,
        docs: Mapping[str, tuple[ObjectChange, IngestResult]],
        budget_for: BudgetFor,
    ) -> None:
        self.pipeline = pipeline
        self.docs = docs
        self.budget_for = budget_for
        self.budgets: dict[str, DocumentBudget] = {}

    def __call__(
        self, items: Sequence[tuple[str, str, ObjectVersion]]
    ) -> dict[str, Loaded | ChunkwiseError]:
        out: dict[str, Loaded | ChunkwiseError] = {}
        loaded: dict[str, list[Chunk]] = {}
        shared = _SharedEmbedding(self, out)
        for doc_id, _key, version in items:
            change, result = self.docs[doc_id]
            budget = self.budgets.setdefault(doc_id, self.budget_for(change))
            try:
                loaded[doc_id] = self.pipeline.load_chunks(version, doc_id, result, budget)
            except ChunkwiseError as exc:
                self.fail(out, doc_id, exc)
                continue
            shared.add(doc_id, loaded[doc_id])
        vectors = shared.finish()
        for doc_id, chunks in loaded.items():
            if doc_id not in out:
                out[doc_id] = Loaded(chunks, vectors[doc_id])
        return out

    @staticmethod
    def fail(out: dict[str, Loaded | ChunkwiseError], doc_id: str, exc: ChunkwiseError) -> None:
        # Kept until the batch ends: without its traceback, which holds the failed
        # document's frames (source bytes, extracted text) alive.
        out[doc_id] = exc.with_traceback(None)
        del exc
        gc.collect()  # what the failed document held is not the next one's to carry


class _SharedEmbedding:
    """The chunks of consecutive documents embedded in shared calls of ``step`` texts.

    Full calls go out as soon as they are full; the rest waits for the next document,
    unless a waiting document has used half of its time budget (its share of the
    invocation must not run out while its batch-mates load), and goes out at the end.
    Before each call the budget of every document in it is checked, as before each
    step of a document alone; a document over it fails alone and its other texts
    leave the queue. A call that fails is retried document by document, so that the
    document whose text the model refused fails alone, not its call-mates."""

    def __init__(self, loader: _Loader, out: dict[str, Loaded | ChunkwiseError]) -> None:
        self.loader, self.out = loader, out
        self.embedder = loader.pipeline.embedder
        self.step = max(EMBED_STEP, int(self.embedder.batch_size))
        self.queue: deque[tuple[str, str]] = deque()
        self.vectors: dict[str, list[list[float]]] = {}
        self.step_seconds = 0.0  # how long the last call took: the next one will be alike

    def add(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        self.vectors[doc_id] = []
        if not chunks:
            self._check(doc_id, "index")
        self.queue.extend((doc_id, c.text) for c in chunks)
        self._flush(everything=self._pressed())

    def finish(self) -> dict[str, list[list[float]]]:
        self._flush(everything=True)
        return self.vectors

    def _pressed(self) -> bool:
        for doc_id in dict.fromkeys(d for d, _ in self.queue):
            budget = self.loader.budgets[doc_id]
            left, granted = budget.seconds_left(), budget.granted_seconds
            if left is not None and granted is not None and left < granted / 2:
                return True
        return False

    def _flush(self, *, everything: bool) -> None:
        while self.queue and (everything or len(self.queue) >= self.step):
            batch = [self.queue.popleft() for _ in range(min(self.step, len(self.queue)))]
            for doc_id in dict.fromkeys(d for d, _ in batch):
                self._check(doc_id, "embed", self.step_seconds)
            batch = [(d, t) for d, t in batch if d not in self.out]
            if batch:
                self._embed(batch)
            self.queue = deque((d, t) for d, t in self.queue if d not in self.out)
            waiting = {d for d, _ in self.queue}
            for doc_id in dict.fromkeys(d for d, _ in batch):
                if doc_id not in waiting:  # all its texts embedded: the step before writing
                    self._check(doc_id, "index")  # nothing is written past its deadline

    def _check(self, doc_id: str, stage: str, needs_seconds: float = 0.0) -> None:
        if doc_id in self.out:
            return
        try:
            self.loader.budgets[doc_id].check(stage, needs_seconds=needs_seconds)
        except ChunkwiseError as exc:
            self.loader.fail(self.out, doc_id, exc)

    def _embed(self, batch: list[tuple[str, str]]) -> None:
        t0 = time.perf_counter()
        owners = list(dict.fromkeys(d for d, _ in batch))
        try:
            vectors = self.embedder.embed([t for _, t in batch])
        except ChunkwiseError as exc:
            if len(owners) == 1:
                self.loader.fail(self.out, owners[0], exc)
                return
            for doc_id in owners:
                self._embed([(d, t) for d, t in batch if d == doc_id])
            return
        self.step_seconds = time.perf_counter() - t0
        for (doc_id, _), vector in zip(batch, vectors, strict=True):
            self.vectors[doc_id].append(vector)
        for doc_id in owners:
            stages = self.loader.docs[doc_id][1].stages
            share = sum(1 for d, _ in batch if d == doc_id) / len(batch)
            stages["embed"] = stages.get("embed", 0.0) + self.step_seconds * share


# --------------------------------------------------------------------------- sweep + rechunk


def plan_sweep(bucket_revisions: Mapping[str, str], live: Mapping[str, set[str]]) -> list[str]:
    """Keys whose visible revisions differ from the bucket's current one (pure).

    Lost events (key missing or stale in the index), failed messages after
    redrive, manual deletes (visible in the index, gone from S3) and documents
    showing two revisions all come out here.
    """
    drift = [k for k, rev in bucket_revisions.items() if live.get(k) != {rev}]
    drift += [k for k, revs in live.items() if revs and k not in bucket_revisions]
    return sorted(set(drift))


@dataclass
class SweepResult:
    bucket_keys: int
    indexed_keys: int
    drifted: list[str]
    enqueued: int = 0
    repaired: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    # key -> "revision: reason": the bucket's current revision is known to fail for
    # good; not drift, not re-enqueued (a new upload of the key is a new revision).
    known_failures: dict[str, str] = field(default_factory=dict)


def split_known_failures(
    drifted: Sequence[str],
    bucket_revisions: Mapping[str, str],
    failures: Mapping[str, Mapping[str, str]],
) -> tuple[list[str], dict[str, str]]:
    """(drift to repair, key -> "revision: reason" of current revisions known to fail)."""
    known: dict[str, str] = {}
    repair: list[str] = []
    for key in drifted:
        rev = bucket_revisions.get(key)
        reason = failures.get(key, {}).get(rev) if rev is not None else None
        if reason is None:
            repair.append(key)
        else:
            known[key] = f"{rev}: {reason}"
    return repair, known


def sweep(
    config: PipelineConfig,
    store: ObjectStore,
    live_set: LiveSetPort,
    *,
    queue: QueuePort | None = None,
    pipeline: Pipeline | None = None,
) -> SweepResult:
    """Reconcile sweep: bucket's current versions vs the index's live set.

    With a queue, one reconcile message per drifted key is enqueued (the ingest
    function does the work, in parallel, with the queue's retries and DLQ);
    without one, ``pipeline`` reconciles each drifted key inline (CLI, tests).
    """
    bucket = {
        v.key: v.revision for v in store.list_current(config.input_prefix) if config.watches(v.key)
    }
    live = {k: v for k, v in live_set.live_revisions().items() if config.watches(k)}
    drifted, known = split_known_failures(
        plan_sweep(bucket, live), bucket, live_set.known_failures()
    )
    res = SweepResult(
        bucket_keys=len(bucket), indexed_keys=len(live), drifted=drifted, known_failures=known
    )
    if queue is not None:
        queue.send_batch([change_message(config.bucket, k, "reconcile") for k in res.drifted])
        res.enqueued = len(res.drifted)
    elif pipeline is not None:
        from chunkwise.errors import ChunkwiseError

        for k in progress.track(res.drifted, "reconcile: documents"):
            try:
                pipeline.ingest(ObjectChange(config.bucket, k, kind="reconcile", raw_key=k))
                res.repaired.append(k)
            except ChunkwiseError as exc:
                log.warning("sweep: %r failed: %s", k, exc)
                res.failed[k] = f"{type(exc).__name__}: {exc}"
    return res


@dataclass
class RetentionResult:
    deleted_chunks: int
    expired_revisions: int
    deleted_artifacts: int


def apply_retention(
    config: PipelineConfig,
    index: RetentionIndexPort,
    artifacts: ArtifactStore,
    older_than_seconds: int,
    *,
    now: datetime | None = None,
) -> RetentionResult:
    """Erase what deleted and superseded revisions left behind, once they are older
    than the retention: their chunks (text, vectors) in the index and their
    artifacts (canonical text, report). A revision that is visible again (live or
    pending, e.g. re-ingested meanwhile) keeps its artifacts.
    """
    at = now or datetime.now(UTC)
    expired = index.expired_revisions(older_than_seconds, now=at)
    deleted = index.sweep(older_than_seconds, now=at)
    keys: list[str] = []
    for doc_id in sorted({d for d, _ in expired}):
        states = index.revision_states(doc_id)
        visible = {r for r, st in states.items() if st.visible or st.n(State.PENDING)}
        for d, revision in sorted(expired):
            if d == doc_id and revision not in visible:
                keys += [config.artifact_key(doc_id, revision, s) for s in ARTIFACT_SUFFIXES]
    artifacts.delete(keys)
    return RetentionResult(deleted, len(expired), len(keys))


def fan_out_rechunk(
    config: PipelineConfig, store: ObjectStore, queue: QueuePort, generation: str
) -> int:
    """Enqueue one rechunk message per current object (many workers share the work)."""
    bodies = [
        change_message(config.bucket, v.key, "rechunk", generation)
        for v in progress.track(store.list_current(config.input_prefix), "rechunk: documents")
        if config.watches(v.key)
    ]
    queue.send_batch(bodies)
    return len(bodies)


@dataclass(frozen=True)
class GenerationCheck:
    generation: str
    bucket_keys: int
    indexed_keys: int
    missing: tuple[str, ...]  # current in S3, not (exactly) live in the generation
    extra: tuple[str, ...]  # live in the generation, gone from S3

    @property
    def complete(self) -> bool:
        return not self.missing and not self.extra and self.bucket_keys == self.indexed_keys


def verify_generation(
    config: PipelineConfig, store: ObjectStore, live_set: LiveSetPort, generation: str
) -> GenerationCheck:
    """Is the new generation complete: exactly the bucket's current revisions live?"""
    listing = progress.track(store.list_current(config.input_prefix), "finish: documents")
    bucket = {v.key: v.revision for v in listing if config.watches(v.key)}
    live = {k: v for k, v in live_set.live_revisions().items() if v and config.watches(k)}
    missing = tuple(sorted(k for k, r in bucket.items() if live.get(k) != {r}))
    extra = tuple(sorted(k for k in live if k not in bucket))
    return GenerationCheck(generation, len(bucket), len(live), missing, extra)


def iter_batches(items: Iterable[str], size: int = 10) -> Iterator[list[str]]:
    batch: list[str] = []
    for it in items:
        batch.append(it)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
