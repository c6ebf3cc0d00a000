"""Generation swap under load: g2 is built while g1 serves queries; the atomic alias
swap never makes a query fail or come back empty."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.generations import GenerationError
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.cli.index import main_index
from chunkwise.embedding.embed import Embedder
from chunkwise.index.names import IndexNames, make_doc_id, template_name
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.live_index import drop_prefix, switch_to_current

pytestmark = pytest.mark.integration

BUCKET = "bucket"
DOCS = {
    f"gen/doc{i}.md": [
        f"Document {i} explains topic {t} in detail with examples and caveats."
        for t in ("alpha", "beta", "gamma")
    ]
    for i in range(8)
}
QUERIES = ["topic alpha examples", "caveats of beta", "Document 3 gamma"]


@pytest.fixture
def names(client: OpenSearch) -> Iterator[IndexNames]:
    n = IndexNames(f"it-gen-{uuid.uuid4().hex[:10]}")
    yield n
    drop_prefix(client, n)


def _fill(ix: OpenSearchIndex, embedder: Embedder, s3: FakeBucket) -> None:
    for key, paras in DOCS.items():
        doc = make_doc_id(BUCKET, key)
        switch_to_current(
            key,
            doc,
            s3=s3,
            index=ix,
            load_chunks=lambda v, d=doc, p=paras: chunks_from_paragraphs(d, v, p),
            embed=embedder.embed,
        )


def test_swap_while_serving(
    client: OpenSearch, embedder: Embedder, names: IndexNames
) -> None:
    s3 = FakeBucket(BUCKET)
    for key in DOCS:
        s3.put_version(key, "v1", "2025-04-01T00:00:00Z")
    ix = OpenSearchIndex(client, names)
    ix.create_generation("g1", dimension=embedder.dimension, embedder_name=embedder.name)
    ix.swap("g1")
    _fill(ix, embedder, s3)

    stop = threading.Event()
    failures: list[str] = []
    served = {"client": 0, "server": 0}

    def serve(fusion: str) -> None:
        s = Searcher(client, embedder, names, fusion=fusion)  # type: ignore[arg-type]
        i = 0
        while not stop.is_set():
            q = QUERIES[i % len(QUERIES)]
            i += 1
            try:
                hits = s.search(q, k=3)
            except Exception as exc:
                failures.append(f"{fusion} {q!r}: {type(exc).__name__}: {exc}")
                continue
            if not hits:
                failures.append(f"{fusion} {q!r}: empty result")
            served[fusion] += 1

    threads = [threading.Thread(target=serve, args=(f,)) for f in ("client", "server")]
    for t in threads:
        t.start()
    try:
        # build g2 (e.g. a new chunker config) directly into its physical index
        g2_index = ix.create_generation(
            "g2", dimension=embedder.dimension, embedder_name=embedder.name
        )
        builder = OpenSearchIndex(client, names, target=g2_index)
        _fill(builder, embedder, s3)
        time.sleep(0.5)
        ix.swap("g2")
        time.sleep(1.0)
        ix.swap("g1")  # rollback is just another swap
        time.sleep(0.5)
        ix.swap("g2")
        time.sleep(1.0)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not failures, failures[:5]
    assert served["client"] > 3 and served["server"] > 3
    assert ix.live_generation() == names.index("g2")
    assert ix.alias_holders(names.write_alias) == [names.index("g2")]
    with pytest.raises(GenerationError, match="live"):
        ix.drop("g2")
    ix.drop("g1")
    assert ix.generations() == ["g2"]


def test_cli_create_swap_sweep_drop(
    client: OpenSearch,
    embedder: Embedder,
    names: IndexNames,
    opensearch_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    common = ["--url", opensearch_url, "--prefix", names.prefix]
    assert main_index(["create", "--generation", "a1", "--swap", *common]) == 0
    assert main_index(["create", "--generation", "a2", "--dimension", "384", *common]) == 0
    assert main_index(["swap", "a2", *common]) == 0
    ix = OpenSearchIndex(client, names)
    assert ix.live_generation() == names.index("a2")
    # superseded chunks are swept once older than the retention
    s3 = FakeBucket(BUCKET)
    key = "sweep/doc.md"
    doc = make_doc_id(BUCKET, key)
    for rev, day in (("r1", 1), ("r2", 2)):
        s3.put_version(key, rev, f"2025-05-0{day}T00:00:00Z")
        switch_to_current(
            key,
            doc,
            s3=s3,
            index=ix,
            load_chunks=lambda v: chunks_from_paragraphs(doc, v, ["one", "two"]),
            embed=embedder.embed,
        )
    assert main_index(["sweep", "--older-than", "1d", *common]) == 0
    assert "swept 0 chunks" in capsys.readouterr().out
    assert ix.sweep(0) == 2
    assert set(ix.revision_states(doc)) == {"r2"}
    assert main_index(["list", *common]) == 0
    assert "(live)" in capsys.readouterr().out
    assert main_index(["drop", "a2", *common]) == 1  # live: refused
    assert main_index(["drop", "a1", *common]) == 0
    assert main_index(["swap", "nope", *common]) == 1
    assert main_index(["create", "--generation", "WRITE", *common]) == 2


def test_generation_template_gives_any_index_under_the_prefix_the_real_mapping(
    client: OpenSearch, names: IndexNames, embedder: Embedder
) -> None:
    ix = OpenSearchIndex(client, names)
    index = ix.create_generation("g1", dimension=embedder.dimension, embedder_name=embedder.name)
    template = client.indices.get_index_template(name=template_name(names))["index_templates"][0]
    assert template["index_template"]["index_patterns"] == [f"{names.prefix}-*"]
    # The generation keeps its own vector field on top of the template's fields.
    mapping = client.indices.get_mapping(index=index)[index]["mappings"]
    assert mapping["properties"]["embedding"]["dimension"] == embedder.dimension
    assert mapping["properties"]["text_de"]["analyzer"] == "german"
    # An index created by mistake under the prefix is strict, never dynamic.
    stray = f"{names.prefix}-stray"
    client.indices.create(index=stray)
    try:
        stray_mapping = client.indices.get_mapping(index=stray)[stray]["mappings"]
        assert stray_mapping["dynamic"] == "strict"
        assert stray_mapping["properties"]["doc_id"]["type"] == "keyword"
    finally:
        client.indices.delete(index=stray)
