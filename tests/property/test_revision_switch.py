"""Property tests of the revision switch: concurrent writers of one key and readers,
interleaved step by step, against an in-memory index with OpenSearch's visibility
rules (writes are searchable only after a refresh; realtime get of a head sees
the last write; a conditional write fails if the head moved).

The writers are the production `RevisionSwitch` (its phases are generator steps);
hypothesis draws which actor moves next, when S3 gets a new object version, a new
sidecar version or loses the sidecar (a metadata-only change, which the switch
restamps: the head's chunks copied with the new metadata), when the node refreshes,
and where a writer's call fails. A state is the pair (object revision, metadata
version), named by its revision key. Every completed read is classified: ok, stale
(older, in either half, than the state committed when the read began), mixed (two
states: two revisions, or one revision with two metadata versions), partial (not
every chunk of the state) or missing (nothing, though the document had a current
state when the read began).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkwise.errors import ChunkwiseError, TransientError
from chunkwise.index.heads import CANDIDATE_STATES, Head, absent_head, chunk_ids
from chunkwise.index.reading import Candidate, judge
from chunkwise.index.versions import REVISION_KEY_SEPARATOR, revision_key
from chunkwise.ingest.revisions import Loaded, RevisionSwitch, Version
from chunkwise.schema import Chunk

DOC = "d0"
KEY = "docs/a.md"


@dataclass
class _Row:
    doc_id: str
    key: str  # the revision key of the state it was written for
    state: str

    @property
    def revision(self) -> str:
        return self.key.split(REVISION_KEY_SEPARATOR)[0]

    @property
    def metadata(self) -> str:
        return self.key.partition(REVISION_KEY_SEPARATOR)[2]


@dataclass
class FakeSwitchIndex:
    """One shard: a write buffer, a searchable snapshot, realtime heads."""

    rows: dict[str, _Row] = field(default_factory=dict)  # latest writes
    searchable: dict[str, _Row] = field(default_factory=dict)  # as of the last refresh
    heads: dict[str, Head] = field(default_factory=dict)  # realtime (get by id)
    searchable_heads: dict[str, Head] = field(default_factory=dict)
    seq: int = 0
    history: list[tuple[int, str]] = field(default_factory=list)  # (seq_no, state) stored
    fail_next: set[str] = field(default_factory=set)  # method names that fail once
    failures: dict[tuple[str, str], str] = field(default_factory=dict)

    def refresh(self) -> None:
        self.searchable = {i: replace(r) for i, r in self.rows.items()}
        self.searchable_heads = dict(self.heads)

    def _maybe_fail(self, what: str) -> None:
        if what in self.fail_next:
            self.fail_next.discard(what)
            raise TransientError(f"injected: {what}")

    # -- SwitchIndexPort
    def read_heads(self, docs: Mapping[str, str]) -> dict[str, Head]:
        self._maybe_fail("read_heads")
        out: dict[str, Head] = {}
        for doc_id, key in docs.items():
            head = self.heads.get(doc_id)
            if head is None:
                legacy: dict[str, int] = {}
                for r in self.searchable.values():
                    if r.doc_id == doc_id and r.state == "live":
                        legacy[r.key] = legacy.get(r.key, 0) + 1
                head = absent_head(doc_id, key, sorted(legacy.items()))
            out[doc_id] = head
        return out

    def write_chunks(self, loaded: Sequence[Loaded]) -> dict[str, str]:
        self._maybe_fail("write_chunks")
        for item in loaded:
            key = revision_key(item.chunks[0].revision, item.metadata_version)
            for i, c in zip(item.chunk_ids(), item.chunks, strict=True):
                # created, or written over a superseded/deleted chunk of a repeated state
                # (a sidecar deleted again); a twin's pending or live chunk is never touched
                row = self.rows.get(i)
                if row is None or row.state in ("superseded", "deleted"):
                    self.rows[i] = _Row(c.doc_id, key, "pending")
        return {}  # no refresh: searchable with the next one

    def read_revision(self, doc_id: str, key: str, n: int) -> list[_Row] | None:
        """The stored rows of a state, realtime (what a restamp copies)."""
        self._maybe_fail("read_revision")
        rows = [self.rows.get(i) for i in chunk_ids(doc_id, key, n)]
        return None if any(r is None for r in rows) else [r for r in rows if r]

    def commit_heads(self, pairs: Sequence[tuple[Head, Head]]) -> dict[str, Head]:
        self._maybe_fail("commit_heads")
        won: dict[str, Head] = {}
        for read, new in pairs:
            stored = self.heads.get(read.doc_id)
            if (stored.seq_no if stored else -1) != read.seq_no:
                continue  # 409: the head moved since it was read
            self.seq += 1
            self.heads[read.doc_id] = replace(new, seq_no=self.seq, primary_term=1)
            self.history.append((self.seq, new.revision_key))
            won[read.doc_id] = self.heads[read.doc_id]
        return won

    def finish(self, heads: Sequence[Head]) -> None:
        self._maybe_fail("finish")
        for h in heads:
            # A late finish (a twin's, of a head replaced since) must change nothing a
            # newer finish decided: only pending -> live, only pending/live -> old.
            for i in chunk_ids(h.doc_id, h.revision_key, h.chunks) if h.revision else []:
                if i in self.rows and self.rows[i].state == "pending":
                    self.rows[i].state = "live"
            for revision, n in h.cleanup:
                for i in chunk_ids(h.doc_id, revision, n):
                    if i in self.rows and self.rows[i].state in ("pending", "live"):
                        self.rows[i].state = "deleted" if h.tombstone else "superseded"

    def clear_cleanup(self, heads: Sequence[Head]) -> None:
        self._maybe_fail("clear_cleanup")
        for h in heads:
            stored = self.heads.get(h.doc_id)
            if stored is not None and stored.seq_no == h.seq_no:
                self.seq += 1
                self.heads[h.doc_id] = replace(
                    h, cleanup=(), settled=True, seq_no=self.seq, primary_term=1
                )
                self.history.append((self.seq, h.revision_key))

    def delete_chunks(self, ids: Sequence[str], routing: Mapping[str, str]) -> None:
        for i in ids:
            self.rows.pop(i, None)

    def record_failure(self, doc_id: str, key: str, revision: str, reason: str) -> None:
        self.failures[(doc_id, revision)] = reason

    # -- reader side
    def candidates(self, doc_id: str) -> list[_Row]:
        return [
            r
            for r in self.searchable.values()
            if r.doc_id == doc_id and r.state in CANDIDATE_STATES
        ]


def n_chunks(revision: str) -> int:
    return 1 + int(revision[1:]) % 4  # revisions differ in size: partial reads show


def make_chunk(doc_id: str, revision: str, i: int) -> Chunk:
    body = f"chunk {i} of {revision}"
    return Chunk(
        doc_id=doc_id,
        revision=revision,
        chunk_index=i,
        start=0,
        end=len(body),
        byte_start=0,
        byte_end=len(body),
        body=body,
        text=body,
        token_count=3,
    )


@dataclass
class World:
    index: FakeSwitchIndex = field(default_factory=FakeSwitchIndex)
    versions: list[str] = field(default_factory=list)  # S3 upload order; last is current
    metas: list[str] = field(default_factory=lambda: [""])  # sidecar versions; "" = none
    committed_order: list[str] = field(default_factory=list)
    reads: dict[str, int] = field(default_factory=dict)
    loads: int = 0  # full loads (extract + embed)
    restamps: int = 0  # metadata-only changes copied from the head's chunks

    def current(self, key: str) -> Version | None:
        if not self.versions:
            return None
        return Version(self.versions[-1], metadata_version=self.metas[-1])

    def upload(self) -> None:
        self.versions.append(f"v{len(self.versions) + 1}")

    def sidecar(self, present: bool = True) -> None:
        """A new sidecar version, or the sidecar deleted ("" again)."""
        n = sum(1 for m in self.metas if m)
        self.metas.append(f"m{n + 1}" if present else "")

    def load(self, items: Sequence[tuple[str, str, Version]]) -> dict[str, Loaded]:
        out: dict[str, Loaded] = {}
        for doc_id, _key, version in items:
            self.loads += 1
            chunks = [
                make_chunk(doc_id, version.revision, i) for i in range(n_chunks(version.revision))
            ]
            out[doc_id] = Loaded(chunks, [[0.0] for _ in chunks], version.metadata_version)
        return out

    def restamp(
        self, items: Sequence[tuple[str, Head, Version]]
    ) -> dict[str, Loaded | ChunkwiseError]:
        """The head's stored chunks with the new metadata; none stored: left to `load`."""
        out: dict[str, Loaded | ChunkwiseError] = {}
        for doc_id, head, version in items:
            try:
                rows = self.index.read_revision(doc_id, head.revision_key, head.chunks)
            except ChunkwiseError as exc:
                out[doc_id] = exc
                continue
            if rows is None:
                continue
            self.restamps += 1
            chunks = [make_chunk(doc_id, rows[i].revision, i) for i in range(len(rows))]
            out[doc_id] = Loaded(chunks, [[0.0] for _ in chunks], version.metadata_version)
        return out

    def switch(self) -> RevisionSwitch[Version]:
        return RevisionSwitch(self.index, self.current, self.load, restamp=self.restamp)

    def writer(self) -> Generator[object, None, None]:
        yield from self.switch().steps({DOC: KEY})

    def head_revision(self) -> str | None:
        h = self.index.heads.get(DOC)
        return h.revision if h is not None and h.revision else None

    def visible_head(self) -> int | None:
        """The head a reader must see at least (the searchable one when the read
        begins): its seq_no, None if there is none or it is a tombstone."""
        h = self.index.searchable_heads.get(DOC)
        return h.seq_no if h is not None and h.revision else None

    def older(self, kept: _Row, floor: int) -> bool:
        """Is the kept state older than the head stored at seq_no ``floor``: named by no
        head stored since? (Heads move forward in S3's order, in both halves; a state
        may recur, e.g. a sidecar deleted again, so states are told apart by when a head
        named them, not by their name.)"""
        return kept.key not in {key for seq, key in self.index.history if seq >= floor}

    def reader(self) -> Generator[object, None, None]:
        """search -> heads -> judge, again (at most 3 times) when a head moved."""
        floor = self.visible_head()
        kept: list[_Row] = []
        for _attempt in range(3):
            rows = self.index.candidates(DOC)
            yield "search"
            stored = {DOC: self.index.searchable_heads.get(DOC)}  # a search, not a get
            keep, again = judge([Candidate(r.doc_id, r.key, r.state) for r in rows], stored)
            kept = [r for r, k in zip(rows, keep, strict=True) if k]
            yield "heads"
            if not again:
                break
        self.classify(floor, kept)

    def classify(self, floor: int | None, kept: Sequence[_Row]) -> None:
        states = {r.key for r in kept}  # a state is one object revision + one metadata
        if len(states) > 1:
            verdict = "mixed"
        elif not states:
            verdict = "missing" if floor is not None else "ok"
        elif floor is not None and self.older(kept[0], floor):
            verdict = "stale"
        elif len(kept) != n_chunks(kept[0].revision):
            verdict = "partial"
        else:
            verdict = "ok"
        self.reads[verdict] = self.reads.get(verdict, 0) + 1


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(
            ["step", "step", "step", "upload", "sidecar", "unsidecar", "refresh", "fail"]
        ),
        st.integers(0, 5),
    ),
    min_size=5,
    max_size=120,
)
FAILABLE = [
    "read_heads",
    "write_chunks",
    "commit_heads",
    "finish",
    "clear_cleanup",
    "read_revision",
]


