"""The revision switch: the commit point of a revision is one head write.

Every document has a small **head** record next to its chunks
(`chunkwise.index.heads`: same generation index, same routing,
``_id = <doc_id>:head``): which revision is current, how many chunks it has,
which older revisions still wait for removal, and whether the key is deleted or
its current revision failed for good. Chunks are written
with their revision and state ``pending`` and are not current by themselves;
the head is flipped with one write guarded by OpenSearch's optimistic
concurrency control (``if_seq_no``/``if_primary_term``), and only then are the
new chunks marked ``live`` and the old ones ``superseded`` (the retention sweep
erases them later, with their artifacts).

One batch of documents moves through the same phases together, one round trip
per phase (``Phase``), and no phase refreshes the index::

    read heads (realtime mget) ─▶ S3 HEAD ─▶ load+embed ─▶ write chunks (bulk
    create) ─▶ S3 HEAD again ─▶ commit heads (bulk, CAS) ─▶ finish (bulk: new chunks
    live, old ones superseded) ─▶ clear the heads' cleanup lists (bulk, CAS)

What a head names is a revision *state*: the object's S3 revision and its
metadata version (its sidecar's revision), compared as a pair and named by their
revision key (`chunkwise.index.versions.revision_key`). A state whose object revision
is the head's and whose metadata is not (a new, changed or deleted sidecar) is
*restamped* (`metadata_only`): the ``restamp`` step copies the head's chunks and
vectors with the new metadata instead of extracting and embedding again, and the
rest of the round is the same.

Why an older revision can never win: a head is only committed with the
sequence number read at the start of the round, and S3 is asked for the
current version *after* that read. A writer that read the head before another
writer's commit loses the compare-and-set; a writer that read it after saw S3
after that commit, so it cannot hold an older version than the committed one.
This holds for each half of the state alike (both are HEADed after the heads were
read, and both again before the commit), so neither the object nor the metadata of
a committed head is ever older than a head committed before it.

Why a reader never sees a partial revision: a head and its chunks share one
shard (routing by doc_id), and the head is written after the chunks' bulk was
acknowledged. A searcher opened by a refresh sees a prefix of the shard's
operations, so a searcher that sees the head sees every chunk it names, and
the old revision's chunks are deleted only after the head, so a searcher that
does not see the new head still sees the whole old revision. The reader
(`chunkwise.index.reading.read_current`) searches candidates, then searches the
heads of their documents (never a realtime get: that would see a head before its
searcher does), keeps the chunks of each head's revision, and searches again
when a head names a revision its candidates lack (the head came with a later
refresh). The argument, step by step, with what a crash at each point leaves,
is in samdocs/architecture.md.

Pure protocol logic over a port: `SwitchIndexPort` (real: the OpenSearch
adapter; tests: an in-memory index with refresh semantics).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar

from chunkwise.errors import ChunkwiseError, PermanentError, TransientError
from chunkwise.index.heads import Head, chunk_id
from chunkwise.index.versions import revision_key
from chunkwise.schema import Chunk

log = logging.getLogger("chunkwise.ingest.revisions")


class Phase(StrEnum):
    """Step boundaries of `RevisionSwitch.steps` (faults are injected between them)."""

    READ_HEADS = "read_heads"
    PLAN = "plan"  # S3 HEAD of every document
    LOAD = "load"  # extract, chunk, embed; or restamp (a realtime read of the head's chunks)
    WRITE = "write_chunks"
    CONFIRM = "confirm"  # S3 HEAD again
    COMMIT = "commit_heads"
    FINISH = "finish"
    CLEAR = "clear_cleanup"


@dataclass(frozen=True)
class Version:
    """What S3 says is current (the parts the switch needs)."""

    revision: str
    etag: str = ""
    metadata_version: str = ""


@dataclass
class Loaded:
    """A revision state ready to write: its chunks and their vectors (same order), its
    metadata version and the metadata fields every one of its chunks carries."""

    chunks: list[Chunk]
    vectors: list[list[float]]
    metadata_version: str = ""
    fields: Mapping[str, Any] = field(default_factory=dict)

    def chunk_ids(self) -> list[str]:
        """The chunks' `_id`s under this state's revision key."""
        return [
            chunk_id(c.doc_id, revision_key(c.revision, self.metadata_version), c.chunk_index)
            for c in self.chunks
        ]


class WriteRejected(PermanentError):
    """Chunks of the revision were rejected by the index (mapping, vector size...)."""


class SwitchIndexPort(Protocol):
    """What the switch needs from the index; every call is one round trip."""

    def read_heads(self, docs: Mapping[str, str]) -> dict[str, Head]:
        """Realtime heads of ``doc_id -> key``; a document without one gets
        `absent_head` with the live revisions of the older protocol as cleanup."""
        ...

    def write_chunks(self, loaded: Sequence[Loaded]) -> dict[str, str]:
        """Create as pending (no refresh); a chunk that exists already (a twin
        writer's: same revision, same text) is left as it is, so a late twin never
        turns live chunks back to pending. Returns ``doc_id -> reason`` for
        documents with rejected chunks."""
        ...

    def commit_heads(self, pairs: Sequence[tuple[Head, Head]]) -> dict[str, Head]:
        """(read, new): write each new head iff the stored one is still ``read``;
        returns the committed heads (with their new seq_no) by doc_id; the rest
        lost to a concurrent writer."""
        ...

    def finish(self, heads: Sequence[Head]) -> None:
        """Mark each head's chunks live and the chunks of its cleanup list superseded
        (deleted, for a tombstone); retention erases those later."""
        ...

    def clear_cleanup(self, heads: Sequence[Head]) -> None:
        """Empty the cleanup list of each head that is still the stored one."""
        ...

    def delete_chunks(self, ids: Sequence[str], routing: Mapping[str, str]) -> None:
        """Remove the chunks of a rejected revision."""
        ...

    def record_failure(
        self, doc_id: str, key: str, revision: str, reason: str, metadata_version: str = ""
    ) -> None:
        """Remember that this revision state can never be indexed (the sweep skips it)."""
        ...


class HasRevision(Protocol):
    """What the switch needs of S3's answer (real: `ObjectVersion`; tests: `Version`):
    the object's revision and its metadata version; two answers are the same state
    when they compare equal."""

    @property
    def revision(self) -> str: ...

    @property
    def metadata_version(self) -> str: ...


def state_key(current: HasRevision) -> str:
    """The revision key of S3's answer."""
    return revision_key(current.revision, current.metadata_version)


V = TypeVar("V", bound=HasRevision)


@dataclass
class Outcome:
    doc_id: str
    key: str
    status: str = "pending"  # indexed, unchanged, retired, failed, error
    revision: str | None = None
    metadata_version: str = ""
    chunks: int = 0
    rounds: int = 0
    error: ChunkwiseError | None = None
    metadata_only: bool = False  # the committed state was restamped, not loaded

    @property
    def open(self) -> bool:
        return self.status == "pending"


class Plan(StrEnum):
    NONE = "none"  # the head is current and settled
    WRITE = "write"  # S3 has a state the head does not name: load (or restamp), write, commit
    COMMIT = "commit"  # a head without writing chunks: a tombstone, or adopting a revision
    REPAIR = "repair"  # committed, but its finish did not complete: roll forward


def plan(head: Head, current: HasRevision | None) -> Plan:
    """What one document needs, from its head and S3's current version (pure)."""
    if current is None:
        if head.tombstone and (head.seq_no >= 0 or not head.cleanup):
            return Plan.REPAIR if head.seq_no >= 0 and not head.settled else Plan.NONE
        return Plan.COMMIT
    key = state_key(current)
    if head.seq_no < 0 and any(r == key for r, _ in head.cleanup):
        return Plan.COMMIT  # live in the older protocol already: adopt it
    if head.revision_key != key or head.seq_no < 0:
        return Plan.WRITE
    return Plan.NONE if head.settled else Plan.REPAIR


def metadata_only(head: Head, current: HasRevision | None) -> bool:
    """Does S3's state differ from the head's in its metadata only, with chunks to copy?
    (The head names this object revision, is stored, neither deleted nor failed, and
    has chunks; its metadata version is another.) Pure."""
    return (
        current is not None
        and head.seq_no >= 0
        and not head.tombstone
        and not head.failed
        and head.chunks > 0
        and head.revision == current.revision
        and head.metadata_version != current.metadata_version
    )


@dataclass
class _Doc:
    doc_id: str
    key: str
    outcome: Outcome
    head: Head = field(default_factory=lambda: Head("", "", "", 0))
    current: Any = None  # the switch's V (S3's answer) or None
    plan: Plan = Plan.NONE
    loaded: Loaded | None = None
    failure: ChunkwiseError | None = None
    new_head: Head | None = None
    written: bool = False

    def reset(self, head: Head) -> None:
        self.outcome.metadata_only = False
        self.head, self.loaded, self.failure, self.new_head, self.written = (
            head,
            None,
            None,
            None,
            False,
        )

    @property
    def open(self) -> bool:
        return self.outcome.open


@dataclass
class RevisionSwitch(Generic[V]):
    """Runs the switch for a batch of documents (see the module docstring).

    ``current(key)``: S3's current state (None: deleted); ``load(items)`` with
    items ``(doc_id, key, version)``: each document's chunks and vectors, or the
    error that keeps it from being indexed. ``restamp(items)`` with items ``(doc_id,
    head, version)`` of `metadata_only` changes: the head's chunks and vectors with the
    new state's metadata, or the error that keeps that state from being indexed; a
    document it leaves out (its chunks are gone) is loaded. Without it, every change
    is loaded."""

    index: SwitchIndexPort
    current: Callable[[str], V | None]
    load: Callable[[Sequence[tuple[str, str, V]]], Mapping[str, Loaded | ChunkwiseError]]
    max_rounds: int = 5
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    restamp: (
        Callable[[Sequence[tuple[str, Head, V]]], Mapping[str, Loaded | ChunkwiseError]] | None
    ) = None

    def run(self, docs: Mapping[str, str]) -> dict[str, Outcome]:
        for _ in self.steps(docs):
            pass
        return self.outcomes

    def steps(self, docs: Mapping[str, str]) -> Generator[Phase, None, None]:
        """``docs``: doc_id -> key. Yields after every phase (tests interleave
        writers and inject faults there); `outcomes` holds the result."""
        todo = [_Doc(d, k, Outcome(d, k)) for d, k in docs.items()]
        self.outcomes = {d.doc_id: d.outcome for d in todo}
        for rnd in range(1, self.max_rounds + 1):
            for d in todo:
                d.outcome.rounds = rnd
            todo = yield from self._round(todo)
            if not todo:
                return
        for d in todo:
            self._settle(
                d,
                "error",
                TransientError(
                    f"revision switch of {d.key!r}: lost to concurrent writers "
                    f"{self.max_rounds} times; retried later"
                ),
            )

    # ------------------------------------------------------------------ one round

    def _round(self, docs: list[_Doc]) -> Generator[Phase, None, list[_Doc]]:
        """One round for every document still open; returns those that lost a race."""
        try:
            heads = self.index.read_heads({d.doc_id: d.key for d in docs})
            yield Phase.READ_HEADS
            for d in docs:  # S3 is asked after the heads were read (module docstring)
                d.reset(heads[d.doc_id])
                d.current = self.current(d.key)
                d.plan = plan(d.head, d.current)
            yield Phase.PLAN
        except TransientError as exc:
            return self._give_up(docs, exc)
        yield from self._prepare([d for d in docs if d.plan is Plan.WRITE])
        try:
            moved = [d for d in docs if d.plan is Plan.WRITE and self._moved(d)]
        except TransientError as exc:
            return self._give_up(docs, exc)
        yield Phase.CONFIRM
        # S3 moved on during the round (or a writer failed): nothing is deleted. Chunk
        # ids are shared by every writer of a revision, and a twin that confirmed S3
        # before the move may still commit them; chunks no head names are invisible.
        for d in docs:
            if d.plan is Plan.COMMIT:
                d.new_head = _without_writing(d.head, d.current)
        commit = [d for d in docs if d not in moved and d.new_head is not None and d.open]
        try:
            won = self.index.commit_heads([(d.head, d.new_head) for d in commit if d.new_head])
            for d in commit:
                d.new_head = won.get(d.doc_id, d.new_head)
        except TransientError as exc:
            # Outcome unknown: the chunks stay (pending; only a head can make them
            # current), the redelivered message learns from the head what happened.
            return self._give_up(docs, exc)
        yield Phase.COMMIT
        lost = [d for d in commit if d.doc_id not in won]
        done = [d for d in commit if d.doc_id in won]
        for d in docs:
            if d.plan is Plan.REPAIR and d.open:
                d.new_head = d.head
                done.append(d)
        yield from self._finish(done)
        for d in docs:
            if d.open and d not in lost and d not in moved:
                self._settle_unchanged(d)
        return [d for d in moved + lost if d.open]

    def _moved(self, d: _Doc) -> bool:
        return d.open and self.current(d.key) != d.current

    def _prepare(self, work: list[_Doc]) -> Generator[Phase, None, None]:
        """Load and write the revisions of ``work``; every document gets its new head
        (or is settled with an error that leaves the current head alone)."""
        self._load(work)
        yield Phase.LOAD
        try:
            self._write(work)
        except ChunkwiseError as exc:
            # Transient (after the client's retries) or the deployment's fault
            # (another model): nothing of this round may become current (no commit).
            for d in work:
                if d.open:
                    self._settle(d, "error", exc)
        yield Phase.WRITE

    def _load(self, work: Sequence[_Doc]) -> None:
        if not work:
            return
        results: dict[str, Loaded | ChunkwiseError] = {}
        restamp = [d for d in work if self.restamp and metadata_only(d.head, d.current)]
        if restamp and self.restamp is not None:
            results.update(self.restamp([(d.doc_id, d.head, d.current) for d in restamp]))
        restamped = set(results)  # the rest (their chunks are gone) are loaded in full
        full = [d for d in work if d.current and d.doc_id not in results]
        if full:
            results.update(self.load([(d.doc_id, d.key, d.current) for d in full]))
        for d in work:
            got = results.get(d.doc_id)
            assert d.current is not None
            if isinstance(got, Loaded):
                d.loaded = got
                d.outcome.metadata_only = d.doc_id in restamped
                d.new_head = d.head.successor(
                    d.current.revision,
                    len(got.chunks),
                    metadata_version=d.current.metadata_version,
                )
                continue
            error = got or PermanentError(f"{d.key!r}: nothing loaded")
            if isinstance(error, PermanentError) and not _keeps_current(error):
                self._fail_revision(d, error)
            else:
                self._settle(d, "error", error)

    def _fail_revision(self, d: _Doc, error: ChunkwiseError) -> None:
        """S3's current state can never be indexed: no older one may stay visible in its
        place (for a bad sidecar too: permissions that cannot be read must not leave the
        old ones in force). Its head says so (the one place of this policy)."""
        assert d.current is not None
        d.failure = error
        d.loaded = None
        d.new_head = d.head.successor(
            d.current.revision,
            0,
            metadata_version=d.current.metadata_version,
            failed=str(error)[:1000],
        )

    def _write(self, work: Sequence[_Doc]) -> None:
        batch = [d for d in work if d.loaded is not None and d.open]
        if not batch:
            return
        for d in batch:
            d.written = True
        rejected = self.index.write_chunks([d.loaded for d in batch if d.loaded])
        for d in batch:
            reason = rejected.get(d.doc_id)
            if reason is not None and d.current is not None:
                self._roll_back([d])
                self._fail_revision(
                    d, WriteRejected(f"{d.key!r} revision {state_key(d.current)}: {reason}")
                )

    def _finish(self, done: Sequence[_Doc]) -> Generator[Phase, None, None]:
        heads = [d.new_head for d in done if d.new_head is not None]
        try:
            if heads:
                self.index.finish(heads)
            yield Phase.FINISH
            if heads:
                self.index.clear_cleanup(heads)
            yield Phase.CLEAR
        except TransientError as exc:
            # Committed: readers through heads see the new revision already; readers
            # of the live flag see the old one until the redelivered message finishes
            # (the head is not settled, so its next reader repairs it).
            for d in done:
                self._settle(d, "error", exc)
            return
        for d in done:
            self._settle_committed(d)

    def _settle_committed(self, d: _Doc) -> None:
        head = d.new_head
        assert head is not None
        d.outcome.revision = head.revision or None
        d.outcome.metadata_version = head.metadata_version
        if d.failure is not None:
            self._settle(d, "failed", d.failure)
        elif head.failed:
            self._settle(d, "failed", PermanentError(head.failed))
        elif head.tombstone:
            self._settle(d, "retired")
        else:
            d.outcome.chunks = head.chunks
            self._settle(d, "indexed" if d.plan is Plan.WRITE else "unchanged")

    def _settle_unchanged(self, d: _Doc) -> None:
        """Nothing to do: unless the head says S3's current revision can never be
        indexed; then the message fails again (no re-extraction) and reaches the DLQ."""
        current = d.current
        if d.head.failed and current is not None and d.head.revision_key == state_key(current):
            d.outcome.revision = d.head.revision
            d.outcome.metadata_version = d.head.metadata_version
            self._settle(d, "failed", PermanentError(d.head.failed))
        else:
            self._settle(d, "unchanged")

    # ------------------------------------------------------------------ helpers

    def _roll_back(self, docs: Iterable[_Doc]) -> None:
        """Delete the chunks of a revision the index rejected (a twin writer of the
        same revision is rejected alike): no head will ever name them."""
        ids: list[str] = []
        routing: dict[str, str] = {}
        for d in docs:
            if d.written and d.loaded is not None:
                for i in d.loaded.chunk_ids():
                    ids.append(i)
                    routing[i] = d.doc_id
            d.written = False
        if ids:
            try:
                self.index.delete_chunks(ids, routing)
            except ChunkwiseError as exc:
                log.warning("roll back: %d pending chunks left (%s)", len(ids), exc)

    def _give_up(self, docs: Sequence[_Doc], exc: TransientError) -> list[_Doc]:
        for d in docs:
            if d.open:
                self._settle(d, "error", exc)
        return []

    @staticmethod
    def _settle(d: _Doc, status: str, error: ChunkwiseError | None = None) -> None:
        d.outcome.status = status
        d.outcome.error = error
        if status == "unchanged":
            d.outcome.revision = d.head.revision or None
            d.outcome.metadata_version = d.head.metadata_version
            d.outcome.chunks = d.head.chunks


def _without_writing(head: Head, current: HasRevision | None) -> Head:
    """The head of a deleted key, or one adopting a revision the older protocol made
    live (its chunks are there already)."""
    if current is None:
        return head.successor("", 0)
    key = state_key(current)
    n = max(n for r, n in head.cleanup if r == key)
    return head.successor(current.revision, n, metadata_version=current.metadata_version)


def _keeps_current(exc: ChunkwiseError) -> bool:
    """Errors of the deployment, not of the document: what is current stays current."""
    from chunkwise.index.generation_model import ModelMismatchError

    return isinstance(exc, ModelMismatchError)
