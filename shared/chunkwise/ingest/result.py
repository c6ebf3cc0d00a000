"""What one ingestion did: `IngestResult`, logged by the handler and turned into metrics.

The pipeline builds one per object change once the revision switch is done, from
values: the admission of the change, the switch's `Outcome`, and, if the document
was loaded, its `DocumentLoad` (chunks, tokens, extraction facts, stage timings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from chunkwise.errors import ChunkwiseError
from chunkwise.ingest.document import DocumentLoad, ExtractionFacts

Status = Literal["indexed", "unchanged", "retired", "ignored", "failed"]


@dataclass(frozen=True)
class IngestResult:
    """What became of one object change ("failed": see ``error``)."""

    key: str
    doc_id: str
    status: Status
    revision: str | None = None
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

    @classmethod
    def loaded(
        cls, key: str, doc_id: str, status: Status, load: DocumentLoad | None, **values: Any
    ) -> IngestResult:
        """A result with the figures of the document's load (none if it was not loaded)."""
        if load is not None:
            values |= {
                "chunks": load.chunking.chunks,
                "runts": load.chunking.runts,
                "tokens": load.tokens,
                "chunk_chars": load.chunking.chars,
                "extraction": load.extraction,
            }
        return cls(key, doc_id, status, **values)

    def log_fields(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "doc_id": self.doc_id,
            "status": self.status,
            "revision": self.revision,
            "generation": self.generation,
            "chunks": self.chunks,
            "runts": self.runts,
            "tokens": self.tokens,
            "rounds": self.rounds,
            "actions": self.actions,
            "stages": {k: round(v, 4) for k, v in self.stages.items()},
            "chunk_chars": self.chunk_chars,
            "extraction": self.extraction.log_fields() if self.extraction else None,
        }