def run_world(
    actions: list[tuple[str, int]], writers: int, readers: int, indexed: bool = False
) -> World:
    """``indexed``: v1 is committed and searchable before the actors start (so that a
    sidecar's change meets a head with chunks: a metadata-only change, restamped)."""
    w = World()
    w.upload()
    if indexed:
        settle(w)
        w.index.refresh()
    actors: list[Generator[object, None, None]] = [w.writer() for _ in range(writers)]
    actors += [w.reader() for _ in range(readers)]
    for what, n in actions:
        if what == "upload" and len(w.versions) < 6:
            w.upload()
            actors.append(w.writer())  # every upload is an event: a writer of its own
        elif what in ("sidecar", "unsidecar") and len(w.metas) < 8:
            w.sidecar(present=what == "sidecar")
            actors.append(w.writer())  # a sidecar's event is its document's change
        elif what == "refresh":
            w.index.refresh()
        elif what == "fail":
            w.index.fail_next.add(FAILABLE[n % len(FAILABLE)])
        elif actors:
            actor = actors[n % len(actors)]
            if next(actor, None) is None:
                actors.remove(actor)
                if len(actors) < writers + readers:
                    actors.append(w.reader())
    w.index.fail_next.clear()
    for actor in actors:
        for _ in actor:
            pass
    return w


