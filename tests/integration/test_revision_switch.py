"""The revision switch (chunkwise.ingest.revisions) against the real node: heads, chunks,
compare-and-set, readers. S3 is a fake here (the fault suite uses the emulator)."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.embedding.embed import Embedder
from chunkwise.index.heads import CANDIDATE_STATES
from chunkwise.index.names import IndexNames, make_doc_id
from chunkwise.index.reading import Candidate, read_current
from chunkwise.ingest.revisions import Loaded, RevisionSwitch, Version
from chunkwise.schema import Chunk
from tests.integration.live_index import drop_prefix

pytestmark = pytest.mark.integration

BUCKET = "bucket"


@pytest.fixture(params=[1, 3], ids=["1-shard", "3-shards"])
def ix(
    client: OpenSearch, embedder: Embedder, request: pytest.FixtureRequest
) -> Iterator[OpenSearchIndex]:
    """One generation of 1 or 3 primary shards (no replica: one local node): the protocol
    holds when heads and chunks are spread over several shards (issue #27)."""
    names = IndexNames(f"it-switch-{uuid.uuid4().hex[:10]}")
    index = OpenSearchIndex(client, names)
    index.ensure_live_generation(
        "g1",
        dimension=embedder.dimension,
        embedder_name=embedder.name,
        shards=int(request.param),
        replicas=0,
    )
    try:
        yield index
    finally:
        drop_prefix(client, names)


class S3:
    def __init__(self) -> None:
        self.versions: dict[str, list[str]] = {}
        self.lock = threading.Lock()

    def put(self, key: str) -> str:
        with self.lock:
            vs = self.versions.setdefault(key, [])
            vs.append(f"v{len(vs) + 1:04d}")
            return vs[-1]

    def delete(self, key: str) -> None:
        with self.lock:
            self.versions[key].append("")

    def current(self, key: str) -> Version | None:
        with self.lock:
            vs = self.versions.get(key) or [""]
            return Version(vs[-1]) if vs[-1] else None


def n_chunks(revision: str) -> int:
    return 2 + int(revision[1:]) % 3


def loader(dimension: int) -> Any:
    def load(items: Sequence[tuple[str, str, Version]]) -> dict[str, Loaded]:
        out = {}
        for doc_id, key, v in items:
            chunks = []
            for i in range(n_chunks(v.revision)):
                body = f"{key} {v.revision} part {i} zebra"
                chunks.append(
                    Chunk(
                        doc_id=doc_id,
                        source_key=key,
                        revision=v.revision,
                        chunk_index=i,
                        start=0,
                        end=len(body),
                        byte_start=0,
                        byte_end=len(body),
                        body=body,
                        text=body,
                        token_count=5,
                        lang="en",
                    )
                )
            vectors = [[0.1 + i] + [0.0] * (dimension - 1) for i in range(len(chunks))]
            out[doc_id] = Loaded(chunks, vectors)
        return out

    return load


def reader(ix: OpenSearchIndex, doc_id: str) -> list[dict[str, Any]]:
    port = OpenSearchSwitchIndex(ix)
    preference = uuid.uuid4().hex  # one reader, one set of shard copies

    def search(attempt: int) -> list[dict[str, Any]]:
        body = {
            "size": 50 * (attempt + 1),
            "query": {
                "bool": {
                    "filter": [
                        {"term": {"doc_id": doc_id}},
                        {"terms": {"state": list(CANDIDATE_STATES)}},
                    ]
                }
            },
            "_source": ["doc_id", "revision", "state", "chunk_index"],
        }
        resp = ix.client.search(index=ix.target, body=body, params={"preference": preference})
        hits: list[dict[str, Any]] = resp["hits"]["hits"]
        return hits

    def cand(h: dict[str, Any]) -> Candidate:
        s = h["_source"]
        return Candidate(s["doc_id"], s["revision"], s["state"])

    return read_current(search, cand, lambda ids: port.search_heads(ids, preference))


def visible(ix: OpenSearchIndex, doc_id: str, revision: str | None) -> list[dict[str, Any]]:
    """The reader's result once the node's periodic refresh showed ``revision``."""
    deadline = time.monotonic() + 10
    while True:
        got = reader(ix, doc_id)
        revs = {h["_source"]["revision"] for h in got}
        if revs == ({revision} if revision else set()) or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def switch(ix: OpenSearchIndex, s3: S3, dimension: int) -> RevisionSwitch:
    return RevisionSwitch(OpenSearchSwitchIndex(ix), s3.current, loader(dimension))


def live_revisions(ix: OpenSearchIndex, doc_id: str) -> dict[str, int]:
    ix.refresh()  # the test looks at the settled state; the protocol never does this
    body = {
        "size": 100,
        "query": {"bool": {"filter": [{"term": {"doc_id": doc_id}}, {"term": {"state": "live"}}]}},
    }
    out: dict[str, int] = {}
    for h in ix.client.search(index=ix.names.read_alias, body=body)["hits"]["hits"]:
        out[h["_source"]["revision"]] = out.get(h["_source"]["revision"], 0) + 1
    return out


def test_new_revision_replaces_old_without_a_forced_refresh(
    ix: OpenSearchIndex, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    s3, key = S3(), "docs/a.md"
    doc = make_doc_id(BUCKET, key)
    s3.put(key)
    refreshes: list[object] = []
    real_refresh = ix.client.indices.refresh
    monkeypatch.setattr(ix.client.indices, "refresh", lambda *a, **k: refreshes.append(a))
    out = switch(ix, s3, embedder.dimension).run({doc: key})[doc]
    assert out.status == "indexed" and out.revision == "v0001"
    assert {h["_source"]["revision"] for h in visible(ix, doc, "v0001")} == {"v0001"}
    v2 = s3.put(key)
    out = switch(ix, s3, embedder.dimension).run({doc: key})[doc]
    assert out.status == "indexed" and out.revision == v2
    got = visible(ix, doc, v2)
    assert {h["_source"]["revision"] for h in got} == {v2} and len(got) == n_chunks(v2)
    assert refreshes == []
    monkeypatch.setattr(ix.client.indices, "refresh", real_refresh)
    assert live_revisions(ix, doc) == {v2: n_chunks(v2)}
    again = switch(ix, s3, embedder.dimension).run({doc: key})[doc]
    assert again.status == "unchanged" and again.rounds == 1


def test_delete_retires_and_a_batch_is_one_call_per_phase(
    ix: OpenSearchIndex, embedder: Embedder
) -> None:
    s3 = S3()
    docs = {make_doc_id(BUCKET, f"docs/{i}.md"): f"docs/{i}.md" for i in range(6)}
    for key in docs.values():
        s3.put(key)
    outs = switch(ix, s3, embedder.dimension).run(docs)
    assert {o.status for o in outs.values()} == {"indexed"}
    gone_doc, gone_key = next(iter(docs.items()))
    s3.delete(gone_key)
    out = switch(ix, s3, embedder.dimension).run({gone_doc: gone_key})[gone_doc]
    assert out.status == "retired"
    assert visible(ix, gone_doc, None) == []
    assert live_revisions(ix, gone_doc) == {}


def test_a_rejected_revision_hides_the_older_one_and_fails(
    ix: OpenSearchIndex, embedder: Embedder
) -> None:
    s3, key = S3(), "docs/bad.md"
    doc = make_doc_id(BUCKET, key)
    s3.put(key)
    switch(ix, s3, embedder.dimension).run({doc: key})
    s3.put(key)
    bad = RevisionSwitch(OpenSearchSwitchIndex(ix), s3.current, loader(embedder.dimension + 1))
    out = bad.run({doc: key})[doc]
    assert out.status == "failed" and "chunks rejected" in str(out.error)
    assert visible(ix, doc, None) == []
    assert live_revisions(ix, doc) == {}


def test_concurrent_writers_and_readers_of_one_key(ix: OpenSearchIndex, embedder: Embedder) -> None:
    s3, key = S3(), "docs/hot.md"
    doc = make_doc_id(BUCKET, key)
    s3.put(key)
    switch(ix, s3, embedder.dimension).run({doc: key})
    visible(ix, doc, "v0001")
    stop = threading.Event()
    verdicts: dict[str, int] = {}
    seen: list[str] = [""]  # the newest revision any finished read returned

    def read_loop() -> None:
        while not stop.is_set():
            floor = seen[-1]
            got = reader(ix, doc)
            revs = {h["_source"]["revision"] for h in got}
            if len(revs) > 1:
                v = "mixed"
            elif not revs:
                v = "missing" if floor else "not yet"
            elif next(iter(revs)) < floor:
                v = "stale"
            elif len(got) != n_chunks(next(iter(revs))):
                v = "partial"
            else:
                v = "ok"
                seen.append(max(seen[-1], next(iter(revs))))
            verdicts[v] = verdicts.get(v, 0) + 1

    def write_loop(n: int) -> None:
        for _ in range(n):
            s3.put(key)
            switch(ix, s3, embedder.dimension).run({doc: key})

    readers = [threading.Thread(target=read_loop) for _ in range(2)]
    writers = [threading.Thread(target=write_loop, args=(4,)) for _ in range(3)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    final = switch(ix, s3, embedder.dimension).run({doc: key})[doc]
    current = s3.current(key)
    assert current is not None and final.revision == current.revision
    assert set(verdicts) <= {"ok", "not yet"} and verdicts["ok"], verdicts
    assert sum(verdicts.values()) > 20
    assert live_revisions(ix, doc) == {current.revision: n_chunks(current.revision)}


def test_a_head_and_its_chunks_share_one_shard(ix: OpenSearchIndex, embedder: Embedder) -> None:
    """Routing = doc_id for the head and every chunk: on a generation of several shards each
    document lives on exactly one of them (the reader's atomicity argument needs that), and
    the realtime reads by id find them with that routing."""
    s3, keys = S3(), [f"k{i:02d}" for i in range(12)]
    docs = {make_doc_id(BUCKET, k): k for k in keys}
    for k in keys:
        s3.put(k)
    out = switch(ix, s3, embedder.dimension).run(docs)
    assert all(o.status == "indexed" for o in out.values())
    ix.refresh()
    index = ix.names.index("g1")
    shards = int(
        ix.client.indices.get_settings(index=index)[index]["settings"]["index"]["number_of_shards"]
    )
    seen: dict[str, set[int]] = {}
    for shard in range(shards):
        body = {"size": 1000, "query": {"terms": {"doc_id": list(docs)}}, "_source": ["doc_id"]}
        resp = ix.client.search(index=index, body=body, params={"preference": f"_shards:{shard}"})
        for h in resp["hits"]["hits"]:
            seen.setdefault(h["_source"]["doc_id"], set()).add(shard)
    assert set(seen) == set(docs) and all(len(v) == 1 for v in seen.values()), seen
    if shards > 1:
        assert len({next(iter(v)) for v in seen.values()}) > 1  # really spread out
    heads = OpenSearchSwitchIndex(ix).mget_heads(list(docs))
    assert set(heads) == set(docs) and all(h.revision == "v0001" for h in heads.values())
