"""The OpenSearch node that chunkwise runs against: version, plugins, k-NN and hybrid search.

Runs against the node from ``make opensearch-up`` or any cluster named by OPENSEARCH_URL.
Vectors always use ``engine: lucene`` (the Maven k-NN zip has no native faiss/nmslib libs).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# The os_http fixture from conftest.py: os_http(method, path, body=None, *, ndjson=None, ok=...).
OsHttp = Callable[..., Any]

pytestmark = pytest.mark.integration

DIM = 4
# id -> (text, vector). Query vector below is closest to "b", then "a"; "c"/"d" are orthogonal.
DOCS: dict[str, tuple[str, list[float]]] = {
    "a": ("apple pie with a buttery crust", [1.0, 0.0, 0.0, 0.0]),
    "b": ("apple orchard", [0.0, 1.0, 0.0, 0.0]),
    "c": ("banana bread", [0.0, 0.0, 1.0, 0.0]),
    "d": ("cherry tart", [0.0, 0.0, 0.0, 1.0]),
}
QUERY_VECTOR = [0.1, 1.0, 0.0, 0.0]


def _unique(prefix: str) -> str:
    return f"chunkwise-test-{prefix}-{uuid.uuid4().hex[:10]}"


def _ids(result: dict[str, Any]) -> list[str]:
    return [hit["_id"] for hit in result["hits"]["hits"]]


@pytest.fixture
def knn_index(os_http: OsHttp) -> Iterator[str]:
    """A fresh k-NN index (lucene HNSW, cosine) holding DOCS; deleted afterwards."""
    name = _unique("knn")
    os_http(
        "PUT",
        f"/{name}",
        {
            "settings": {"index": {"knn": True, "number_of_shards": 1, "number_of_replicas": 0}},
            "mappings": {
                "properties": {
                    "text": {"type": "text"},
                    "embedding": {
                        "type": "knn_vector",
                        "dimension": DIM,
                        "method": {
                            "name": "hnsw",
                            "engine": "lucene",
                            "space_type": "cosinesimil",
                        },
                    },
                }
            },
        },
    )
    try:
        lines: list[Any] = []
        for doc_id, (text, vector) in DOCS.items():
            lines.append({"index": {"_index": name, "_id": doc_id}})
            lines.append({"text": text, "embedding": vector})
        result = os_http("POST", "/_bulk?refresh=true", ndjson=lines)
        assert result["errors"] is False, result
        yield name
    finally:
        os_http("DELETE", f"/{name}", ok=(200, 404))


@pytest.fixture
def search_pipeline(os_http: OsHttp) -> Iterator[Any]:
    """``make(body) -> name``: creates search pipelines, deletes them afterwards."""
    created: list[str] = []

    def make(body: dict[str, Any]) -> str:
        name = _unique("pipeline")
        os_http("PUT", f"/_search/pipeline/{name}", body)
        created.append(name)
        return name

    yield make
    for name in created:
        os_http("DELETE", f"/_search/pipeline/{name}", ok=(200, 404))


def _plugins(os_http: OsHttp) -> set[str]:
    rows = os_http("GET", "/_cat/plugins?format=json")
    return {row["component"] for row in rows}


def test_root_reports_version(os_http: OsHttp) -> None:
    info = os_http("GET", "/")
    version = info["version"]
    assert version.get("distribution") == "opensearch", info
    assert re.fullmatch(r"\d+\.\d+\.\d+", version["number"]), info


def test_plugins_include_knn_and_neural_search(os_http: OsHttp) -> None:
    plugins = _plugins(os_http)
    assert "opensearch-knn" in plugins, plugins
    assert "opensearch-neural-search" in plugins, plugins
    # ML Commons (remote models for neural queries with query_text) and what it extends.
    assert {"opensearch-ml", "opensearch-job-scheduler"} <= plugins, plugins


def test_ml_commons_trusts_only_loopback_connectors(os_http: OsHttp) -> None:
    if os_http("GET", "/")["name"] != "chunkwise-local":
        pytest.skip("settings of the local node (tools/opensearch/opensearch.sh) only")
    flat = os_http("GET", "/_cluster/settings?include_defaults=true&flat_settings=true")
    merged = {**flat["defaults"], **flat["persistent"], **flat["transient"]}
    trusted = merged["plugins.ml_commons.trusted_connector_endpoints_regex"]
    assert trusted == ["^http://127\\.0\\.0\\.1:[0-9]+/.*$"], trusted
    assert merged["plugins.ml_commons.connector.private_ip_enabled"] == "true"


def test_a_node_has_the_ingest_role(os_http: OsHttp) -> None:
    nodes = os_http("GET", "/_nodes/_local")["nodes"]
    roles = {role for node in nodes.values() for role in node["roles"]}
    assert "ingest" in roles, roles


def test_knn_query_returns_the_nearest_neighbour(os_http: OsHttp, knn_index: str) -> None:
    mapping = os_http("GET", f"/{knn_index}/_mapping")[knn_index]["mappings"]
    assert mapping["properties"]["embedding"]["method"]["engine"] == "lucene"

    result = os_http(
        "POST",
        f"/{knn_index}/_search",
        {
            "size": 2,
            "_source": False,
            "query": {"knn": {"embedding": {"vector": QUERY_VECTOR, "k": 2}}},
        },
    )
    assert _ids(result) == ["b", "a"], result
    # cosinesimil on the lucene engine scores (1 + cos) / 2.
    top = result["hits"]["hits"][0]["_score"]
    assert top == pytest.approx((1 + 1.0 / (1.01**0.5)) / 2, abs=1e-4), result


def _hybrid_query() -> dict[str, Any]:
    return {
        "size": 10,
        "_source": False,
        "query": {
            "hybrid": {
                "queries": [
                    {"match": {"text": "apple"}},
                    {"knn": {"embedding": {"vector": QUERY_VECTOR, "k": 3}}},
                ]
            }
        },
    }


def test_hybrid_query_with_normalization_processor(
    os_http: OsHttp, knn_index: str, search_pipeline: Any
) -> None:
    pipeline = search_pipeline(
        {
            "description": "chunkwise test: min-max + weighted arithmetic mean",
            "phase_results_processors": [
                {
                    "normalization-processor": {
                        "normalization": {"technique": "min_max"},
                        "combination": {
                            "technique": "arithmetic_mean",
                            "parameters": {"weights": [0.4, 0.6]},
                        },
                    }
                }
            ],
        }
    )
    result = os_http("POST", f"/{knn_index}/_search?search_pipeline={pipeline}", _hybrid_query())
    ids = _ids(result)
    # "b" tops both sub-queries, "a" is second in both; "c" only comes from the knn side
    # (k=3), which shows the results of the two sub-queries were fused.
    assert ids[:2] == ["b", "a"], result
    assert "c" in ids or "d" in ids, result
    scores = [hit["_score"] for hit in result["hits"]["hits"]]
    assert scores == sorted(scores, reverse=True), result
    assert scores[0] == pytest.approx(1.0, abs=1e-3), result


def test_hybrid_query_with_rrf_score_ranker(
    os_http: OsHttp, knn_index: str, search_pipeline: Any
) -> None:
    pipeline = search_pipeline(
        {
            "description": "chunkwise test: reciprocal rank fusion",
            "phase_results_processors": [
                {
                    "score-ranker-processor": {
                        "combination": {"technique": "rrf", "rank_constant": 60}
                    }
                }
            ],
        }
    )
    result = os_http("POST", f"/{knn_index}/_search?search_pipeline={pipeline}", _hybrid_query())
    hits = result["hits"]["hits"]
    assert [h["_id"] for h in hits[:2]] == ["b", "a"], result
    # RRF: rank 1 in both lists -> 2/(60+1); rank 2 in both -> 2/(60+2).
    assert hits[0]["_score"] == pytest.approx(2 / 61, rel=1e-4), result
    assert hits[1]["_score"] == pytest.approx(2 / 62, rel=1e-4), result


def test_rrf_rank_constant_is_read_from_parameters_only(
    os_http: OsHttp, knn_index: str, search_pipeline: Any
) -> None:
    """Where the rank constant goes: under ``combination.parameters`` it is used; directly
    in ``combination`` neural-search 2.19 ignores it and fuses with 60 (what chunkwise's
    pipelines did before, harmless only because they asked for 60)."""
    from chunkwise.search.fusion import parse_fusion

    used = search_pipeline(parse_fusion("rrf:10").pipeline_body())
    hits = os_http("POST", f"/{knn_index}/_search?search_pipeline={used}", _hybrid_query())
    assert hits["hits"]["hits"][0]["_score"] == pytest.approx(2 / 11, rel=1e-4), hits
    misplaced = {"combination": {"technique": "rrf", "rank_constant": 10}}
    ignored = search_pipeline(
        {"phase_results_processors": [{"score-ranker-processor": misplaced}]}
    )
    hits = os_http("POST", f"/{knn_index}/_search?search_pipeline={ignored}", _hybrid_query())
    assert hits["hits"]["hits"][0]["_score"] == pytest.approx(2 / 61, rel=1e-4), hits