def settle(w: World) -> None:
    """What redelivery does: run the switch until it reports no error."""
    for _ in range(5):
        outcome = w.switch().run({DOC: KEY})[DOC]
        if outcome.status != "error":
            return
    raise AssertionError("the switch did not settle without faults")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ACTIONS, st.integers(1, 4), st.integers(1, 3), st.booleans())
def test_readers_never_see_stale_mixed_partial_or_missing(
    actions: list[tuple[str, int]], writers: int, readers: int, indexed: bool
) -> None:
    w = run_world(actions, writers, readers, indexed)
    bad = {k: v for k, v in w.reads.items() if k != "ok"}
    assert not bad, (bad, w.versions, w.index.heads)


# Metadata racing object changes: the document is indexed first, so a sidecar's change
# meets a head with chunks (a restamp) while new object versions arrive.
METADATA_ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["step", "step", "step", "upload", "sidecar", "sidecar", "unsidecar",
                         "refresh"]),
        st.integers(0, 5),
    ),
    min_size=10,
    max_size=120,
)  # fmt: skip


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(METADATA_ACTIONS, st.integers(1, 4), st.integers(1, 3))
def test_metadata_changes_racing_object_changes_never_show_a_mixed_or_older_state(
    actions: list[tuple[str, int]], writers: int, readers: int
) -> None:
    w = run_world(actions, writers, readers, indexed=True)
    bad = {k: v for k, v in w.reads.items() if k != "ok"}
    assert not bad, (bad, w.versions, w.metas, w.index.heads)
    settle(w)
    head = w.index.heads[DOC]
    assert head.revision_key == revision_key(w.versions[-1], w.metas[-1])


