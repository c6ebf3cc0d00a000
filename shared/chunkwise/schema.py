"""The Chunk contract (samdocs/architecture.md, "The Chunk contract").

A Chunk is at the same time the library's return value, the JSONL line of
`chunkwise chunk` and the OpenSearch document. `body` is the cited source
span and is never altered; `text` is what gets indexed and embedded.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

# Bump when a field is added, removed or changes meaning; stored with every chunk
# so that readers can tell generations apart.
# 2: sized_by_model / sized_by_tokenizer (the token cap follows the model).
CHUNK_SCHEMA_VERSION = 2


class ChunkKind(StrEnum):
    PROSE = "prose"
    TABLE = "table"
    CODE = "code"
    LIST = "list"
    TRANSCRIBED = "transcribed"


class Chunk(BaseModel):
    """One citable span of a document's extracted text plus its retrieval context."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = CHUNK_SCHEMA_VERSION
    doc_id: str = ""
    source_key: str = ""
    revision: str = ""
    source_etag: str = ""
    last_modified: str = ""
    chunk_index: int = Field(ge=0)
    start: int = Field(ge=0, description="code-point offset, inclusive")
    end: int = Field(ge=0, description="code-point offset, exclusive")
    byte_start: int = Field(ge=0, description="UTF-8 byte offset, inclusive")
    byte_end: int = Field(ge=0, description="UTF-8 byte offset, exclusive")
    body: str
    heading_path: list[str] = Field(default_factory=list)
    overlap_prefix: str = ""
    table_header: str = ""
    text: str
    token_count: int = Field(ge=0)
    # Which model's limit and which tokenizer file `token_count` was counted with:
    # a chunk sized for one model is not known to fit another.
    sized_by_model: str = ""
    sized_by_tokenizer: str = ""
    kind: ChunkKind = ChunkKind.PROSE
    lang: str = "und"
    page_start: int | None = None
    page_end: int | None = None
    content_sha256: str = ""

    @model_validator(mode="after")
    def _span_is_consistent(self) -> Chunk:
        if self.end < self.start or self.byte_end < self.byte_start:
            raise ValueError("chunk span must be half-open with start <= end")
        if self.end - self.start != len(self.body):
            raise ValueError("end - start must equal len(body)")
        return self

    @property
    def chunk_id(self) -> str:
        """Deterministic document `_id`: a retry overwrites instead of duplicating."""
        return f"{self.doc_id}:{self.revision}:{self.chunk_index}"
