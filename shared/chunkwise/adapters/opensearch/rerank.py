"""The rerank model over opensearch-py: its setup (connector, remote model, the rerank
search pipeline) and the query path's scorer (`chunkwise.search.rerank`).

Setup runs at deploy time only (the admin custom resource, `chunkwise local`, tests),
idempotent like the query model's: the model's name is derived from the connector's
content, so a second run finds it. The scorer runs on the query path: one
predict call, never retried, bounded by the configured timeout; any
failure is `RerankUnavailable`, which the stage turns into fused results with a flag.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import TransportError

from chunkwise.adapters.opensearch.query_model import (
    ML,
    QueryModelError,
    deploy,
    find_model,
    ml_call,
    wait_deployed,
    wait_task,
)
from chunkwise.search.rerank import (
    RerankAnswerError,
    RerankUnavailable,
    predict_body,
    register_rerank_body,
    rerank_model_name,
    rerank_pipeline_body,
    similarity_scores,
)

log = logging.getLogger("chunkwise.rerank")


class ClusterScorer:
    """Scores candidates with the cluster's rerank model (its ML Commons predict call)."""

    def __init__(self, client: OpenSearch, model_id: str, timeout_ms: int) -> None:
        self.client = client
        self.model_id = model_id
        self.timeout_s = timeout_ms / 1000.0

    def __call__(self, query: str, documents: Sequence[str]) -> list[float]:
        try:
            resp = self.client.transport.perform_request(
                "POST",
                f"{ML}/models/{self.model_id}/_predict",
                body=predict_body(query, documents),
                timeout=self.timeout_s,
            )
            return similarity_scores(resp, len(documents))
        except TransportError as exc:  # ML Commons refused, the connector failed or timed out
            raise RerankUnavailable(f"reranker: {exc.status_code} {_reason(exc)}") from exc
        except OSConnectionError as exc:  # includes the client's own timeout
            raise RerankUnavailable(f"reranker: {type(exc).__name__}") from exc
        except RerankAnswerError as exc:
            raise RerankUnavailable(f"reranker: {exc}") from exc


def _reason(exc: TransportError) -> str:
    info = exc.info if isinstance(exc.info, Mapping) else {}
    err = info.get("error", exc.error)
    if isinstance(err, Mapping):
        err = err.get("reason") or err.get("type") or err
    return json.dumps(err, default=str)[:200] if not isinstance(err, str) else err[:200]


def ensure_rerank_model(
    client: OpenSearch,
    prefix: str,
    connector: dict[str, Any],
    description: str,
    *,
    timeout: float = 120.0,
) -> str:
    """The id of a deployed remote rerank model behind ``connector``; registered if missing."""
    name = rerank_model_name(prefix, connector)
    found = find_model(client, name)
    if found is not None:
        model_id = str(found["model_id"])
        if found.get("model_state") != "DEPLOYED":
            deploy(client, model_id, timeout)
        return model_id
    created = ml_call(client, "POST", f"{ML}/connectors/_create", connector)
    connector_id = str(created["connector_id"])
    resp = ml_call(
        client,
        "POST",
        f"{ML}/models/_register?deploy=true",
        register_rerank_body(name, connector_id, description),
    )
    if resp.get("task_id"):
        resp = {**wait_task(client, str(resp["task_id"]), timeout), **resp}
    model_id = str(resp.get("model_id") or "")
    if not model_id:
        raise QueryModelError(f"registering {name} returned no model id: {resp}")
    wait_deployed(client, model_id, timeout)
    log.info("rerank model %s registered and deployed (connector %s)", model_id, connector_id)
    return model_id


def ensure_rerank_pipeline(
    client: OpenSearch,
    model_id: str,
    fusion: Mapping[str, Any],
    *,
    name: str,
    query_model_id: str = "",
) -> str:
    """PUT the raw clients' rerank pipeline (fusion + rerank processor); idempotent."""
    body = rerank_pipeline_body(model_id, fusion, query_model_id=query_model_id)
    ml_call(client, "PUT", f"/_search/pipeline/{name}", body)
    return name


def delete_rerank_model(client: OpenSearch, model_id: str) -> None:
    """Undeploy and delete a rerank model and its connector (throwaway stacks, tests)."""
    model = ml_call(client, "GET", f"{ML}/models/{model_id}")
    ml_call(client, "POST", f"{ML}/models/{model_id}/_undeploy")
    ml_call(client, "DELETE", f"{ML}/models/{model_id}")
    if model.get("connector_id"):
        ml_call(client, "DELETE", f"{ML}/connectors/{model['connector_id']}")
