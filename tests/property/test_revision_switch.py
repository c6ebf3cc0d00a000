"""Property tests of the revision switch: concurrent writers of one key and readers,
interleaved step by step, against an in-memory index with OpenSearch's visibility
rules (writes are searchable only after a refresh; realtime get of a head sees
the last write; a conditional write fails if the head moved).

The writers are the production `RevisionSwitch` (its phases are generator steps);
hypothesis draws which actor moves next, when S3 gets a new version, when the
node refreshes, and where a writer's call fails. Every completed read is
classified: ok, stale (older than the revision committed when the read began),
mixed (two revisions), partial (not every chunk of the revision) or missing
(nothing, though the document had a current revision when the read began).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkwise.errors import TransientError
from chunkwise.index.heads import CANDIDATE_STATES, Head, absent_head, chunk_ids
from chunkwise.index.reading import Candidate, judge
from chunkwise.ingest.revisions import Loaded, RevisionSwitch, Version
from chunkwise.schema import Chunk

DOC = "d0"
KEY = "docs/a.md"


@dataclass
class _Row:
    doc_id: str
    revision: str
    state: str


@dataclass
class FakeSwitchIndex:
    """One shard: a write buffer, a searchable snapshot, realtime heads."""

    rows: dict[str, _Row] = field(default_factory=dict)  # latest writes
    searchable: dict[str, _Row] = field(default_factory=dict)  # as of the last refresh
    heads: dict[str, Head] = field(default_factory=dict)  # realtime (get by id)
    searchable_heads: dict[str, Head] = field(default_factory=dict)
    seq: int = 0
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
                        legacy[r.revision] = legacy.get(r.revision, 0) + 1
                head = absent_head(doc_id, key, sorted(legacy.items()))
            out[doc_id] = head
        return out

    def write_chunks(self, loaded: Sequence[Loaded]) -> dict[str, str]:
        self._maybe_fail("write_chunks")
        for item in loaded:
            for c in item.chunks:  # op_type=create: a twin's chunk is never overwritten
                self.rows.setdefault(c.chunk_id, _Row(c.doc_id, c.revision, "pending"))
        return {}  # no refresh: searchable with the next one

    def commit_heads(self, pairs: Sequence[tuple[Head, Head]]) -> dict[str, Head]:
        self._maybe_fail("commit_heads")
        won: dict[str, Head] = {}
        for read, new in pairs:
            stored = self.heads.get(read.doc_id)
            if (stored.seq_no if stored else -1) != read.seq_no:
                continue  # 409: the head moved since it was read
            self.seq += 1
            self.heads[read.doc_id] = replace(new, seq_no=self.seq, primary_term=1)
            won[read.doc_id] = self.heads[read.doc_id]
        return won

    def finish(self, heads: Sequence[Head]) -> None:
        self._maybe_fail("finish")
        for h in heads:
            # A late finish (a twin's, of a head replaced since) must change nothing a
            # newer finish decided: only pending -> live, only pending/live -> old.
            for i in chunk_ids(h.doc_id, h.revision, h.chunks) if h.revision else []:
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
    committed_order: list[str] = field(default_factory=list)
    reads: dict[str, int] = field(default_factory=dict)

    def current(self, key: str) -> Version | None:
        return Version(self.versions[-1]) if self.versions else None

    def upload(self) -> None:
        self.versions.append(f"v{len(self.versions) + 1}")

    def load(self, items: Sequence[tuple[str, str, Version]]) -> dict[str, Loaded]:
        out: dict[str, Loaded] = {}
        for doc_id, _key, version in items:
            chunks = [
                make_chunk(doc_id, version.revision, i) for i in range(n_chunks(version.revision))
            ]
            out[doc_id] = Loaded(chunks, [[0.0] for _ in chunks])
        return out

    def writer(self) -> Generator[object, None, None]:
        switch = RevisionSwitch(self.index, self.current, self.load)
        yield from switch.steps({DOC: KEY})

    def head_revision(self) -> str | None:
        h = self.index.heads.get(DOC)
        return h.revision if h is not None and h.revision else None

    def visible_revision(self) -> str | None:
        """The revision a reader must see at least: the searchable head's."""
        h = self.index.searchable_heads.get(DOC)
        return h.revision if h is not None and h.revision else None

    def reader(self) -> Generator[object, None, None]:
        """search -> heads -> judge, again (at most 3 times) when a head moved."""
        floor = self.visible_revision()
        kept: list[_Row] = []
        for _attempt in range(3):
            rows = self.index.candidates(DOC)
            yield "search"
            stored = {DOC: self.index.searchable_heads.get(DOC)}  # a search, not a get
            keep, again = judge([Candidate(r.doc_id, r.revision, r.state) for r in rows], stored)
            kept = [r for r, k in zip(rows, keep, strict=True) if k]
            yield "heads"
            if not again:
                break
        self.classify(floor, kept)

    def classify(self, floor: str | None, kept: Sequence[_Row]) -> None:
        revisions = {r.revision for r in kept}
        if len(revisions) > 1:
            verdict = "mixed"
        elif not revisions:
            verdict = "missing" if floor is not None else "ok"
        else:
            (rev,) = revisions
            if floor is not None and self.versions.index(rev) < self.versions.index(floor):
                verdict = "stale"
            elif len(kept) != n_chunks(rev):
                verdict = "partial"
            else:
                verdict = "ok"
        self.reads[verdict] = self.reads.get(verdict, 0) + 1


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["step", "step", "step", "upload", "refresh", "fail"]),
        st.integers(0, 5),
    ),
    min_size=5,
    max_size=120,
)
FAILABLE = ["read_heads", "write_chunks", "commit_heads", "finish", "clear_cleanup"]


def run_world(actions: list[tuple[str, int]], writers: int, readers: int) -> World:
    w = World()
    w.upload()
    actors: list[Generator[object, None, None]] = [w.writer() for _ in range(writers)]
    actors += [w.reader() for _ in range(readers)]
    for what, n in actions:
        if what == "upload" and len(w.versions) < 6:
            w.upload()
            actors.append(w.writer())  # every upload is an event: a writer of its own
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
        outcome = RevisionSwitch(w.index, w.current, w.load).run({DOC: KEY})[DOC]
        if outcome.status != "error":
            return
    raise AssertionError("the switch did not settle without faults")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ACTIONS, st.integers(1, 4), st.integers(1, 3))
def test_readers_never_see_stale_mixed_partial_or_missing(
    actions: list[tuple[str, int]], writers: int, readers: int
) -> None:
    w = run_world(actions, writers, readers)
    bad = {k: v for k, v in w.reads.items() if k != "ok"}
    assert not bad, (bad, w.versions, w.index.heads)


@settings(max_examples=300, deadline=None)
@given(ACTIONS, st.integers(1, 4))
def test_converges_on_s3_current_and_raw_readers_see_only_it(
    actions: list[tuple[str, int]], writers: int
) -> None:
    w = run_world(actions, writers, 0)
    settle(w)
    w.index.refresh()
    head = w.index.heads[DOC]
    assert head.revision == w.versions[-1] and head.settled and not head.cleanup
    live = {r.revision for r in w.index.rows.values() if r.state == "live"}
    assert live == {w.versions[-1]}
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
