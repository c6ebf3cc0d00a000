"""The reader's side of the revision protocol: of the chunks a search found, keep
those of each document's current revision (pure, over two search callbacks).

Candidates of any revision (state pending or live, over the write alias, never
the filtered read alias), then one search for the heads of their documents with
the same shard copies; a candidate counts when its revision key (object revision and
metadata version, `chunkwise.index.versions.revision_key`; read from the chunk's
``_id``, `candidate_of`) is its head's. When a head names a revision state none of
its candidates has, the head came with a later
refresh than the candidates: search again, wider (at most 3 times). Heads are
read by search, never by a realtime get, which would see a head before its
searcher does. Why this never shows a partial revision: samdocs/architecture.md,
"The revision protocol" (the writer: `chunkwise.ingest.revisions`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from chunkwise.index.heads import LEGACY_STATE, Head

T = TypeVar("T")


@dataclass(frozen=True)
class Candidate:
    """What the reader needs of a hit to judge it: its document, the revision key of the
    state it belongs to (object revision + metadata version) and its chunk state."""

    doc_id: str
    revision_key: str
    state: str


def candidate_of(chunk_id: str, doc_id: str, state: str) -> Candidate:
    """A hit's candidate from its ``_id`` (``<doc_id>:<revision key>:<chunk index>``,
    `chunkwise.index.heads.chunk_id`): the id names the revision state the chunk was
    written for, metadata version included, which its ``revision`` field (the object
    revision citations show) does not."""
    prefix = f"{doc_id}:"
    start, end = len(prefix), chunk_id.rfind(":")
    if not chunk_id.startswith(prefix) or end < start:
        return Candidate(doc_id, "", state)  # not a chunk of this document: never kept
    return Candidate(doc_id, chunk_id[start:end], state)


def judge(
    candidates: Sequence[Candidate], heads: Mapping[str, Head | None]
) -> tuple[list[bool], bool]:
    """(keep each candidate?, should the search run again?).

    A candidate counts when its revision key is its document's head's (same object
    revision AND same metadata version: a chunk restamped with other metadata is
    another state); a document without a head (written before heads existed) counts
    with its live chunks. Run again when a head names a state none of the document's
    candidates has: the head moved after the search, and the new state's chunks are
    searchable now (they were before the head named them).
    """
    keep: list[bool] = []
    seen: dict[str, set[str]] = {}
    for c in candidates:
        seen.setdefault(c.doc_id, set()).add(c.revision_key)
        head = heads.get(c.doc_id)
        if head is None:
            keep.append(c.state == LEGACY_STATE)
        else:
            keep.append(not head.tombstone and c.revision_key == head.revision_key)
    again = any(
        h is not None and h.chunks > 0 and not h.tombstone and h.revision_key not in seen[d]
        for d, h in heads.items()
        if d in seen
    )
    return keep, again


def read_current(
    search: Callable[[int], Sequence[T]],
    candidate: Callable[[T], Candidate],
    heads: Callable[[Sequence[str]], Mapping[str, Head]],
    *,
    attempts: int = 3,
) -> list[T]:
    """Run ``search(attempt)`` and keep what its documents' heads name as current.

    ``search`` gets the attempt number (0, 1, ...) to widen its window; it is run
    again when a head moved past the candidates it returned (`judge`), at most
    ``attempts`` times. ``heads`` searches the stored heads (refreshed state, same
    shard copies as ``search``; absent: the older protocol)."""
    kept: list[T] = []
    for attempt in range(attempts):
        items = list(search(attempt))
        cands = [candidate(i) for i in items]
        stored = heads(sorted({c.doc_id for c in cands}))
        keep, again = judge(cands, {c.doc_id: stored.get(c.doc_id) for c in cands})
        kept = [i for i, k in zip(items, keep, strict=True) if k]
        if not again:
            break
    return kept
