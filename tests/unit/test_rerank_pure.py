"""The rerank stage and the Bedrock rerank connector's shapes (pure, no I/O but the
fixtures under tests/data/bedrock)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from chunkwise.errors import ConfigError
from chunkwise.localstack.rerank_endpoint import (
    BadRerankRequest,
    OverlapScorer,
    RerankRequest,
    parse_rerank_request,
    rerank_response,
)
from chunkwise.search.hybrid import hits_from_response, rrf_pipeline_body
from chunkwise.search.rerank import (
    AMAZON_RERANK_10,
    COHERE_RERANK_35,
    RerankAnswerError,
    RerankConfig,
    RerankUnavailable,
    bedrock_rerank_connector_body,
    local_rerank_connector_body,
    rerank_pipeline_body,
    rerank_stage,
    reranked,
    similarity_scores,
)

DATA = Path(__file__).resolve().parents[1] / "data" / "bedrock"


def _fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data


def _render(template: str, params: dict[str, Any]) -> Any:
    """ML Commons' substitution of ``${parameters.x}``: a string goes in as JSON string
    content (the template supplies the quotes), anything else as JSON."""

    def value(m: re.Match[str]) -> str:
        v = params[m.group(1)]
        return json.dumps(v)[1:-1] if isinstance(v, str) else json.dumps(v)

    return json.loads(re.sub(r"\$\{parameters\.(\w+)\}", value, template))


def _cohere_pre_process(query: str, docs: Sequence[str]) -> dict[str, Any]:
    """What connector.pre_process.cohere.rerank makes of a text-similarity input."""
    return {"query": query, "documents": list(docs), "top_n": len(docs)}


@pytest.mark.parametrize(
    ("model", "fixture"),
    [
        (COHERE_RERANK_35, "cohere_rerank_v35_request.json"),
        (AMAZON_RERANK_10, "amazon_rerank_v1_request.json"),
    ],
)
def test_bedrock_connector_sends_the_documented_request(model: str, fixture: str) -> None:
    expected = _fixture(fixture)
    body = bedrock_rerank_connector_body(model, region="eu-central-1", role_arn="arn:r")
    (action,) = body["actions"]
    params = _cohere_pre_process(expected["query"], expected["documents"])
    assert _render(action["request_body"], params) == expected
    assert action["url"].startswith("https://bedrock-runtime.${parameters.region}.amazonaws")
    assert body["parameters"] == {
        "region": "eu-central-1",
        "service_name": "bedrock",
        "model": model,
    }
    assert body["credential"] == {"roleArn": "arn:r"}
    assert body["client_config"]["max_retry_times"] == 0


def test_a_question_with_quotes_and_umlauts_stays_one_json_string() -> None:
    body = bedrock_rerank_connector_body(COHERE_RERANK_35, region="r", role_arn="a")
    q = 'Was heißt „Druckabfall" bei "X17"?\nZeile 2'
    out = _render(body["actions"][0]["request_body"], _cohere_pre_process(q, ["a", "b"]))
    assert out["query"] == q and out["documents"] == ["a", "b"]


def test_local_connector_runs_the_bedrock_template_against_loopback_only() -> None:
    local = local_rerank_connector_body("http://127.0.0.1:9405", "overlap")
    aws = bedrock_rerank_connector_body(COHERE_RERANK_35, region="r", role_arn="a")
    keys = ("request_body", "pre_process_function", "post_process_function")
    assert {k: local["actions"][0][k] for k in keys} == {k: aws["actions"][0][k] for k in keys}
    with pytest.raises(ConfigError):
        local_rerank_connector_body("http://10.0.0.1:9405", "overlap")
    with pytest.raises(ConfigError):
        bedrock_rerank_connector_body("cohere.rerank-v2", region="r", role_arn="a")


class _Replay:
    """Scores read back from a recorded Bedrock answer (by document index)."""

    name = "replay"

    def __init__(self, answer: dict[str, Any]) -> None:
        self.by_index = {r["index"]: r["relevance_score"] for r in answer["results"]}

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        return [self.by_index[i] for i in range(len(documents))]


@pytest.mark.parametrize("name", ["cohere_rerank_v35", "amazon_rerank_v1"])
def test_loopback_endpoint_answers_in_bedrock_shape(name: str) -> None:
    answer = _fixture(f"{name}_response.json")
    request = _fixture("cohere_rerank_v35_request.json")
    req = parse_rerank_request(json.dumps(request).encode())
    out = rerank_response(_Replay(answer), req)
    assert out["results"] == answer["results"]  # same order, same indices, same scores
    top1 = rerank_response(_Replay(answer), RerankRequest(req.query, req.documents, 1))
    assert top1["results"] == answer["results"][:1]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"query": "q", "documents": ["a"]}, "api_version"),
        ({"query": "", "documents": ["a"], "api_version": 2}, "query"),
        ({"query": "q", "documents": [], "api_version": 2}, "documents"),
        ({"query": "q", "documents": [1], "api_version": 2}, "documents"),
        ({"query": "q", "documents": ["a"], "api_version": 2, "top_n": 0}, "top_n"),
        ({"query": "q", "documents": ["a"], "api_version": 2, "model": "x"}, "unknown"),
    ],
)
def test_endpoint_refuses_what_bedrock_would(body: dict[str, Any], field: str) -> None:
    with pytest.raises(BadRerankRequest, match=field):
        parse_rerank_request(json.dumps(body).encode())


def test_overlap_scorer_prefers_the_passage_sharing_the_question_words() -> None:
    s = OverlapScorer().score(
        "Wie oft ist der Einlassfilter zu prüfen?",
        ["Die Miete ist am dritten Werktag fällig.", "Den Einlassfilter alle 250 h prüfen."],
    )
    assert s[1] > s[0]


def test_similarity_scores_in_candidate_order_or_a_clear_error() -> None:
    resp = {"inference_results": [{"output": [{"data": [0.2]}, {"data": [0.9]}]}]}
    assert similarity_scores(resp, 2) == [0.2, 0.9]
    with pytest.raises(RerankAnswerError, match="1 scores for 2"):
        similarity_scores({"inference_results": [{"output": [{"data": [0.2]}]}]}, 2)
    with pytest.raises(RerankAnswerError):
        similarity_scores({"error": "x"}, 2)


def _hits(n: int) -> list[Any]:
    raws = [
        {
            "_id": f"h{i}",
            "_score": 1.0 / (i + 1),
            "_source": {"doc_id": f"d{i}", "chunk_index": 0, "body": f"passage {i}"},
        }
        for i in range(n)
    ]
    return hits_from_response({"hits": {"hits": raws}}, "rrf-server")


def test_reranked_reorders_the_head_and_keeps_fused_scores_beside() -> None:
    hits = _hits(4)
    out = reranked(hits, [0.1, 0.9, 0.1])  # depth 3: h3 stays behind, unscored
    assert [h.id for h in out] == ["h1", "h0", "h2", "h3"]  # tie h0/h2: fused order
    assert out[0].score.rerank == 0.9 and out[0].score.fused_rank == 2
    assert out[0].score.fused == hits[1].score.fused
    assert out[3].score.rerank is None and out[3].score.fused_rank is None


def test_stage_keeps_the_fused_order_and_says_why_when_the_reranker_fails() -> None:
    hits = _hits(3)

    def down(query: str, docs: Sequence[str]) -> list[float]:
        raise RerankUnavailable("reranker: ConnectionTimeout")

    out, outcome = rerank_stage("q", hits, 20, down, iter([0.0, 0.25]).__next__)
    assert [h.id for h in out] == ["h0", "h1", "h2"]
    assert not outcome.applied and outcome.error == "reranker: ConnectionTimeout"
    assert outcome.as_dict()["took_ms"] == 250.0
    out, outcome = rerank_stage("q", hits, 20, lambda q, d: [1.0], iter([0.0, 0.1]).__next__)
    assert not outcome.applied and "1 scores for 3" in outcome.error
    out, outcome = rerank_stage("q", hits, 2, lambda q, d: [0.0, 1.0], iter([0.0, 0.1]).__next__)
    assert outcome.applied and outcome.candidates == 2 and [h.id for h in out][:2] == ["h1", "h0"]


def test_depth_is_bounded_and_rerank_is_off_without_a_model() -> None:
    assert not RerankConfig().enabled and RerankConfig(model_id="m").enabled
    for bad in (19, 51):
        with pytest.raises(ConfigError):
            RerankConfig(model_id="m", depth=bad)


def test_pipeline_fuses_then_reranks_the_body_and_survives_a_reranker_outage() -> None:
    body = rerank_pipeline_body("m1", rrf_pipeline_body(), query_model_id="q1")
    assert body["phase_results_processors"] == rrf_pipeline_body()["phase_results_processors"]
    (proc,) = body["response_processors"]
    assert proc["rerank"]["ignore_failure"] is True
    assert proc["rerank"]["ml_opensearch"] == {"model_id": "m1"}
    assert proc["rerank"]["context"] == {"document_fields": ["body"]}
    assert body["request_processors"] == [{"neural_query_enricher": {"default_model_id": "q1"}}]
