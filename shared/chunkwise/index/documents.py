"""Chunk documents: a Chunk and its vector as the index stores them, and the bulk
actions that write them (pure; `_id` = the chunk's id in its revision state, routing =
doc_id).

A chunk document carries its revision state: ``revision`` (the object's, what
citations show), ``metadata_version`` (its sidecar's) and the document's metadata
fields (``meta``, ``readers``: `chunkwise.metadata.fields.document_fields`), the same
on every chunk of the state. `chunk_from_source` reads a stored document back into
its Chunk and vector (a metadata-only change restamps them without re-embedding).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from chunkwise.chunking.rows import table_rows
from chunkwise.index.heads import chunk_id
from chunkwise.index.mapping import LANG_FIELDS, ROWS_FIELD, TEXT_FIELD
from chunkwise.index.states import State, utcnow_iso
from chunkwise.index.versions import revision_key
from chunkwise.metadata.fields import VERSION_FIELD
from chunkwise.schema import Chunk

#: The vector's field in a chunk's ``_source``.
EMBEDDING_FIELD = "embedding"


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
    metadata_version: str = "",
    fields: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The OpenSearch ``_source`` of a chunk: the Chunk fields, its revision state's
    metadata (``fields``) and the index fields."""
    doc = chunk.model_dump(mode="json")
    doc.update(fields or {})
    doc[VERSION_FIELD] = metadata_version
    for name in ("last_modified",):
        if not doc[name]:
            doc[name] = None  # "" is not a date
    for f in lang_fields(chunk.lang):
        doc[f] = chunk.text
    rows = table_rows(chunk.body, chunk.table_header)
    if rows:
        analysed = [TEXT_FIELD, *lang_fields(chunk.lang)]
        doc[ROWS_FIELD] = [dict.fromkeys(analysed, row) for row in rows]
    doc[EMBEDDING_FIELD] = [float(x) for x in embedding]
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
    metadata_version: str = "",
    fields: Mapping[str, Any] | None = None,
) -> Iterator[dict[str, Any]]:
    """opensearch-py ``helpers.bulk`` actions of one revision state's chunks: ``_id`` =
    the chunk's id under the state's revision key, routing = doc_id."""
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
            "_id": chunk_id(c.doc_id, revision_key(c.revision, metadata_version), c.chunk_index),
            "_routing": c.doc_id,
            "_source": chunk_document(
                c,
                e,
                state=state,
                revision_chunks=counts[(c.doc_id, c.revision)],
                now=stamp,
                metadata_version=metadata_version,
                fields=fields,
            ),
        }


def chunk_from_source(source: Mapping[str, Any]) -> tuple[Chunk, list[float]]:
    """A stored chunk document back as its Chunk and vector (the index-only fields,
    the metadata and the state are left behind; `chunk_document` rebuilds them)."""
    contract = {name: source[name] for name in Chunk.model_fields if name in source}
    if contract.get("last_modified") is None:
        contract["last_modified"] = ""  # stored as null: "" is not a date
    return Chunk.model_validate(contract), [float(x) for x in source[EMBEDDING_FIELD]]
