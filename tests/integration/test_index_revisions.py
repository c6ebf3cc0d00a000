"""Revision protocol against a real OpenSearch node (samdocs/architecture.md).

S3 is a fake port here (the S3 emulator comes later); the index, the aliases,
the mapping and the searches are real.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opensearchpy import OpenSearch
from opensearchpy.exceptions import TransportError

from chunkwise.adapters.opensearch.client import connect
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.retries import RetryPolicy, TransientOpenSearchError
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.embedding.embed import Embedder
from chunkwise.errors import PermanentError, TransientError
from chunkwise.index.names import IndexNames, make_doc_id
from chunkwise.index.states import State
from chunkwise.index.versions import ObjectVersion
from chunkwise.search.hybrid import SearchFilters
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.live_index import (
    live_test_index,
    switch_to_current,
    write_live_without_head,
    write_pending,
)

pytestmark = pytest.mark.integration

BUCKET = "bucket"


@pytest.fixture(scope="module")
def live_index(client: OpenSearch, embedder: Embedder) -> Iterator[OpenSearchIndex]:
    with live_test_index(client, embedder, "it-rev") as ix:
        yield ix


def _paragraphs(v: ObjectVersion) -> list[str]:
    return [
        f"Revision {v.version_id}: the orchard grows apples and pears near the river.",
        f"Revision {v.version_id}: harvest starts in September; pickers earn a daily wage.",
        f"Revision {v.version_id}: storage rooms are kept cool and dark for the fruit.",
    ]


def _reconcile(
    key: str, s3: FakeBucket, ix: OpenSearchIndex, embedder: Embedder, **kw: Any
) -> Any:
    doc = make_doc_id(BUCKET, key)
    return switch_to_current(
        key,
        doc,
        s3=s3,
        index=ix,
        load_chunks=kw.pop("load_chunks", lambda v: chunks_from_paragraphs(doc, v, _paragraphs(v))),
        embed=kw.pop("embed", embedder.embed),
        **kw,
    )


def _bucket_with_document(name: str, version: str = "r1") -> tuple[FakeBucket, str, str]:
    """A fresh bucket holding a first version of a document under a unique key:
    (bucket, key, document id)."""
    s3, key = FakeBucket(BUCKET), f"docs/{uuid.uuid4().hex}/{name}"
    s3.put_version(key, version, "2025-01-01T00:00:00Z")
    return s3, key, make_doc_id(BUCKET, key)


def _all_queries_revisions(
    ix: OpenSearchIndex, embedder: Embedder, doc: str
) -> list[set[str]]:
    """Revisions of `doc` in each result list, over queries and both fusion paths."""
    out = []
    for fusion in ("client", "server"):
        s = Searcher(ix.client, embedder, ix.names, fusion=fusion)  # type: ignore[arg-type]
        for q in ("apples and pears", "harvest wage", "cool dark storage", "Revision"):
            hits = s.search(q, k=10, filters=SearchFilters(doc_ids=(doc,)))
            out.append({h.revision for h in hits})
    return out


def test_after_r2_no_query_returns_r1(
    live_index: OpenSearchIndex, embedder: Embedder
) -> None:
    s3, key, doc = _bucket_with_document("orchard.md")
    _reconcile(key, s3, live_index, embedder)
    assert all(revs == {"r1"} for revs in _all_queries_revisions(live_index, embedder, doc))
    s3.put_version(key, "r2", "2025-01-02T00:00:00Z")
    res = _reconcile(key, s3, live_index, embedder)
    assert res.revision == "r2"
    for revs in _all_queries_revisions(live_index, embedder, doc):
        assert revs == {"r2"}
    # r1 stays in the physical index for audit, superseded and invisible
    states = live_index.revision_states(doc)
    assert states["r1"].n(State.SUPERSEDED) == 3 and states["r1"].n(State.LIVE) == 0
    assert states["r2"].complete_live


def test_result_list_never_mixes_revisions_even_when_both_live(
    live_index: OpenSearchIndex, embedder: Embedder
) -> None:
    """Both revisions live and no head (as the older protocol could leave a document
    for a moment): the query still returns one revision, the newest."""
    key = f"docs/{uuid.uuid4().hex}/window.md"
    doc = make_doc_id(BUCKET, key)
    for rev, day in (("r1", 1), ("r2", 2)):
        v = ObjectVersion(f"2025-01-0{day}T00:00:00Z", rev, key=key, bucket=BUCKET)
        chunks = chunks_from_paragraphs(doc, v, _paragraphs(v))
        write_live_without_head(live_index, chunks, embedder.embed([c.text for c in chunks]))
    assert live_index.live_revisions(doc) == {"r1", "r2"}
    for revs in _all_queries_revisions(live_index, embedder, doc):
        assert revs == {"r2"}


def test_delete_removes_document_from_results(
    live_index: OpenSearchIndex, embedder: Embedder
) -> None:
    s3, key, doc = _bucket_with_document("gone.md")
    _reconcile(key, s3, live_index, embedder)
    s3.delete(key)
    res = _reconcile(key, s3, live_index, embedder)
    assert res.revision is None
    for revs in _all_queries_revisions(live_index, embedder, doc):
        assert revs == set()
    assert live_index.revision_states(doc)["r1"].n(State.DELETED) == 3


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_replayed_duplicated_reordered_events_converge(
    live_index: OpenSearchIndex, embedder: Embedder, data: st.DataObject
) -> None:
    """S3 changes and event deliveries interleave randomly; events are duplicated,
    reordered and (in some examples) dropped. Once every delivered event was handled
    (plus a reconcile sweep when events were dropped), the live set is exactly S3's
    current set."""
    s3 = FakeBucket(BUCKET)
    run = uuid.uuid4().hex[:8]
    prefix = f"prop/{run}/"
    keys = [f"{prefix}a.md", f"{prefix}b ä.md"]
    ops = data.draw(
        st.lists(
            st.tuples(st.sampled_from(keys), st.sampled_from(["put", "delete"])),
            min_size=1,
            max_size=6,
        )
    )
    drop = data.draw(st.booleans())
    rng = random.Random(data.draw(st.integers(0, 10**6)))
    queue: list[str] = []
    for t, (key, op) in enumerate(ops, start=1):
        if op == "put":
            s3.put_version(key, f"v{t}", f"2025-02-01T00:00:{t:02d}Z")
        else:
            s3.delete(key)
        for _ in range(data.draw(st.integers(1, 2))):  # at-least-once: duplicates
            if not (drop and rng.random() < 0.4):
                queue.append(key)
        # deliver a random subset of queued events now, in random order
        rng.shuffle(queue)
        for _ in range(data.draw(st.integers(0, len(queue)))):
            _reconcile(queue.pop(), s3, live_index, embedder)
    rng.shuffle(queue)
    for key in queue:
        _reconcile(key, s3, live_index, embedder)
    if drop:
        # what the reconcile sweep enqueues for lost events: every key of bucket or index
        for key in keys:
            _reconcile(key, s3, live_index, embedder)
    for key in keys:
        doc = make_doc_id(BUCKET, key)
        cur = s3.head_current(key)
        expected = {cur.revision} if cur else set()
        assert live_index.live_revisions(doc) == expected
        if cur is not None:
            assert live_index.revision_states(doc)[cur.revision].complete_live


def test_concurrent_writers_converge_on_current_revision(
    live_index: OpenSearchIndex, embedder: Embedder
) -> None:
    s3, key, doc = _bucket_with_document("race.md")
    errors: list[BaseException] = []
    barrier = threading.Barrier(6)

    def writer(i: int) -> None:
        try:
            barrier.wait()
            if i == 2:
                s3.put_version(key, "r2", "2025-01-02T00:00:00Z")
            if i == 4:
                time.sleep(0.05)
                s3.put_version(key, "r3", "2025-01-03T00:00:00Z")
            _reconcile(key, s3, live_index, embedder)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    assert live_index.live_revisions(doc) == {"r3"}
    assert live_index.revision_states(doc)["r3"].complete_live


def test_document_with_a_bad_chunk_is_rejected_whole(
    live_index: OpenSearchIndex, embedder: Embedder
) -> None:
    s3, key, doc = _bucket_with_document("bad.md", "good")
    _reconcile(key, s3, live_index, embedder)
    s3.put_version(key, "bad", "2025-01-02T00:00:00Z")

    def embed_one_wrong(texts: Sequence[str]) -> list[list[float]]:
        vecs = embedder.embed(texts)
        vecs[1] = vecs[1][:17]  # wrong dimension: rejected by the knn_vector mapping
        return vecs

    with pytest.raises(PermanentError) as err:
        _reconcile(key, s3, live_index, embedder, embed=embed_one_wrong)
    assert isinstance(err.value, PermanentError) and "rejected" in str(err.value)
    states = live_index.revision_states(doc)
    assert "bad" not in states  # the two accepted chunks were withdrawn again
    # the old revision is not S3's current one: it is superseded, not served instead
    assert states["good"].n(State.SUPERSEDED) == 3
    assert live_index.live_revisions(doc) == set()
    for revs in _all_queries_revisions(live_index, embedder, doc):
        assert revs == set()
    # once S3 holds a good revision again, reconcile converges on it
    s3.put_version(key, "fixed", "2025-01-03T00:00:00Z")
    assert _reconcile(key, s3, live_index, embedder).revision == "fixed"
    assert live_index.live_revisions(doc) == {"fixed"}


def test_outage_is_retried_with_backoff_then_typed_error(embedder: Embedder) -> None:
    dead = connect("http://127.0.0.1:9", timeout=1)  # nothing listens on the discard port
    ix = OpenSearchIndex(
        dead,
        IndexNames("it-dead"),
        policy=RetryPolicy(attempts=4, initial=0.1, maximum=0.4, jitter=0),
    )
    v = ObjectVersion("2025-01-01T00:00:00Z", "r1", key="k", bucket=BUCKET)
    chunks = chunks_from_paragraphs("d", v, _paragraphs(v))
    t0 = time.monotonic()
    with pytest.raises(TransientOpenSearchError) as err:
        write_pending(ix, chunks, embedder.embed([c.text for c in chunks]))
    elapsed = time.monotonic() - t0
    assert isinstance(err.value, TransientError)
    assert "after 4 attempts" in str(err.value)
    assert elapsed >= 0.1 + 0.2 + 0.4 - 0.05  # exponential backoff between the 4 attempts


class _Throttling:
    """Wraps a real client: the first bulk calls are throttled (request-level 429,
    then item-level 429 for every item), later ones go through."""

    def __init__(self, real: OpenSearch, request_429: int, item_429: int) -> None:
        self._real = real
        self.request_429 = request_429
        self.item_429 = item_429
        self.calls = 0

    def bulk(self, body: Any, params: Any = None) -> Any:
        self.calls += 1
        if self.request_429 > 0:
            self.request_429 -= 1
            raise TransportError(429, "too_many_requests", {"error": "throttled"})
        if self.item_429 > 0:
            self.item_429 -= 1
            items = [
                {next(iter(m)): {"_id": m[next(iter(m))]["_id"], "status": 429, "error": {}}}
                for m in body[::2]
            ]
            return {"errors": True, "items": items}
        return self._real.bulk(body=body, params=params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def test_429_during_bulk_is_retried_then_succeeds_or_raises(
    live_index: OpenSearchIndex, embedder: Embedder
) -> None:
    key = f"docs/{uuid.uuid4().hex}/throttled.md"
    doc = make_doc_id(BUCKET, key)
    v = ObjectVersion("2025-01-01T00:00:00Z", "r1", key=key, bucket=BUCKET)
    chunks = chunks_from_paragraphs(doc, v, _paragraphs(v))
    vecs = embedder.embed([c.text for c in chunks])
    fast = RetryPolicy(attempts=5, initial=0.05, maximum=0.2, jitter=0)
    flaky = _Throttling(live_index.client, request_429=1, item_429=2)
    ix = OpenSearchIndex(flaky, live_index.names, policy=fast)  # type: ignore[arg-type]
    assert write_pending(ix, chunks, vecs) == {}
    assert flaky.calls == 4  # 429, item 429 x2, success
    live_index.refresh()
    assert live_index.revision_states(doc)["r1"].n(State.PENDING) == 3
    # never-ending throttling: typed error, nothing reported as indexed, nothing live
    key2 = f"docs/{uuid.uuid4().hex}/throttled2.md"
    doc2 = make_doc_id(BUCKET, key2)
    v2 = ObjectVersion("2025-01-01T00:00:00Z", "r1", key=key2, bucket=BUCKET)
    chunks2 = chunks_from_paragraphs(doc2, v2, _paragraphs(v2))
    always = _Throttling(live_index.client, request_429=0, item_429=100)
    ix2 = OpenSearchIndex(always, live_index.names, policy=fast)  # type: ignore[arg-type]
    with pytest.raises(TransientOpenSearchError, match="throttled"):
        write_pending(ix2, chunks2, vecs)
    assert always.calls == 5
    assert live_index.live_revisions(doc2) == set()


def test_failure_markers_are_read_by_the_sweep_and_invisible_elsewhere(
    client: OpenSearch, embedder: Embedder
) -> None:
    from chunkwise.adapters.opensearch.live_set import OpenSearchLiveSet
    from chunkwise.ingest.config import build_config
    from chunkwise.ingest.maintenance import sweep
    from tests.fakes.bucket import FakeBucket
    from tests.fakes.pipeline import FakeQueue
    from tests.integration.live_index import live_test_index

    store = FakeBucket(bucket="bucket")
    bad = store.put("incoming/broken.pdf", b"%PDF-1.7 broken")
    doc = make_doc_id("bucket", bad.key)
    config = build_config(bucket="bucket", input_prefix="incoming/")
    with live_test_index(client, embedder, "it-failures") as ix:
        live = OpenSearchLiveSet(ix, "bucket")
        drift = sweep(config, store, live, queue=FakeQueue())
        assert drift.drifted == [bad.key] and drift.known_failures == {}
        ix.record_failure(doc, bad.key, bad.revision, "CorruptDocument: no xref table")
        ix.record_failure(doc, bad.key, bad.revision, "CorruptDocument: no xref table")  # idem
        assert live.known_failures() == {bad.key: {bad.revision: "CorruptDocument: no xref table"}}
        queue = FakeQueue()
        res = sweep(config, store, live, queue=queue)
        assert res.drifted == [] and queue.bodies == []
        assert res.known_failures == {bad.key: f"{bad.revision}: CorruptDocument: no xref table"}
        # not a chunk: no live set entry, no search hit, untouched by retention
        assert live.live_revisions() == {}
        assert ix.sweep(0) == 0
        hits = client.search(index=ix.names.read_alias, body={"query": {"match_all": {}}})
        assert hits["hits"]["total"]["value"] == 0
        assert ix.revision_states(doc)[bad.revision].visible is False
