"""Reranking after fusion: connector bodies, the search pipeline, and the stage itself (pure).

A reranker reads the question and each candidate passage together (a cross-encoder)
and scores the pair, which two independent retrievers cannot do. It runs after fusion
on the first ``depth`` fused candidates (20-50: what a cross-encoder can read within a
query's time budget) and reorders them; the rest keep their fused order behind them.
It is off by default: a model is only switched on where it was measured.

Two paths reach the same model, an ML Commons remote model of function ``remote``
whose connector speaks the Bedrock rerank request (``{"query", "documents",
"api_version"}``) and answers ``{"results": [{"index", "relevance_score"}]}``:

- the query function (`chunkwise.adapters.opensearch.search.Searcher`): the fused,
  filtered candidates of the documents' current revisions, scored through ML Commons'
  model's predict call with a bounded timeout; each hit keeps its fused score
  beside the rerank score (`ScoreBreakdown`). If the reranker fails or times out the
  query still answers, with the fused order, and says so (`RerankOutcome`);
- raw OpenSearch clients: the ``<prefix>-rerank`` search pipeline (`rerank_pipeline_body`),
  the same fusion plus 2.19's ``rerank`` response processor, with ``ignore_failure`` so
  that a reranker outage answers with the fused hits (on this path without a flag: the
  processor's failure is only logged by the node).

Filters (language, document, access) are clauses of both retrievers' queries
(`chunkwise.search.hybrid`), so the reranker only ever sees chunks the caller may read.

On AWS the connector calls Bedrock's InvokeModel for a rerank model (Cohere Rerank 3.5,
multilingual, or Amazon Rerank 1.0), signed with a role the domain assumes; locally it
calls chunkwise's loopback endpoint (`chunkwise.localstack.rerank_endpoint`), which answers in
Bedrock's shape, so both use ML Commons' built-in Cohere rerank pre- and post-processing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chunkwise.errors import ConfigError
from chunkwise.search.hybrid import Hit

COHERE_RERANK_35 = "cohere.rerank-v3-5:0"
AMAZON_RERANK_10 = "amazon.rerank-v1:0"
BEDROCK_RERANK_MODELS = (COHERE_RERANK_35, AMAZON_RERANK_10)
PRE_PROCESS = "connector.pre_process.cohere.rerank"
POST_PROCESS = "connector.post_process.cohere.rerank"
PIPELINE_SUFFIX = "-rerank"
RERANK_NAME_INFIX = "-rerank-"
#: The passage field the reranker reads: the cited body (what an answer quotes).
DOCUMENT_FIELD = "body"
MIN_DEPTH, MAX_DEPTH, DEFAULT_DEPTH = 20, 50, 30
#: The reranker's share of a query's time: past it the query answers fused.
DEFAULT_TIMEOUT_MS = 2000


@dataclass(frozen=True)
class RerankConfig:
    """Whether and how the query function reranks."""

    model_id: str = ""  # "" = off
    depth: int = DEFAULT_DEPTH
    timeout_ms: int = DEFAULT_TIMEOUT_MS

    def __post_init__(self) -> None:
        if not MIN_DEPTH <= self.depth <= MAX_DEPTH:
            raise ConfigError(
                f"rerank depth {self.depth}: choose {MIN_DEPTH} to {MAX_DEPTH} candidates"
            )
        if self.timeout_ms <= 0:
            raise ConfigError(f"rerank timeout {self.timeout_ms} ms: must be positive")

    @property
    def enabled(self) -> bool:
        return bool(self.model_id)


@dataclass(frozen=True)
class RerankOutcome:
    """What the rerank stage did for one query (the query function's ``rerank`` field)."""

    requested: bool
    applied: bool = False
    candidates: int = 0
    took_ms: float = 0.0
    error: str = ""  # why the fused order stands (timeout, outage, bad answer)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requested": self.requested,
            "applied": self.applied,
            "candidates": self.candidates,
            "took_ms": round(self.took_ms, 1),
            **({"error": self.error} if self.error else {}),
        }


# --------------------------------------------------------------------------- connectors


