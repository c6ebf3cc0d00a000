"""A document's head record: which revision is current (pure).

Every document has one head next to its chunks (same generation index, same
routing, ``_id = <doc_id>:head``, state ``head``): the current revision and its
chunk count, the older revisions still to be marked superseded (``cleanup``), a
failure reason when S3's current revision can never be indexed, and whether the
switch finished (``settled``). A tombstone head (revision "") says the key is
deleted. The writer (`chunkwise.ingest.revisions`) commits revisions by writing
heads; the reader (`chunkwise.index.reading`) keeps the chunks a head names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chunkwise.index.states import State

HEAD_STATE = State.HEAD.value  # the `state` of a head record (no chunk query matches it)
#: The states a reader's candidate query accepts; the head decides among them.
CANDIDATE_STATES = ("pending", "live")
LEGACY_STATE = "live"  # documents written before heads existed: their live chunks count


def head_id(doc_id: str) -> str:
    return f"{doc_id}:head"


def chunk_ids(doc_id: str, revision: str, n: int) -> list[str]:
    """The `_id`s of a revision's chunks (deterministic: `Chunk.chunk_id`)."""
    return [f"{doc_id}:{revision}:{i}" for i in range(n)]


@dataclass(frozen=True)
class Head:
    """A document's head record. ``revision`` "" = the key is deleted (tombstone)."""

    doc_id: str
    key: str
    revision: str
    chunks: int
    cleanup: tuple[tuple[str, int], ...] = ()  # (revision, chunk count) still to delete
    failed: str = ""  # why the current revision can never be indexed
    settled: bool = False  # finish done: chunks live for every reader, cleanup empty
    seq_no: int = -1  # concurrency token of the stored version (-1: not stored)
    primary_term: int = 0

    @property
    def tombstone(self) -> bool:
        return not self.revision

    def successor(self, revision: str, chunks: int, *, failed: str = "") -> Head:
        """The head that replaces this one: the old revision joins the cleanup list
        (and the new one leaves it, should an old version have become current again)."""
        cleanup = [c for c in self.cleanup if c[0] != revision]
        if self.revision and self.revision != revision and self.chunks:
            cleanup.append((self.revision, self.chunks))
        return Head(self.doc_id, self.key, revision, chunks, tuple(cleanup), failed)


def absent_head(doc_id: str, key: str, legacy: Sequence[tuple[str, int]] = ()) -> Head:
    """A document without a head yet; ``legacy``: live revisions of the older protocol."""
    return Head(doc_id, key, "", 0, tuple(legacy))
