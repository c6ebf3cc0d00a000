"""A document's head record: which revision is current (pure).

Every document has one head next to its chunks (same generation index, same routing,
``_id = <doc_id>:head``, state ``head``): the current revision state (object revision
and metadata version, named together by their revision key,
`chunkwise.index.versions.revision_key`) and its chunk count, the older revisions still
to be marked superseded (``cleanup``), a failure reason when S3's current revision can
never be indexed, and whether the switch finished (``settled``). A tombstone head
(revision "") says the key is deleted. The writer (`chunkwise.ingest.revisions`) commits
revisions by writing heads; the reader (`chunkwise.index.reading`) keeps the chunks a
head names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chunkwise.index.states import State
from chunkwise.index.versions import revision_key

HEAD_STATE = State.HEAD.value  # the `state` of a head record (no chunk query matches it)
#: The states a reader's candidate query accepts; the head decides among them.
CANDIDATE_STATES = ("pending", "live")
LEGACY_STATE = "live"  # documents written before heads existed: their live chunks count


def head_id(doc_id: str) -> str:
    return f"{doc_id}:head"


def chunk_id(doc_id: str, key: str, index: int) -> str:
    """The `_id` of chunk ``index`` of the revision state ``key`` (a revision key):
    deterministic, so a retry overwrites instead of duplicating. Without metadata it is
    `Chunk.chunk_id`."""
    return f"{doc_id}:{key}:{index}"


def chunk_ids(doc_id: str, key: str, n: int) -> list[str]:
    """The `_id`s of the ``n`` chunks of the revision state ``key`` (a revision key)."""
    return [chunk_id(doc_id, key, i) for i in range(n)]


@dataclass(frozen=True)
class Head:
    """A document's head record. ``revision`` "" = the key is deleted (tombstone).

    ``revision`` is the object's S3 revision (what citations show), ``metadata_version``
    its sidecar's; the protocol compares and names the pair by `revision_key`."""

    doc_id: str
    key: str
    revision: str
    chunks: int
    cleanup: tuple[tuple[str, int], ...] = ()  # (revision key, chunk count) to supersede
    failed: str = ""  # why the current revision state can never be indexed
    settled: bool = False  # finish done: chunks live for every reader, cleanup empty
    seq_no: int = -1  # concurrency token of the stored version (-1: not stored)
    primary_term: int = 0
    metadata_version: str = ""  # the sidecar's revision ("" = none)

    @property
    def tombstone(self) -> bool:
        return not self.revision

    @property
    def revision_key(self) -> str:
        """The revision state this head names ("" for a tombstone)."""
        return revision_key(self.revision, self.metadata_version) if self.revision else ""

    def successor(
        self, revision: str, chunks: int, *, metadata_version: str = "", failed: str = ""
    ) -> Head:
        """The head that replaces this one: the old state joins the cleanup list (and
        the new one leaves it, should an old state have become current again)."""
        new_key = revision_key(revision, metadata_version) if revision else ""
        cleanup = [c for c in self.cleanup if c[0] != new_key]
        if self.revision and self.revision_key != new_key and self.chunks:
            cleanup.append((self.revision_key, self.chunks))
        return Head(
            self.doc_id,
            self.key,
            revision,
            chunks,
            tuple(cleanup),
            failed,
            metadata_version=metadata_version if revision else "",
        )


def absent_head(doc_id: str, key: str, legacy: Sequence[tuple[str, int]] = ()) -> Head:
    """A document without a head yet; ``legacy``: live revisions of the older protocol."""
    return Head(doc_id, key, "", 0, tuple(legacy))
