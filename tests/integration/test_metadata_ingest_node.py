"""Sidecars through the production pipeline into the real node: the mapping of the
metadata fields (and the upgrade of a generation without them), the restamp of a
metadata-only change (same vectors, new metadata, nothing embedded), the revival of a
repeated state, the live set and failure markers by revision key, and what the reader
(`Searcher`) returns after each change."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.live_set import OpenSearchLiveSet
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.embedding.embed import Embedder
from chunkwise.index.mapping import index_body
from chunkwise.index.names import IndexNames, make_doc_id
from chunkwise.index.versions import revision_key
from chunkwise.ingest.config import build_config
from chunkwise.ingest.maintenance import sweep
from chunkwise.ingest.messages import ObjectChange
from chunkwise.ingest.pipeline import Pipeline
from chunkwise.ingest.revisions import Loaded
from chunkwise.metadata import NO_READERS, document_fields, parse_sidecar
from chunkwise.metadata.fields import metadata_mapping
from chunkwise.search.hybrid import SearchFilters
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.fakes.pipeline import DATA, FakeArtifactStore, FakeQueue
from tests.integration.live_index import drop_prefix, live_test_index, write_pending

pytestmark = pytest.mark.integration

BUCKET = "it-meta-bucket"
KEY = "incoming/manual_en.md"
SIDECAR = KEY + ".metadata.json"
DOC_ID = make_doc_id(BUCKET, KEY)
MANUAL = (DATA / "manual_en.md").read_bytes()


def sidecar(attributes: dict[str, Any]) -> bytes:
    return json.dumps({"metadataAttributes": attributes}).encode()


class Stack:
    """The production pipeline over a fake bucket and a real, fresh index."""

    def __init__(self, client: OpenSearch, embedder: Embedder, ix: OpenSearchIndex) -> None:
        self.client, self.ix = client, ix
        self.store = FakeBucket(BUCKET)
        self.embed_calls = 0
        inner = embedder.embed

        def counted(texts: Any) -> list[list[float]]:
            self.embed_calls += 1
            return inner(texts)

        self.embedder = embedder
        self.restore = lambda: setattr(embedder, "embed", inner)
        embedder.embed = counted  # type: ignore[method-assign]
        config = build_config(bucket=BUCKET, input_prefix="incoming/")
        self.pipeline = Pipeline(
            config,
            store=self.store,
            artifacts=FakeArtifactStore(),
            index_for=lambda _g: OpenSearchSwitchIndex(ix),
            embedder=embedder,
        )
        self.searcher = Searcher(client, embedder, ix.names, fusion="client")

    def ingest(self, key: str = KEY) -> Any:
        result = self.pipeline.ingest(ObjectChange(BUCKET, key, raw_key=key))
        self.ix.refresh()
        return result

    def chunks(self, query: dict[str, Any]) -> list[dict[str, Any]]:
        body = {"size": 100, "query": query, "sort": [{"chunk_index": "asc"}]}
        hits = self.client.search(index=self.ix.target, body=body)["hits"]["hits"]
        return [{"_id": h["_id"], **h["_source"]} for h in hits]

    def of_state(self, state: str) -> list[dict[str, Any]]:
        return self.chunks(
            {"bool": {"filter": [{"term": {"doc_id": DOC_ID}}, {"term": {"state": state}}]}}
        )

    def search_ids(self) -> set[str]:
        hits = self.searcher.search("pump maintenance filter", 5, SearchFilters(doc_ids=(DOC_ID,)))
        return {h.id for h in hits}


@pytest.fixture
def stack(client: OpenSearch, embedder: Embedder) -> Iterator[Stack]:
    with live_test_index(client, embedder, "it-meta") as ix:
        s = Stack(client, embedder, ix)
        try:
            yield s
        finally:
            s.restore()


def test_a_generation_maps_metadata_keys_to_their_types(stack: Stack) -> None:
    stack.store.put(KEY, MANUAL)
    stack.store.put(
        SIDECAR,
        sidecar(
            {
                "dept": "legal",
                "year": 2024,
                "draft": False,
                "tags": ["a", "b"],
                "signed": "2024-05-31",
                "lang": "de",  # named like a chunk field: an ordinary key
                "chunkwise_readers": ["legal"],
            }
        ),
    )
    assert stack.ingest().status == "indexed"
    index = stack.ix.live_generation()
    assert index is not None
    props = stack.client.indices.get_mapping(index=index)[index]["mappings"]["properties"]
    meta = {sub: spec.get("properties", {}) for sub, spec in props["meta"]["properties"].items()}
    assert meta["s"]["dept"]["type"] == "keyword" and meta["n"]["year"]["type"] == "double"
    assert meta["b"]["draft"]["type"] == "boolean" and meta["l"]["tags"]["type"] == "keyword"
    assert meta["d"]["signed"]["type"] == "date" and meta["s"]["lang"]["type"] == "keyword"
    assert props["lang"]["type"] == "keyword"  # the chunk's own field is untouched
    live = stack.of_state("live")
    assert live and {c["lang"] for c in live} == {"en"}
    assert {c["meta"]["s"]["lang"] for c in live} == {"de"}
    assert stack.chunks({"term": {"meta.n.year": 2024}})  # searchable by type


def test_a_metadata_only_change_is_restamped_on_the_node(stack: Stack) -> None:
    v1 = stack.store.put(KEY, MANUAL)
    m1 = stack.store.put(SIDECAR, sidecar({"dept": "legal", "chunkwise_readers": ["legal"]}))
    first = stack.ingest()
    before = {c["chunk_index"]: c for c in stack.of_state("live")}
    assert first.chunks == len(before) > 0 and stack.embed_calls >= 1
    assert stack.search_ids() <= {c["_id"] for c in before.values()}
    calls = stack.embed_calls

    m2 = stack.store.put(SIDECAR, sidecar({"dept": "ops", "chunkwise_readers": ["ops"]}))
    res = stack.ingest(SIDECAR)

    assert res.metadata_only and (res.extractions, res.embedding_calls) == (0, 0)
    assert stack.embed_calls == calls
    after = {c["chunk_index"]: c for c in stack.of_state("live")}
    state = revision_key(v1.revision, m2.revision)
    assert sorted(after) == sorted(before)
    for i, chunk in after.items():
        assert chunk["_id"] == f"{DOC_ID}:{state}:{i}"
        assert chunk["revision"] == v1.revision and chunk["metadata_version"] == m2.revision
        assert chunk["meta"]["s"] == {"dept": "ops"} and chunk["readers"] == ["ops"]
        assert chunk["embedding"] == before[i]["embedding"]  # copied, not re-embedded
        assert chunk["body"] == before[i]["body"]
    old = stack.of_state("superseded")
    assert {c["metadata_version"] for c in old} == {m1.revision} and len(old) == len(before)
    ids = stack.search_ids()
    assert ids and ids <= {c["_id"] for c in after.values()}  # the reader: new state only
    head = stack.ix.client.get(index=stack.ix.target, id=f"{DOC_ID}:head", routing=DOC_ID)
    assert head["_source"]["metadata_version"] == m2.revision


def test_a_sidecar_deleted_again_revives_the_bare_state_on_the_node(stack: Stack) -> None:
    v1 = stack.store.put(KEY, MANUAL)
    n = stack.ingest().chunks
    stack.store.put(SIDECAR, sidecar({"chunkwise_readers": ["legal"]}))
    stack.ingest(SIDECAR)
    stack.store.delete(SIDECAR)
    res = stack.ingest(SIDECAR)
    assert res.metadata_only and res.metadata_version == ""
    live = stack.of_state("live")
    assert len(live) == n and {c["_id"].split(":")[1] for c in live} == {v1.revision}
    assert {c["readers"][0] for c in live} == {NO_READERS}
    assert {c["metadata_version"] for c in live} == {""}
    ids = stack.search_ids()
    assert ids and ids <= {c["_id"] for c in live}


def test_live_set_and_failure_markers_speak_revision_keys(stack: Stack) -> None:
    v1 = stack.store.put(KEY, MANUAL)
    stack.ingest()
    live_set = OpenSearchLiveSet(stack.ix, BUCKET)
    assert live_set.live_revisions() == {KEY: {v1.revision}}
    m1 = stack.store.put(SIDECAR, sidecar({"dept": "legal"}))  # its event is lost
    config = stack.pipeline.config
    queue = FakeQueue()
    assert sweep(config, stack.store, live_set, queue=queue).drifted == [KEY]
    repaired = sweep(config, stack.store, live_set, pipeline=stack.pipeline)
    assert repaired.repaired == [KEY]
    assert live_set.live_revisions() == {KEY: {revision_key(v1.revision, m1.revision)}}
    bad = stack.store.put(SIDECAR, b'{"metadataAttributes": {"a": null}}')
    failed = stack.pipeline.ingest_batch([ObjectChange(BUCKET, KEY, raw_key=KEY)])[0]
    assert failed.status == "failed" and "metadataAttributes.a" in str(failed.error)
    stack.ix.refresh()
    state = revision_key(v1.revision, bad.revision)
    assert set(live_set.known_failures()[KEY]) == {state}
    result = sweep(config, stack.store, live_set, queue=FakeQueue())
    assert result.drifted == [] and list(result.known_failures) == [KEY]
    assert live_set.live_revisions() == {}  # fail closed: the old readers are gone


def test_a_generation_without_metadata_is_upgraded_in_place(
    client: OpenSearch, embedder: Embedder
) -> None:
    ix = OpenSearchIndex(client, IndexNames(f"it-meta-up-{uuid.uuid4().hex[:10]}"))
    try:
        body = index_body(embedder.dimension, generation="g0")
        mappings = body["mappings"]
        del mappings["dynamic_templates"]
        for name in metadata_mapping()["properties"]:
            del mappings["properties"][name]
        index = ix.names.index("g0")
        client.indices.create(index=index, body=body)  # as mapping revision 5 made it
        ix.swap("g0")
        s3 = FakeBucket("bucket")
        version = s3.put_version("a.md", "v1", "2025-03-01T00:00:00Z")
        chunks = chunks_from_paragraphs(make_doc_id("bucket", "a.md"), version, ["Pumpe."])
        vectors = [[0.1] * embedder.dimension for _ in chunks]
        rejected = write_pending(ix, chunks, vectors)
        assert "strict_dynamic_mapping" in rejected[chunks[0].doc_id]

        assert ix.ensure_live_generation("g1", dimension=embedder.dimension) == index
        mapping = client.indices.get_mapping(index=index)[index]["mappings"]
        assert {"meta", "readers", "metadata_version"} <= set(mapping["properties"])
        assert len(mapping["dynamic_templates"]) == 5
        assert write_pending(ix, chunks, vectors) == {}
        fields = document_fields(parse_sidecar(sidecar({"dept": "legal", "year": 2024})))
        stamped = Loaded(chunks, vectors, metadata_version="m1", fields=fields)
        assert OpenSearchSwitchIndex(ix).write_chunks([stamped]) == {}
        ix.refresh()
        assert client.count(index=index)["count"] == 2 * len(chunks)
        year = client.indices.get_mapping(index=index)[index]["mappings"]["properties"]
        assert year["meta"]["properties"]["n"]["properties"]["year"]["type"] == "double"
        assert ix.add_missing_fields(index) == []  # idempotent
    finally:
        drop_prefix(client, ix.names)
