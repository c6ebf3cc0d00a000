"""The cluster's query model: connector, pipeline and request bodies (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chunkwise.embedding.embed import query_prefix
from chunkwise.errors import ConfigError
from chunkwise.localstack.embed_endpoint import BadRequest, embed_response, parse_embed_request
from chunkwise.search.fusion import parse_fusion
from chunkwise.search.hybrid import SearchFilters, hybrid_query, hybrid_text_query, neural_query
from chunkwise.search.query_model import (
    COHERE_MULTI_V3,
    TITAN_V2,
    QueryModelSpec,
    attach_check,
    bedrock_connector_body,
    default_pipeline_body,
    local_connector_body,
    model_name,
    pipeline_name,
)

E5 = QueryModelSpec("intfloat/multilingual-e5-small", 384, "query: ")
URL = "http://127.0.0.1:9400"


def _render(template: str, **params: str) -> Any:
    """Fill a connector template the way ML Commons does (string substitution)."""
    for k, v in params.items():
        template = template.replace("${parameters." + k + "}", v)
    return json.loads(template)


def test_local_connector_sends_the_model_query_prefix() -> None:
    body = local_connector_body(E5, URL)
    action = body["actions"][0]
    assert body["parameters"] == {
        "endpoint": URL,
        "model": E5.embedder,
        "query_prefix": "query: ",
    }
    sent = _render(
        action["request_body"], query_prefix=body["parameters"]["query_prefix"], texts='["x"]'
    )
    assert sent == {"prefix": "query: ", "texts": ["x"]}
    assert action["url"] == "${parameters.endpoint}/embed"


def test_local_connector_calls_loopback_only() -> None:
    with pytest.raises(ConfigError, match=r"127\.0\.0\.1"):
        local_connector_body(E5, "http://10.0.0.5:9400")


def test_model_name_follows_the_connector_content() -> None:
    a = local_connector_body(E5, URL)
    same = local_connector_body(E5, URL)
    other_port = local_connector_body(E5, "http://127.0.0.1:9401")
    other_prefix = local_connector_body(QueryModelSpec(E5.embedder, 384, ""), URL)
    assert model_name("chunks", a) == model_name("chunks", same)
    names = {model_name("chunks", c) for c in (a, other_port, other_prefix)}
    assert len(names) == 3
    assert model_name("chunks", a) != model_name("other", a)


def test_titan_connector_asks_for_the_ingestion_dimensions_normalised() -> None:
    body = bedrock_connector_body(
        TITAN_V2, 512, region="eu-central-1", role_arn="arn:aws:iam::1:role/r"
    )
    action = body["actions"][0]
    assert body["protocol"] == "aws_sigv4"
    assert body["credential"] == {"roleArn": "arn:aws:iam::1:role/r"}
    sent = _render(action["request_body"], inputText="hello")
    # chunkwise.adapters.bedrock.TitanV2Embedder sends exactly these fields.
    assert sent == {"inputText": "hello", "dimensions": 512, "normalize": True}
    assert action["pre_process_function"] == "connector.pre_process.bedrock.embedding"
    assert "/model/${parameters.model}/invoke" in action["url"]
    assert body["parameters"]["model"] == TITAN_V2


def test_cohere_connector_embeds_as_search_query() -> None:
    body = bedrock_connector_body(COHERE_MULTI_V3, 1024, region="us-east-1", role_arn="arn:r")
    sent = _render(body["actions"][0]["request_body"], texts='["wie oft"]')
    assert sent == {"texts": ["wie oft"], "input_type": "search_query", "truncate": "NONE"}
    with pytest.raises(ConfigError):
        bedrock_connector_body(COHERE_MULTI_V3, 512, region="us-east-1", role_arn="arn:r")
    with pytest.raises(ConfigError):
        bedrock_connector_body("amazon.titan-embed-text-v1", 1536, region="x", role_arn="y")


def test_default_pipeline_names_the_model_and_fuses_by_the_default_spec() -> None:
    body = default_pipeline_body("AbC123")
    assert body["request_processors"] == [{"neural_query_enricher": {"default_model_id": "AbC123"}}]
    norm = body["phase_results_processors"][0]["normalization-processor"]
    assert norm["normalization"] == {"technique": "min_max"}
    assert norm["combination"] == {
        "technique": "arithmetic_mean",
        "parameters": {"weights": [0.7, 0.3]},
    }
    rrf = default_pipeline_body("AbC123", parse_fusion("rrf:60"))["phase_results_processors"][0]
    combination = rrf["score-ranker-processor"]["combination"]
    assert combination == {"technique": "rrf", "parameters": {"rank_constant": 60}}
    assert pipeline_name("AbC123") == "chunkwise-query-abc123"


def test_a_model_only_serves_a_generation_of_its_own_embedder() -> None:
    attach_check({"embedder": E5.embedder, "dimension": 384}, E5)
    with pytest.raises(ConfigError, match="new generation"):
        attach_check({"embedder": "sentence-transformers/all-MiniLM-L6-v2", "dimension": 384}, E5)
    with pytest.raises(ConfigError):
        attach_check({"embedder": E5.embedder, "dimension": 768}, E5)


def test_cluster_embedded_hybrid_is_the_client_one_with_query_text() -> None:
    f = SearchFilters(langs=("de",))
    with_vector = hybrid_query("Filter", [0.1, 0.2], 20, f, lang="de")
    with_text = hybrid_text_query("Filter", 20, f, lang="de")
    lexical, knn = with_vector["query"]["hybrid"]["queries"]
    lexical2, neural = with_text["query"]["hybrid"]["queries"]
    assert lexical == lexical2
    assert neural["neural"]["embedding"] == {
        "query_text": "Filter",
        "k": 20,
        "filter": knn["knn"]["embedding"]["filter"],
    }
    named = neural_query("Filter", 7, f, model_id="m1")["query"]["neural"]["embedding"]
    assert named["model_id"] == "m1" and named["k"] == 7


class _Encoder:
    name = "fake"
    dimension = 2
    query_prefix = "query: "

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed_query(self, text: str) -> list[float]:
        self.seen.append(text)
        return [float(len(self.query_prefix + text)), 1.0]


def test_endpoint_answers_with_the_model_query_vectors() -> None:
    enc = _Encoder()
    prefix, texts = parse_embed_request(b'{"texts": ["a", "bc"], "prefix": "query: "}')
    out = embed_response(enc, prefix, texts)
    assert enc.seen == ["a", "bc"]  # embed_query adds the prefix itself
    assert out["embeddings"] == [[8.0, 1.0], [9.0, 1.0]]
    assert out["model"] == "fake" and out["query_prefix"] == "query: "


def test_endpoint_refuses_a_connector_built_for_another_prefix() -> None:
    with pytest.raises(BadRequest, match="expects 'query: '"):
        embed_response(_Encoder(), "", ["a"])


@pytest.mark.parametrize(
    "body",
    [b"not json", b"[]", b'{"texts": []}', b'{"texts": [1]}', b'{"texts": ["a"], "prefix": 3}'],
)
def test_endpoint_rejects_what_is_not_an_embedding_request(body: bytes) -> None:
    with pytest.raises(BadRequest):
        parse_embed_request(body)


def test_query_prefix_of_an_embedder_without_one_is_empty() -> None:
    class Plain:
        pass

    assert query_prefix(Plain()) == ""
    assert query_prefix(_Encoder()) == "query: "


def test_a_registered_model_says_which_embedder_it_serves() -> None:
    from chunkwise.search.query_model import register_model_body, serves, spec_of

    body = register_model_body("chunks-query-abc", "conn-1", E5)
    assert spec_of(body["description"]) == E5
    assert spec_of("registered by hand") is None
    assert serves({"embedder": E5.embedder, "dimension": 384}, E5)
    assert not serves({"embedder": E5.embedder, "dimension": 1024}, E5)


def test_a_serverless_collection_gets_no_query_model_on_rechunk() -> None:
    from chunkwise.settings import Settings
    from chunkwise.wiring import attach_query_model_to

    class NoCalls:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"serverless: no {name} call expected")

    settings = Settings(opensearch_auth="sigv4-aoss", index_prefix="chunks")
    assert attach_query_model_to(settings, "g2", _Encoder(), NoCalls()) == ""  # type: ignore[arg-type]