@settings(max_examples=300, deadline=None)
@given(ACTIONS, st.integers(1, 4), st.booleans())
def test_converges_on_s3_current_and_raw_readers_see_only_it(
    actions: list[tuple[str, int]], writers: int, indexed: bool
) -> None:
    w = run_world(actions, writers, 0, indexed)
    settle(w)
    w.index.refresh()
    head = w.index.heads[DOC]
    newest = revision_key(w.versions[-1], w.metas[-1])  # newest object AND newest metadata
    assert head.revision_key == newest and head.settled and not head.cleanup
    live = {r.key for r in w.index.rows.values() if r.state == "live"}
    assert live == {newest}
    live_n = sum(1 for r in w.index.rows.values() if r.state == "live")
    assert live_n == n_chunks(w.versions[-1])


def test_an_older_writer_loses_the_compare_and_set() -> None:
    """Writer A holds v1 from S3; v2 arrives and B commits it; A must not win."""
    w = World()
    w.upload()
    a = w.writer()
    next(a)  # A read the head (none yet)
    next(a)  # A asked S3: v1
    w.upload()
    settle(w)  # B: v2 committed
    for _ in a:
        pass
    assert w.head_revision() == "v2"


def test_a_document_of_the_older_protocol_is_adopted_without_rewriting() -> None:
    w = World()
    w.upload()
    for i in range(n_chunks("v1")):
        w.index.rows[f"{DOC}:v1:{i}"] = _Row(DOC, "v1", "live")
    w.index.refresh()
    outcome = RevisionSwitch(w.index, w.current, w.load).run({DOC: KEY})[DOC]
    assert outcome.status == "unchanged" and w.head_revision() == "v1"
    w.index.refresh()
    assert sum(r.state == "live" for r in w.index.rows.values()) == n_chunks("v1")


