"""Chunk documents: a Chunk and its vector as the index stores them, and the bulk
actions that write them (pure; `_id` = chunk_id, routing = doc_id)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from chunkwise.chunking.rows import table_rows
from chunkwise.index.mapping import LANG_FIELDS, ROWS_FIELD, TEXT_FIELD
from chunkwise.index.states import State, utcnow_iso
from chunkwise.schema import Chunk


def lang_fields(lang: str) -> list[str]:
    """Analysed BM25 fields a chunk of language ``lang`` fills (all of them if unknown)."""
    base = lang.lower().split("-")[0].split("_")[0]
    if base in LANG_FIELDS:
        return [LANG_FIELDS[base]]
    return list(LANG_FIELDS.values())


def chunk_document(
    chunk: Chunk,
    embedding: Sequence[float],
    *,
    state: State = State.PENDING,
    revision_chunks: int,
    now: str | None = None,
) -> dict[str, Any]:
    """The OpenSearch ``_source`` of a chunk: the Chunk fields plus index fields."""
    doc = chunk.model_dump(mode="json")
    for name in ("last_modified",):
        if not doc[name]:
            doc[name] = None  # "" is not a date
    for f in lang_fields(chunk.lang):
        doc[f] = chunk.text
    rows = table_rows(chunk.body, chunk.table_header)
    if rows:
        fields = [TEXT_FIELD, *lang_fields(chunk.lang)]
        doc[ROWS_FIELD] = [dict.fromkeys(fields, row) for row in rows]
    doc["embedding"] = [float(x) for x in embedding]
    doc["state"] = state.value
    doc["revision_chunks"] = revision_chunks
    doc["indexed_at"] = now or utcnow_iso()
    return doc


def bulk_actions(
    chunks: Sequence[Chunk],
    embeddings: Sequence[Sequence[float]],
    *,
    index: str,
    state: State = State.PENDING,
    now: str | None = None,
) -> Iterator[dict[str, Any]]:
    """opensearch-py ``helpers.bulk`` actions: ``_id`` = chunk_id, routing = doc_id."""
    if len(chunks) != len(embeddings):
        raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
    counts: dict[tuple[str, str], int] = {}
    for c in chunks:
        counts[(c.doc_id, c.revision)] = counts.get((c.doc_id, c.revision), 0) + 1
    stamp = now or utcnow_iso()
    for c, e in zip(chunks, embeddings, strict=True):
        if not c.doc_id or not c.revision:
            raise ValueError(f"chunk {c.chunk_index} has no doc_id/revision")
        yield {
            "_op_type": "index",
            "_index": index,
            "_id": c.chunk_id,
            "_routing": c.doc_id,
            "_source": chunk_document(
                c,
                e,
                state=state,
                revision_chunks=counts[(c.doc_id, c.revision)],
                now=stamp,
            ),
        }