def bedrock_request_template(model: str) -> str:
    """The InvokeModel body of a Bedrock rerank model, in ML Commons' template syntax.

    ``documents`` and ``query`` come from the Cohere rerank pre-process (the candidates'
    bodies and the question); Cohere Rerank 3.5 needs ``api_version`` 2, Amazon Rerank
    takes none. ``top_n`` is left out: every candidate gets a score.
    """
    if model == COHERE_RERANK_35:
        return (
            '{ "documents": ${parameters.documents}, "query": "${parameters.query}", '
            '"api_version": 2 }'
        )
    if model == AMAZON_RERANK_10:
        return '{ "documents": ${parameters.documents}, "query": "${parameters.query}" }'
    raise ConfigError(
        f"no Bedrock rerank connector for {model!r} (choose {', '.join(BEDROCK_RERANK_MODELS)})"
    )


def _client_config(timeout_ms: int) -> dict[str, int]:
    """The connector's own HTTP limits: no retry, read bounded by the query's budget."""
    return {
        "max_connection": 20,
        "connection_timeout": min(1000, timeout_ms),
        "read_timeout": timeout_ms,
        "max_retry_times": 0,
    }


def _action(url: str, template: str) -> dict[str, Any]:
    return {
        "action_type": "predict",
        "method": "POST",
        "url": url,
        "headers": {"content-type": "application/json", "x-amz-content-sha256": "required"},
        "request_body": template,
        "pre_process_function": PRE_PROCESS,
        "post_process_function": POST_PROCESS,
    }


