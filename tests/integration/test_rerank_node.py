"""The rerank stage on the real node: ML Commons remote model -> loopback rerank endpoint.

Both paths of #29: the query function's Searcher (fused candidates of current revisions,
then the reranker, fused scores kept) and a raw client through the ``<prefix>-rerank``
search pipeline (fusion + the ``rerank`` response processor). The endpoint runs in this
process with a scorer whose preference is known (it likes one marker word), so a
reranked order is told from a fused one; then it is stopped (an outage) or made slow
(a timeout): the query still answers with the fused order and says so.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.rerank import delete_rerank_model
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.embedding.embed import Embedder
from chunkwise.index.names import make_doc_id
from chunkwise.index.versions import ObjectVersion
from chunkwise.localstack.rerank_endpoint import RunningServer, start_in_thread
from chunkwise.search.fusion import DEFAULT_FUSION
from chunkwise.search.hybrid import SOURCE_EXCLUDES, SearchFilters, bm25_clause, knn_clause
from chunkwise.search.rerank import (
    COHERE_RERANK_35,
    RerankConfig,
    bedrock_rerank_connector_body,
    rerank_ext,
)
from chunkwise.settings import Settings
from chunkwise.wiring import setup_local_rerank
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.conftest import OsHttp
from tests.integration.live_index import live_test_index, switch_to_current

pytestmark = pytest.mark.integration

BUCKET = "bucket"
MARKER = "zeolite"  # the scorer's favourite word: in one passage that fusion ranks low
PARAGRAPHS = [
    "Check the inlet filter of the X17 pump every 250 operating hours.",
    "The inlet filter of the X17 pump is a mesh cartridge behind the inlet flange.",
    "A clogged inlet filter shows as a pressure drop at the outlet gauge of the pump.",
    "Replace the shaft seal when water drips from the housing.",
    f"Spare filter cartridges contain {MARKER} granules; order them by part number.",
    "Store the pump frost-free; drain it before winter.",
]
QUESTION = "How often must the inlet filter of the X17 pump be checked?"


class MarkerScorer:
    """1 for a passage holding MARKER, else a little less for each earlier passage:
    the reranked order is known in advance. ``delay``: seconds before answering."""

    name = "marker"

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.calls = 0

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        self.calls += 1
        time.sleep(self.delay)
        return [1.0 if MARKER in d else 0.5 - 0.01 * i for i, d in enumerate(documents)]


@pytest.fixture(scope="module")
def index(client: OpenSearch, embedder: Embedder) -> Iterator[OpenSearchIndex]:
    with live_test_index(client, embedder, "it-rerank") as ix:
        s3 = FakeBucket(BUCKET)
        key = "en/x17.md"
        doc = make_doc_id(BUCKET, key)
        s3.put_version(key, "v1", "2025-01-01T00:00:00Z")

        def load(v: ObjectVersion) -> Any:
            return chunks_from_paragraphs(doc, v, PARAGRAPHS, heading="Maintenance")

        switch_to_current(key, doc, s3=s3, index=ix, load_chunks=load, embed=embedder.embed)
        yield ix


class Reranker:
    """A loopback endpoint, the rerank model the node calls it through, its pipeline."""

    def __init__(
        self, client: OpenSearch, ix: OpenSearchIndex, url: str, scorer: MarkerScorer, ms: int
    ) -> None:
        self.scorer = scorer
        self.endpoint: RunningServer = start_in_thread(scorer)
        settings = Settings(opensearch_url=url, index_prefix=ix.names.prefix, rerank_timeout_ms=ms)
        self.info = setup_local_rerank(
            settings, self.endpoint.url, scorer=f"marker-{ms}", client=client
        )
        self.config = RerankConfig(model_id=self.info["rerank_model_id"], depth=20, timeout_ms=ms)


@pytest.fixture(scope="module")
def reranker(client: OpenSearch, index: OpenSearchIndex, opensearch_url: str) -> Iterator[Reranker]:
    r = Reranker(client, index, opensearch_url, MarkerScorer(), 2000)
    try:
        yield r
    finally:
        r.endpoint.stop()
        delete_rerank_model(client, r.info["rerank_model_id"])
        client.transport.perform_request("DELETE", f"/_search/pipeline/{r.info['rerank_pipeline']}")


def _searcher(ix: OpenSearchIndex, embedder: Embedder, config: RerankConfig | None) -> Searcher:
    return Searcher(ix.client, embedder, ix.names, fusion="server", rerank=config)


def test_searcher_reranks_the_fused_candidates_and_keeps_the_fused_scores(
    index: OpenSearchIndex, embedder: Embedder, reranker: Reranker
) -> None:
    fused = _searcher(index, embedder, None).answer(QUESTION, 3)
    assert MARKER not in fused.hits[0].citation.body  # fusion does not put it first
    answer = _searcher(index, embedder, reranker.config).answer(QUESTION, 3)
    assert answer.rerank.applied and not answer.rerank.error, answer.rerank
    assert answer.rerank.candidates == len(PARAGRAPHS)
    top = answer.hits[0]
    assert MARKER in top.citation.body
    assert top.score.rerank == pytest.approx(1.0)
    assert top.score.fused > 0 and top.score.fused_rank is not None and top.score.fused_rank > 1
    # the rest keep the fused order among themselves (the scorer's ties follow it)
    rest = [h.id for h in answer.hits[1:]]
    assert rest == [h.id for h in fused.hits if MARKER not in h.citation.body][:2]
    # per query off: the fused answer, nothing asked of the reranker
    calls = reranker.scorer.calls
    off = _searcher(index, embedder, reranker.config).answer(QUESTION, 3, rerank=False)
    assert [h.id for h in off.hits] == [h.id for h in fused.hits] and not off.rerank.requested
    assert reranker.scorer.calls == calls


def _raw_hybrid(embedder: Embedder) -> dict[str, Any]:
    f = SearchFilters()
    return {
        "size": 20,
        "_source": {"excludes": SOURCE_EXCLUDES},
        "query": {
            "hybrid": {
                "queries": [
                    {"bool": {"must": [bm25_clause(QUESTION, "en")], "filter": f.clauses()}},
                    knn_clause(embedder.embed_query(QUESTION), 20, f),
                ]
            }
        },
        "ext": rerank_ext(QUESTION),
    }


def test_a_raw_client_query_gets_reranked_hits_through_the_pipeline(
    index: OpenSearchIndex, embedder: Embedder, reranker: Reranker, os_http: OsHttp
) -> None:
    alias, pipeline = index.names.read_alias, reranker.info["rerank_pipeline"]
    resp = os_http("POST", f"/{alias}/_search?search_pipeline={pipeline}", _raw_hybrid(embedder))
    hits = resp["hits"]["hits"]
    assert MARKER in hits[0]["_source"]["body"], hits[0]
    assert hits[0]["_score"] == pytest.approx(1.0)
    # without the rerank pipeline (the generation's fusion only) the marker is not first
    plain = _raw_hybrid(embedder)
    del plain["ext"]
    fusion = DEFAULT_FUSION.pipeline_name
    fused = os_http("POST", f"/{alias}/_search?search_pipeline={fusion}", plain)
    assert MARKER not in fused["hits"]["hits"][0]["_source"]["body"]


def test_reranker_down_answers_fused_with_the_flag_on_both_paths(
    client: OpenSearch,
    index: OpenSearchIndex,
    embedder: Embedder,
    opensearch_url: str,
    os_http: OsHttp,
) -> None:
    down = Reranker(client, index, opensearch_url, MarkerScorer(), 2000)
    try:
        down.endpoint.stop()  # the endpoint the model calls is gone
        fused = _searcher(index, embedder, None).answer(QUESTION, 3)
        answer = _searcher(index, embedder, down.config).answer(QUESTION, 3)
        assert [h.id for h in answer.hits] == [h.id for h in fused.hits]
        assert answer.rerank.requested and not answer.rerank.applied
        assert answer.rerank.error.startswith("reranker:"), answer.rerank
        assert all(h.score.rerank is None for h in answer.hits)
        # a raw client: still 200 and the fused hits (ignore_failure)
        alias, pipeline = index.names.read_alias, down.info["rerank_pipeline"]
        path = f"/{alias}/_search?search_pipeline={pipeline}"
        resp = os_http("POST", path, _raw_hybrid(embedder))
        assert MARKER not in resp["hits"]["hits"][0]["_source"]["body"]
        # the generation's fusion alone, hit for hit and score for score (the fused
        # scores of min-max can reach 1.0 too, so no threshold tells them apart)
        plain = _raw_hybrid(embedder)
        del plain["ext"]
        fusion = DEFAULT_FUSION.pipeline_name
        alone = os_http("POST", f"/{alias}/_search?search_pipeline={fusion}", plain)
        assert [(h["_id"], h["_score"]) for h in resp["hits"]["hits"]] == [
            (h["_id"], h["_score"]) for h in alone["hits"]["hits"]
        ]
    finally:
        delete_rerank_model(client, down.info["rerank_model_id"])


def test_a_slow_reranker_is_cut_off_by_the_timeout(
    client: OpenSearch, index: OpenSearchIndex, embedder: Embedder, opensearch_url: str
) -> None:
    slow = Reranker(client, index, opensearch_url, MarkerScorer(delay=4.0), 600)
    try:
        searcher = _searcher(index, embedder, slow.config)
        searcher.answer(QUESTION, 3, rerank=False)  # capabilities and model check first
        t0 = time.perf_counter()
        answer = searcher.answer(QUESTION, 3)
        elapsed = time.perf_counter() - t0
        assert not answer.rerank.applied and answer.rerank.error, answer.rerank
        assert elapsed < 2.5, elapsed  # bounded by the 0.6 s budget, not the 4 s scorer
        assert answer.rerank.took_ms < 2000
    finally:
        slow.endpoint.stop()
        delete_rerank_model(client, slow.info["rerank_model_id"])


def test_ml_commons_accepts_the_bedrock_rerank_connector(os_http: OsHttp) -> None:
    """ML Commons 2.19's validation of the connector's action (URL, template, built-in
    scripts). A ``roleArn`` credential is the managed domain's form; a self-managed node
    asks for keys, so only the credential is swapped (nothing here calls Bedrock)."""
    body = bedrock_rerank_connector_body(
        COHERE_RERANK_35,
        region="eu-central-1",
        role_arn="arn:aws:iam::123456789012:role/chunkwise-rerank-connector",
    )
    body["credential"] = {"access_key": "AKIDEXAMPLE", "secret_key": "not-a-secret"}
    # The local node trusts loopback connectors only; Bedrock's URL is trusted for the
    # creation (what a managed domain trusts), then the setting is put back.
    key = "plugins.ml_commons.trusted_connector_endpoints_regex"
    current = os_http("GET", f"/_cluster/settings?include_defaults=true&filter_path=**.{key}")
    trusted = _flat(current, key)
    bedrock = r"^https://bedrock-runtime\..*[a-z0-9-]\.amazonaws\.com/.*$"
    os_http("PUT", "/_cluster/settings", {"transient": {key: [*trusted, bedrock]}})
    try:
        created = os_http("POST", "/_plugins/_ml/connectors/_create", body)
    finally:
        os_http("PUT", "/_cluster/settings", {"transient": {key: None}})
    try:
        got = os_http("GET", f"/_plugins/_ml/connectors/{created['connector_id']}")
        (action,) = got["actions"]
        assert action["pre_process_function"] == "connector.pre_process.cohere.rerank"
        assert action["request_body"] == body["actions"][0]["request_body"]
    finally:
        os_http("DELETE", f"/_plugins/_ml/connectors/{created['connector_id']}")


def _flat(settings: dict[str, Any], key: str) -> list[str]:
    """The value of a dotted setting in any section of a cluster-settings answer."""
    for section in settings.values():
        node: Any = section
        for part in key.split("."):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        if isinstance(node, list):
            return [str(x) for x in node]
    return []
