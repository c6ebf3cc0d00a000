"""Hybrid search against a real node, both fusion paths, with the real local embedder."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

import pytest
from bench.faults.readonly_proxy import ReadOnlyProxy
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.client import connect
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.retries import RetryPolicy
from chunkwise.adapters.opensearch.search import Searcher, detect_caps, ensure_search_pipelines
from chunkwise.cli.index import main_search
from chunkwise.embedding.embed import Embedder
from chunkwise.index.names import make_doc_id
from chunkwise.index.versions import ObjectVersion
from chunkwise.search.fusion import DEFAULT_FUSION, f32, parse_fusion
from chunkwise.search.hybrid import SearchFilters
from tests.deploy import template_policies as tp
from tests.deploy.iam import ALLOWED, evaluate
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.live_index import live_test_index, switch_to_current, write_live_without_head

pytestmark = pytest.mark.integration

BUCKET = "bucket"
CORPUS: dict[str, tuple[str, str, list[str]]] = {
    "en/lease.md": (
        "en",
        "prose",
        [
            "The tenant may terminate the lease with three months notice in writing.",
            "Rent is due on the first working day of each month by bank transfer.",
            "Pets are allowed only with the landlord's prior written consent.",
        ],
    ),
    "de/mietvertrag.md": (
        "de",
        "prose",
        [
            "Die Kündigungsfristen für den Mieter betragen drei Monate zum Monatsende.",
            "Die Miete ist jeweils am dritten Werktag des Monats im Voraus zu zahlen.",
            "Haustiere dürfen nur mit vorheriger Zustimmung des Vermieters gehalten werden.",
        ],
    ),
    "en/prices.md": (
        "en",
        "table",
        [
            "| Product | Price |\n| --- | --- |\n| Apple | 0.50 EUR |",
            "| Product | Price |\n| --- | --- |\n| Banana | 0.30 EUR |",
        ],
    ),
    "en/space.md": (
        "en",
        "prose",
        [
            "The telescope observed a distant galaxy cluster with strong lensing.",
            "Astronomers measured the redshift of the quasar spectrum.",
        ],
    ),
}


@pytest.fixture(scope="module")
def corpus_index(client: OpenSearch, embedder: Embedder) -> Iterator[OpenSearchIndex]:
    with live_test_index(client, embedder, "it-search") as ix:
        _ingest(ix, embedder)
        yield ix


def _ingest(ix: OpenSearchIndex, embedder: Embedder) -> None:
    s3 = FakeBucket(BUCKET)
    for key, (lang, kind, paras) in CORPUS.items():
        s3.put_version(key, "v1", "2025-03-01T00:00:00Z")
        doc = make_doc_id(BUCKET, key)
        switch_to_current(
            key,
            doc,
            s3=s3,
            index=ix,
            load_chunks=lambda v, d=doc, p=paras, la=lang, ki=kind: chunks_from_paragraphs(
                d, v, p, lang=la, kind=ki, heading="Section"
            ),
            embed=embedder.embed,
        )


FUSIONS = ["client", "server"]


def test_cluster_has_neural_search_with_the_default_fusion_pipeline(client: OpenSearch) -> None:
    caps = detect_caps(client)
    assert caps.neural_search and caps.server_pipeline == DEFAULT_FUSION.pipeline_name, caps


@pytest.mark.parametrize("fusion", FUSIONS)
def test_semantic_and_lexical_queries_find_the_right_chunk(
    corpus_index: OpenSearchIndex, embedder: Embedder, fusion: str
) -> None:
    s = Searcher(corpus_index.client, embedder, corpus_index.names, fusion=fusion)  # type: ignore[arg-type]
    assert s.fusion == fusion
    top = s.search("how can the renter end the contract", k=3)[0]
    assert top.citation.key == "en/lease.md" and top.chunk_index == 0
    # German analyzer: "Kündigungsfrist" matches the stemmed plural in the text
    de = s.search("Kündigungsfrist", k=3)
    assert de[0].citation.key == "de/mietvertrag.md" and de[0].chunk_index == 0
    sci = s.search("quasar redshift", k=2)
    assert sci[0].citation.key == "en/space.md"


@pytest.mark.parametrize("fusion", FUSIONS)
def test_hits_carry_citation_and_score_breakdown(
    corpus_index: OpenSearchIndex, embedder: Embedder, fusion: str
) -> None:
    s = Searcher(corpus_index.client, embedder, corpus_index.names, fusion=fusion)  # type: ignore[arg-type]
    hits = s.search("rent due date bank transfer", k=5)
    h = hits[0]
    c = h.citation
    paras = CORPUS["en/lease.md"][2]
    assert c.key == "en/lease.md" and c.revision == "v1"
    assert c.body == paras[1]
    assert "\n\n".join(paras)[c.start : c.end] == c.body
    assert c.heading_path == ["Section"] and c.page_start == 1 and c.page_end == 1
    if fusion == "client":  # the default, minmax:0.7: the best of both legs scores 1.0
        assert h.score.fusion == "norm-client"
        assert h.score.bm25_rank == 1 and h.score.knn_rank == 1
        assert h.score.fused == pytest.approx(1.0, abs=1e-6)
    else:
        assert h.score.fusion == "norm-server" and 0 < h.score.fused <= 1
    assert [x.score.fused for x in hits] == sorted((x.score.fused for x in hits), reverse=True)


@pytest.mark.parametrize("spec_name", ["rrf:60", "minmax:0.7"])
@pytest.mark.parametrize(
    "query",
    [
        "how can the renter end the contract",
        "Kündigungsfrist",
        "rent due date bank transfer",
        "price of a banana",
        "quasar redshift galaxy",
    ],
)
def test_client_and_server_fusion_rank_alike(
    corpus_index: OpenSearchIndex, embedder: Embedder, query: str, spec_name: str
) -> None:
    """The same fusion spec on both paths, the spec's search pipeline on the node against
    `fuse_client_side`: the same order (the same tie rule, `tie_key`) and the same fused
    scores, to the float32 the cluster computes in. The cluster's plugins must not change
    the results."""
    spec = parse_fusion(spec_name)
    assert ensure_search_pipelines(corpus_index.client, spec=spec) == spec.pipeline_name
    hits = {
        fusion: Searcher(
            corpus_index.client,
            embedder,
            corpus_index.names,
            fusion=fusion,  # type: ignore[arg-type]
            spec=spec,
        )
        .answer(query, k=10, collapse=False)
        .hits
        for fusion in FUSIONS
    }
    assert hits["server"] and hits["server"][0].score.fusion == spec.side_label("server")
    assert hits["client"][0].score.fusion == spec.side_label("client")
    assert [h.id for h in hits["client"]] == [h.id for h in hits["server"]]
    client_scores = [h.score.fused for h in hits["client"]]
    assert client_scores == [f32(h.score.fused) for h in hits["server"]]


@pytest.mark.parametrize("fusion", FUSIONS)
def test_filters_doc_prefix_lang_kind(
    corpus_index: OpenSearchIndex, embedder: Embedder, fusion: str
) -> None:
    s = Searcher(corpus_index.client, embedder, corpus_index.names, fusion=fusion)  # type: ignore[arg-type]
    q = "price of fruit"
    assert {h.citation.key for h in s.search(q, 10, SearchFilters(key_prefix="de/"))} == {
        "de/mietvertrag.md"
    }
    assert {h.lang for h in s.search(q, 10, SearchFilters(langs=("de",)))} == {"de"}
    assert {h.kind for h in s.search(q, 10, SearchFilters(kinds=("table",)))} == {"table"}
    doc = make_doc_id(BUCKET, "en/space.md")
    assert {h.doc_id for h in s.search(q, 10, SearchFilters(doc_ids=(doc,)))} == {doc}


@pytest.mark.parametrize("fusion", FUSIONS)
def test_overlapping_spans_are_deduped(
    corpus_index: OpenSearchIndex, embedder: Embedder, fusion: str
) -> None:
    key = f"dup/{uuid.uuid4().hex}.md"
    doc = make_doc_id(BUCKET, key)
    v = ObjectVersion("2025-03-02T00:00:00Z", "v1", key=key, bucket=BUCKET)
    text = "Volcanic ash grounded flights across northern Europe for six days."
    a = chunks_from_paragraphs(doc, v, [text])[0]
    # a second chunk of the same revision covering an overlapping span
    b = a.model_copy(
        update={
            "chunk_index": 1,
            "start": 8,
            "end": 8 + len(text[8:]),
            "body": text[8:],
            "text": text[8:],
        }
    )
    write_live_without_head(corpus_index, [a, b], embedder.embed([a.text, b.text]))
    s = Searcher(corpus_index.client, embedder, corpus_index.names, fusion=fusion)  # type: ignore[arg-type]
    hits = s.search("volcanic ash flights", 5, SearchFilters(doc_ids=(doc,)))
    assert len(hits) == 1


def test_cli_search_json(
    corpus_index: OpenSearchIndex, opensearch_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    rc = main_search(
        [
            "telescope galaxy",
            "--k",
            "2",
            "--json",
            "--url",
            opensearch_url,
            "--prefix",
            corpus_index.names.prefix,
        ]
    )
    assert rc == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert 1 <= len(lines) <= 2
    assert lines[0]["citation"]["key"] == "en/space.md"
    assert {"key", "revision", "page_start", "start", "end", "heading_path", "body"} <= set(
        lines[0]["citation"]
    )
    rc = main_search(["telescope", "--url", opensearch_url, "--prefix", corpus_index.names.prefix])
    out = capsys.readouterr().out
    assert rc == 0 and "en/space.md @ v1" in out


@pytest.mark.parametrize("fusion", ["auto", "client"])
def test_query_path_only_reads_behind_a_write_refusing_proxy(
    corpus_index: OpenSearchIndex, embedder: Embedder, opensearch_url: str, fusion: str
) -> None:
    """The query role may GET/HEAD/POST only: search works through such an endpoint,
    never tries to write, and asks for the cluster's capabilities once."""
    with ReadOnlyProxy(opensearch_url) as proxy:
        s = Searcher(
            connect(proxy.url),
            embedder,
            corpus_index.names,
            fusion=fusion,  # type: ignore[arg-type]
            policy=RetryPolicy(attempts=1),
        )
        for _ in range(3):
            top = s.search("how can the renter end the contract", k=3)[0]
            assert top.citation.key == "en/lease.md"
        assert s.fusion == ("server" if fusion == "auto" else "client")
        assert proxy.log.writes() == [] and proxy.log.refused() == []
        assert len([r for r in proxy.log.requests if "_cat/plugins" in r[1]]) <= 1
        # Every request the query path made is allowed by the query role's policy in
        # template.yaml (how the domain authorises it: es:ESHttp<Method> on the path);
        # tests/deploy/calls.py lists the same calls for the deployed stack.
        policies = tp.role_policies(tp.load_template(), tp.EXISTING_DOMAIN)
        for method, path, _ in proxy.log.requests:
            action = "es:ESHttp" + method.capitalize()
            resource = f"{tp.DOMAIN_ARN}/{path.split('?', 1)[0].lstrip('/')}"
            assert evaluate(policies["QueryFunction"], action, resource) == ALLOWED, (method, path)