def test_a_read_sees_a_legacy_document_by_its_live_chunks() -> None:
    head = None
    keep, again = judge(
        [Candidate(DOC, "v1", "live"), Candidate(DOC, "v2", "pending")], {DOC: head}
    )
    assert keep == [True, False] and not again


def test_a_failed_commit_is_repaired_by_the_next_delivery() -> None:
    w = World()
    w.upload()
    settle(w)
    w.upload()
    w.index.fail_next.add("finish")
    outcome = RevisionSwitch(w.index, w.current, w.load).run({DOC: KEY})[DOC]
    assert outcome.status == "error" and w.head_revision() == "v2"
    assert not w.index.heads[DOC].settled
    settle(w)
    w.index.refresh()
    assert {r.revision for r in w.index.rows.values() if r.state == "live"} == {"v2"}
    assert w.index.heads[DOC].settled


def test_a_committed_head_is_not_seen_before_its_chunks() -> None:
    """v2 committed but not refreshed: the reader still gets all of v1 (the heads it
    compares with come from the same refresh as the chunks), then all of v2."""
    w = World()
    w.upload()
    settle(w)
    w.index.refresh()
    w.upload()
    settle(w)  # committed and finished, nothing refreshed since
    for _ in w.reader():
        pass
    w.index.refresh()
    for _ in w.reader():
        pass
    assert w.reads == {"ok": 2}


def test_a_metadata_only_change_is_restamped_not_loaded() -> None:
    w = World()
    w.upload()
    settle(w)
    w.sidecar()
    settle(w)
    assert (w.loads, w.restamps) == (1, 1)
    assert w.index.heads[DOC].revision_key == revision_key("v1", "m1")
    w.index.refresh()
    for _ in w.reader():
        pass
    assert w.reads == {"ok": 1}
    live = {r.key for r in w.index.rows.values() if r.state == "live"}
    assert live == {revision_key("v1", "m1")}


def test_a_sidecar_deleted_again_revives_the_bare_state() -> None:
    """v1 -> v1|m1 -> v1 again: the bare state's chunk ids repeat; its superseded chunks
    are written over, not skipped, or the document would vanish from every reader."""
    w = World()
    w.upload()
    settle(w)
    w.sidecar()
    settle(w)
    w.sidecar(present=False)
    settle(w)
    assert w.index.heads[DOC].revision_key == "v1" and w.restamps == 2 and w.loads == 1
    w.index.refresh()
    live = [r for r in w.index.rows.values() if r.state == "live"]
    assert {r.key for r in live} == {"v1"} and len(live) == n_chunks("v1")
    for _ in w.reader():
        pass
    assert w.reads == {"ok": 1}


def test_a_restamp_that_races_a_new_object_version_ends_on_both_newest_halves() -> None:
    """A writer plans a restamp of v1 with m1; meanwhile v2 is uploaded and committed
    (with m1 too). The restamp's confirm sees S3 moved; nothing older is committed."""
    w = World()
    w.upload()
    settle(w)
    w.sidecar()
    a = w.writer()
    next(a)  # read heads
    next(a)  # plan: v1|m1, metadata only
    w.upload()
    settle(w)  # v2|m1 committed, in full
    for _ in a:
        pass
    settle(w)
    assert w.index.heads[DOC].revision_key == revision_key("v2", "m1")
    w.index.refresh()
    assert {r.key for r in w.index.rows.values() if r.state == "live"} == {"v2|m1"}
