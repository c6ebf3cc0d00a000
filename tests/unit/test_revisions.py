"""The revision switch (chunkwise.ingest.revisions) against the in-memory index port:
what the older reconcile tests asked of the protocol, asked of the switch."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkwise.errors import ChunkwiseError, PermanentError
from chunkwise.index.generation_model import ModelMismatchError
from chunkwise.index.heads import Head
from chunkwise.index.names import make_doc_id
from chunkwise.index.states import State
from chunkwise.index.versions import ObjectVersion
from chunkwise.ingest.revisions import Loaded, Outcome, Plan, RevisionSwitch, plan
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import FakeIndex, make_chunks

KEY = "docs/a.md"


def _embed(n: int) -> list[list[float]]:
    return [[0.1, 0.2, 0.3] for _ in range(n)]


def _setup() -> tuple[FakeBucket, FakeIndex, str]:
    return FakeBucket(), FakeIndex(), make_doc_id("bucket", KEY)


def _loader(n: int = 3) -> object:
    def load(items: Sequence[tuple[str, str, ObjectVersion]]) -> dict[str, Loaded | ChunkwiseError]:
        out: dict[str, Loaded | ChunkwiseError] = {}
        for doc_id, _key, v in items:
            chunks = make_chunks(doc_id, v, n) if v.version_id != "empty" else []
            out[doc_id] = Loaded(chunks, _embed(len(chunks)))
        return out

    return load


def _run(s3: FakeBucket, idx: FakeIndex, doc: str, load: object = None) -> Outcome:
    switch = RevisionSwitch(idx, s3.head_current, load or _loader())  # type: ignore[arg-type]
    return switch.run({doc: KEY})[doc]


def test_new_revision_supersedes_old_and_delete_retires() -> None:
    s3, idx, doc = _setup()
    s3.put_version(KEY, "r1", "2025-01-01T00:00:00Z")
    assert _run(s3, idx, doc).status == "indexed"
    assert idx.live(doc) == {"r1"}
    s3.put_version(KEY, "r2", "2025-01-02T00:00:00Z")
    _run(s3, idx, doc)
    assert idx.live(doc) == {"r2"}
    assert idx.revision_states(doc)["r1"].n(State.SUPERSEDED) == 3
    # replay of the old event changes nothing: S3 says r2
    res = _run(s3, idx, doc)
    assert idx.live(doc) == {"r2"} and res.status == "unchanged" and res.rounds == 1
    s3.delete(KEY)
    assert _run(s3, idx, doc).status == "retired"
    assert idx.live(doc) == set()
    assert idx.revision_states(doc)["r2"].n(State.DELETED) == 3
    assert idx.heads[doc].tombstone and idx.heads[doc].settled


def test_rejected_revision_never_goes_live_and_hides_the_older_one() -> None:
    s3, idx, doc = _setup()
    s3.put_version(KEY, "r1", "2025-01-01T00:00:00Z")
    _run(s3, idx, doc)
    s3.put_version(KEY, "bad", "2025-01-02T00:00:00Z")
    idx.fail_revisions.add("bad")
    out = _run(s3, idx, doc)
    assert out.status == "failed" and isinstance(out.error, PermanentError)
    # nothing half-live, and the old revision is no longer served: it is not S3's
    assert idx.live(doc) == set()
    assert idx.heads[doc].revision == "bad" and idx.heads[doc].failed
    # redelivered: fails again from the head alone (the message must reach the DLQ)
    idx.fail_revisions.clear()
    again = _run(s3, idx, doc)
    assert again.status == "failed" and isinstance(again.error, PermanentError)
    assert idx.live(doc) == set()


def test_a_generation_of_another_model_leaves_what_is_live_alone() -> None:
    s3, idx, doc = _setup()
    s3.put_version(KEY, "r1", "2025-01-01T00:00:00Z")
    _run(s3, idx, doc)

    def refuse(loaded: object) -> dict[str, str]:
        raise ModelMismatchError("generation g1 was built with the model m1")

    idx.write_chunks = refuse  # type: ignore[method-assign,assignment]
    s3.put_version(KEY, "r2", "2025-01-02T00:00:00Z")
    out = _run(s3, idx, doc)
    assert out.status == "error" and isinstance(out.error, ModelMismatchError)
    # Not the document's fault: r1 stays searchable until the deployment moves over.
    assert idx.live(doc) == {"r1"} and idx.heads[doc].revision == "r1"


def test_a_document_error_of_the_deployment_keeps_the_current_head() -> None:
    s3, idx, doc = _setup()
    s3.put_version(KEY, "r1", "2025-01-01T00:00:00Z")
    _run(s3, idx, doc)
    s3.put_version(KEY, "r2", "2025-01-02T00:00:00Z")

    def load(items: Sequence[tuple[str, str, ObjectVersion]]) -> dict[str, ChunkwiseError]:
        return {d: ModelMismatchError("another model") for d, _k, _v in items}

    assert _run(s3, idx, doc, load).status == "error"
    assert idx.live(doc) == {"r1"}


@settings(max_examples=60, deadline=None)
@given(
    ops=st.lists(st.sampled_from(["put", "delete"]), min_size=1, max_size=5),
    events=st.data(),
)
def test_any_event_order_converges_on_s3_current(ops: list[str], events: st.DataObject) -> None:
    s3, idx, doc = _setup()
    for i, op in enumerate(ops):
        if op == "put":
            s3.put_version(KEY, f"v{i}", f"2025-01-01T00:00:{i:02d}Z")
        else:
            s3.delete(KEY)
    # events: each change produces an event; they may be duplicated, dropped, reordered
    n = events.draw(st.integers(min_value=1, max_value=2 * len(ops)))
    for _ in range(n):
        _run(s3, idx, doc)
    cur = s3.head_current(KEY)
    assert idx.live(doc) == ({cur.revision} if cur else set())


def test_concurrent_writers_converge_with_fakes() -> None:
    s3, idx, doc = _setup()
    s3.put_version(KEY, "r1", "2025-01-01T00:00:00Z")
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            if i == 3:
                s3.put_version(KEY, "r2", "2025-01-02T00:00:00Z")
            _run(s3, idx, doc)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _run(s3, idx, doc)
    assert not errors
    assert idx.live(doc) == {"r2"}


def test_revision_without_chunks_retires_older_ones_and_converges() -> None:
    s3, idx, doc = _setup()
    s3.put_version(KEY, "r1", "2025-01-01T00:00:00Z")
    _run(s3, idx, doc)
    s3.put_version(KEY, "empty", "2025-01-02T00:00:00Z")
    res = _run(s3, idx, doc)
    assert res.rounds == 1 and res.chunks == 0
    assert idx.live(doc) == set()


def test_a_batch_writes_every_document_in_one_call() -> None:
    s3, idx = FakeBucket(), FakeIndex()
    docs = {make_doc_id("bucket", f"k{i}"): f"k{i}" for i in range(5)}
    for key in docs.values():
        s3.put_version(key, "r1", "2025-01-01T00:00:00Z")
    calls: list[int] = []
    orig = idx.write_chunks

    def spy(loaded: Sequence[Loaded]) -> dict[str, str]:
        calls.append(len(loaded))
        return orig(loaded)

    idx.write_chunks = spy  # type: ignore[method-assign]
    outs = RevisionSwitch(idx, s3.head_current, _loader()).run(docs)  # type: ignore[arg-type]
    assert {o.status for o in outs.values()} == {"indexed"} and calls == [5]


def test_plan_decisions() -> None:
    cur = ObjectVersion("2025-01-02T00:00:00Z", "r2", key="k")
    absent = Head("d", "k", "", 0)
    assert plan(absent, cur) is Plan.WRITE
    assert plan(absent, None) is Plan.NONE  # never indexed, gone: nothing to do
    stored = Head("d", "k", "r2", 3, settled=True, seq_no=4)
    assert plan(stored, cur) is Plan.NONE
    assert plan(Head("d", "k", "r2", 3, seq_no=4), cur) is Plan.REPAIR  # finish interrupted
    assert plan(Head("d", "k", "r1", 3, settled=True, seq_no=4), cur) is Plan.WRITE
    assert plan(stored, None) is Plan.COMMIT  # tombstone
    legacy = Head("d", "k", "", 0, cleanup=(("r2", 3),))
    assert plan(legacy, cur) is Plan.COMMIT  # adopt what the older protocol made live
