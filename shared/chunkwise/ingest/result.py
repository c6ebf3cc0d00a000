"""What one ingestion did: `IngestResult`, logged by the handler and turned into metrics.

The pipeline builds one per object change once the revision switch is done, from
values: the admission of the change, the switch's `Outcome`, and, if the document
was loaded, its `DocumentLoad` (chunks, tokens, extraction facts, stage timings), or,
if only its metadata changed, its `Restamp`.

The counters say what the change cost: ``extractions`` (documents extracted) and
``embedding_calls`` (calls to the embedding model that carried its texts) are 0 for a
``metadata_only`` change, which copied the current chunks and vectors with the new
metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from chunkwise.errors import ChunkwiseError
from chunkwise.ingest.document import DocumentLoad, ExtractionFacts
from chunkwise.ingest.embed_batch import Restamp
from chunkwise.metadata.model import DocumentMetadata

Status = Literal["indexed", "unchanged", "retired", "ignored", "failed"]


@dataclass(frozen=True)
class IngestResult:
    """What became of one object change ("failed": see ``error``)."""

    key: str
    doc_id: str
    status: Status
    revision: str | None = None
    metadata_version: str = ""  # the sidecar's revision ("" = none)
    generation: str | None = None
    chunks: int = 0
    runts: int = 0
    tokens: int = 0  # the sum of the chunks' token counts
    rounds: int = 0
    actions: list[str] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)  # seconds per stage
    chunk_chars: dict[str, float] = field(default_factory=dict)  # p1/p5/p50/p95
    extraction: ExtractionFacts | None = None  # None: nothing was extracted
    error: ChunkwiseError | None = None
    metadata_only: bool = False  # restamped: the current chunks with new metadata
    extractions: int = 0  # documents extracted for this change
    embedding_calls: int = 0  # embedding calls that carried its texts
    metadata_attributes: int = 0
    readers: int | None = None  # groups named as readers (None: no readers key)
    metadata_notes: tuple[str, ...] = ()  # what was read but not used (never values)

    @classmethod
    def loaded(
        cls,
        key: str,
        doc_id: str,
        status: Status,
        load: DocumentLoad | Restamp | None,
        **values: Any,
    ) -> IngestResult:
        """A result with the figures of the document's load or restamp (none if it was
        neither)."""
        if isinstance(load, DocumentLoad):
            values |= {
                "chunks": load.chunking.chunks,
                "runts": load.chunking.runts,
                "tokens": load.tokens,
                "chunk_chars": load.chunking.chars,
                "extraction": load.extraction,
            }
        elif isinstance(load, Restamp):
            values |= {"chunks": load.chunks, "tokens": load.tokens}
        if load is not None:
            values |= _metadata_figures(load.metadata)
        return cls(key, doc_id, status, **values)

    def log_fields(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "doc_id": self.doc_id,
            "status": self.status,
            "revision": self.revision,
            "metadata_version": self.metadata_version,
            "generation": self.generation,
            "chunks": self.chunks,
            "runts": self.runts,
            "tokens": self.tokens,
            "rounds": self.rounds,
            "actions": self.actions,
            "stages": {k: round(v, 4) for k, v in self.stages.items()},
            "chunk_chars": self.chunk_chars,
            "extraction": self.extraction.log_fields() if self.extraction else None,
            "metadata_only": self.metadata_only,
            "extractions": self.extractions,
            "embedding_calls": self.embedding_calls,
            "metadata": {
                "attributes": self.metadata_attributes,
                "readers": self.readers,
                "notes": list(self.metadata_notes),
            },
        }


def _metadata_figures(metadata: DocumentMetadata) -> dict[str, Any]:
    return {
        "metadata_attributes": len(metadata.attributes),
        "readers": None if metadata.readers is None else len(metadata.readers),
        "metadata_notes": metadata.notes,
    }