def bedrock_rerank_connector_body(
    model: str, *, region: str, role_arn: str, timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> dict[str, Any]:
    """Connector to a Bedrock rerank model in ``region``, signed with ``role_arn``."""
    if not region or not role_arn:
        raise ConfigError("a Bedrock rerank connector needs the region and the role to assume")
    return {
        "name": f"chunkwise bedrock rerank {model}",
        "description": f"chunkwise reranking: {model} in {region}",
        "version": 1,
        "protocol": "aws_sigv4",
        "parameters": {"region": region, "service_name": "bedrock", "model": model},
        "credential": {"roleArn": role_arn},
        "client_config": _client_config(timeout_ms),
        "actions": [
            _action(
                "https://bedrock-runtime.${parameters.region}.amazonaws.com"
                "/model/${parameters.model}/invoke",
                bedrock_request_template(model),
            )
        ],
    }


def local_rerank_connector_body(
    endpoint_url: str, scorer: str, *, timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> dict[str, Any]:
    """Connector to the loopback rerank endpoint: Cohere Rerank 3.5's request on Bedrock,
    so the local node runs exactly the template and scripts the AWS connector runs."""
    if not endpoint_url.startswith("http://127.0.0.1:"):
        raise ConfigError(f"the local connector only calls 127.0.0.1, not {endpoint_url!r}")
    return {
        "name": f"chunkwise local rerank {scorer}",
        "description": f"chunkwise loopback rerank endpoint: {scorer}",
        "version": 1,
        "protocol": "http",
        "parameters": {"endpoint": endpoint_url, "scorer": scorer},
        "credential": {"unused": "loopback endpoint, no key"},
        "client_config": _client_config(timeout_ms),
        "actions": [
            _action("${parameters.endpoint}/rerank", bedrock_request_template(COHERE_RERANK_35))
        ],
    }


def rerank_model_name(prefix: str, connector: Mapping[str, Any]) -> str:
    """One name per index prefix and connector content (found again on a second run)."""
    raw = json.dumps(connector, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return f"{prefix}{RERANK_NAME_INFIX}{hashlib.sha256(raw).hexdigest()[:12]}"


def register_rerank_body(name: str, connector_id: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "function_name": "remote",
        "description": description,
        "connector_id": connector_id,
    }


# --------------------------------------------------------------------------- pipeline


def rerank_pipeline_body(
    model_id: str, fusion: Mapping[str, Any], *, query_model_id: str = ""
) -> dict[str, Any]:
    """For raw clients: the hybrid fusion of ``fusion`` (a fusion pipeline's body), then the
    ``rerank`` response processor over the hits' ``body``.

    The question comes from the request's ``ext.rerank.query_context`` (``query_text``, or
    ``query_text_path`` into the query); ``ignore_failure`` keeps the fused hits when the
    reranker is down or slow, so a reranker outage is never a search outage.
    """
    body: dict[str, Any] = {
        "description": f"chunkwise hybrid, reranked by {model_id}",
        "phase_results_processors": list(fusion.get("phase_results_processors", [])),
        "response_processors": [
            {
                "rerank": {
                    "tag": "chunkwise-rerank",
                    "ignore_failure": True,
                    "ml_opensearch": {"model_id": model_id},
                    "context": {"document_fields": [DOCUMENT_FIELD]},
                }
            }
        ],
    }
    if query_model_id:
        body["request_processors"] = [
            {"neural_query_enricher": {"default_model_id": query_model_id}}
        ]
    return body


def rerank_pipeline_name(prefix: str) -> str:
    """The rerank pipeline of an index prefix (its model is the prefix's own)."""
    return f"{prefix}{PIPELINE_SUFFIX}"


def rerank_ext(query: str) -> dict[str, Any]:
    """The search request's ``ext`` that hands the question to the rerank processor."""
    return {"rerank": {"query_context": {"query_text": query}}}


# --------------------------------------------------------------------------- predict


def predict_body(query: str, documents: Sequence[str]) -> dict[str, Any]:
    """The remote model's predict request: the connector's own parameters (what the
    Cohere rerank pre-process makes of the processor's input), raw strings: ML Commons
    escapes them into the request template itself. (The text-similarity predict route
    is refused on clusters without local models, so the query path does not use it.)"""
    return {"parameters": {"query": query, "documents": list(documents)}}


class RerankAnswerError(ValueError):
    """The reranker's answer does not score every candidate."""


def similarity_scores(response: Mapping[str, Any], n: int) -> list[float]:
    """One score per candidate, in the candidates' order, from a predict response
    (``inference_results[0].output[i].data[0]``: the Cohere rerank post-process puts the
    scores back in document order)."""
    try:
        outputs = response["inference_results"][0]["output"]
        scores = [float(o["data"][0]) for o in outputs]
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise RerankAnswerError(f"no similarity scores in the reranker's answer: {exc}") from exc
    if len(scores) != n:
        raise RerankAnswerError(f"{len(scores)} scores for {n} candidates")
    return scores


def rerank_order(scores: Sequence[float], tie_keys: Sequence[Any]) -> list[int]:
    """Candidate positions by rerank score, best first; equal scores keep the fused
    order (``tie_keys``: the candidates' own fused positions or `tie_key` values)."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], tie_keys[i]))


# --------------------------------------------------------------------------- the stage


class RerankUnavailable(Exception):
    """The reranker did not answer in time or answered nothing usable."""


Scorer = Callable[[str, Sequence[str]], Sequence[float]]


def reranked(hits: Sequence[Hit], scores: Sequence[float]) -> list[Hit]:
    """The first ``len(scores)`` hits by rerank score (fused order breaks ties), each
    with its rerank score and fused rank beside its fused score; the rest after them
    in their fused order, unscored."""
    n = len(scores)
    order = rerank_order(scores, list(range(n)))
    head = [
        hits[i].model_copy(
            update={
                "score": hits[i].score.model_copy(
                    update={"rerank": float(scores[i]), "fused_rank": i + 1}
                )
            }
        )
        for i in order
    ]
    return [*head, *hits[n:]]


def rerank_stage(
    query: str, hits: Sequence[Hit], depth: int, score: Scorer, clock: Callable[[], float]
) -> tuple[list[Hit], RerankOutcome]:
    """Rerank the first ``depth`` fused hits with ``score``; if it raises
    `RerankUnavailable` the fused order stands and the outcome says why."""
    head = list(hits[:depth])
    if not head:
        return list(hits), RerankOutcome(requested=True, applied=True)
    t0 = clock()
    try:
        scores = list(score(query, [h.citation.body for h in head]))
        if len(scores) != len(head):
            raise RerankUnavailable(f"{len(scores)} scores for {len(head)} candidates")
    except RerankUnavailable as exc:
        took = 1000 * (clock() - t0)
        return list(hits), RerankOutcome(
            requested=True, candidates=len(head), took_ms=took, error=str(exc)[:300]
        )
    took = 1000 * (clock() - t0)
    out = reranked(list(hits), scores)
    return out, RerankOutcome(requested=True, applied=True, candidates=len(head), took_ms=took)


@dataclass(frozen=True)
class Answer:
    """One query's hits and what the rerank stage did for it."""

    hits: list[Hit]
    rerank: RerankOutcome
