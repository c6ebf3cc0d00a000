"""ML Commons over opensearch-py: connector, remote model, default search pipeline.

Used at setup time only (the admin custom resource on AWS, `chunkwise local up`
locally), never on the query path. Idempotent: the model's name is derived from the
connector's content (`chunkwise.search.query_model.model_name`), so a second run finds the
model of the first and only deploys it again if the cluster undeployed it.
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import NotFoundError

from chunkwise.adapters.opensearch.retries import RetryPolicy, with_retries
from chunkwise.errors import ChunkwiseError
from chunkwise.search.query_model import (
    MODEL_NAME_INFIX,
    QueryModelSpec,
    attach_check,
    default_pipeline_body,
    model_name,
    pipeline_name,
    register_model_body,
    spec_of,
)

log = logging.getLogger("chunkwise.query_model")

ML = "/_plugins/_ml"


class QueryModelError(ChunkwiseError):
    """ML Commons refused or did not finish a setup step."""


def ml_call(
    client: OpenSearch, method: str, path: str, body: Any = None, policy: RetryPolicy | None = None
) -> Any:
    pol = policy or RetryPolicy(attempts=3)
    return with_retries(
        pol, f"{method} {path}", lambda: client.transport.perform_request(method, path, body=body)
    )


def find_model(client: OpenSearch, name: str) -> dict[str, Any] | None:
    """The registered model called ``name`` (its newest version), or None."""
    body = {
        "size": 1,
        "query": {
            "bool": {
                "must": [{"term": {"name.keyword": name}}],
                # Model chunks (weights of local models) are documents of the same index.
                "must_not": [{"exists": {"field": "chunk_number"}}],
            }
        },
        "sort": [{"created_time": {"order": "desc"}}],
    }
    try:
        resp = ml_call(client, "POST", f"{ML}/models/_search", body)
    except NotFoundError:  # no model registered yet: the ML index does not exist
        return None
    hits = resp.get("hits", {}).get("hits", [])
    if not hits:
        return None
    return {"model_id": hits[0]["_id"], **hits[0]["_source"]}


def _models_of(client: OpenSearch, prefix: str) -> list[dict[str, Any]]:
    body = {
        "size": 100,
        "query": {"prefix": {"name.keyword": f"{prefix}{MODEL_NAME_INFIX}"}},
        "sort": [{"created_time": {"order": "desc"}}],
    }
    try:
        resp = ml_call(client, "POST", f"{ML}/models/_search", body)
    except NotFoundError:
        return []
    return [{"model_id": h["_id"], **h["_source"]} for h in resp.get("hits", {}).get("hits", [])]


def find_model_for(client: OpenSearch, prefix: str, spec: QueryModelSpec) -> str | None:
    """The newest deployed model of this index prefix that serves ``spec``, or None."""
    for model in _models_of(client, prefix):
        if model.get("model_state") == "DEPLOYED" and spec_of(model.get("description", "")) == spec:
            return str(model["model_id"])
    return None


def index_meta(client: OpenSearch, index: str) -> dict[str, Any]:
    mapping = ml_call(client, "GET", f"/{index}/_mapping")[index]["mappings"]
    return dict(mapping.get("_meta", {}))


def wait_task(client: OpenSearch, task_id: str, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        task: dict[str, Any] = ml_call(client, "GET", f"{ML}/tasks/{task_id}")
        state = str(task.get("state", ""))
        if state == "COMPLETED":
            return task
        if state in ("FAILED", "COMPLETED_WITH_ERROR", "CANCELLED"):
            raise QueryModelError(f"ML task {task_id} {state}: {task.get('error', task)}")
        if time.monotonic() > deadline:
            raise QueryModelError(f"ML task {task_id} still {state} after {timeout:.0f} s")
        time.sleep(0.5)


def wait_deployed(client: OpenSearch, model_id: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        model = ml_call(client, "GET", f"{ML}/models/{model_id}")
        state = str(model.get("model_state", ""))
        if state == "DEPLOYED":
            return
        if state == "DEPLOY_FAILED" or time.monotonic() > deadline:
            raise QueryModelError(f"model {model_id} is {state or 'not deployed'}")
        time.sleep(0.5)


def deploy(client: OpenSearch, model_id: str, timeout: float = 120.0) -> None:
    resp = ml_call(client, "POST", f"{ML}/models/{model_id}/_deploy")
    if resp.get("task_id"):
        wait_task(client, str(resp["task_id"]), timeout)
    wait_deployed(client, model_id, timeout)


def ensure_query_model(
    client: OpenSearch,
    prefix: str,
    connector: dict[str, Any],
    spec: QueryModelSpec,
    *,
    timeout: float = 120.0,
) -> str:
    """The id of a deployed remote model behind ``connector``; registered if missing."""
    name = model_name(prefix, connector)
    found = find_model(client, name)
    if found is not None:
        model_id = str(found["model_id"])
        if found.get("model_state") != "DEPLOYED":
            log.info("deploying query model %s (%s)", model_id, found.get("model_state"))
            deploy(client, model_id, timeout)
        return model_id
    created = ml_call(client, "POST", f"{ML}/connectors/_create", connector)
    connector_id = str(created["connector_id"])
    resp = ml_call(
        client,
        "POST",
        f"{ML}/models/_register?deploy=true",
        register_model_body(name, connector_id, spec),
    )
    if resp.get("task_id"):
        task = wait_task(client, str(resp["task_id"]), timeout)
        resp = {**task, **resp}
    model_id = str(resp.get("model_id") or "")
    if not model_id:
        raise QueryModelError(f"registering {name} returned no model id: {resp}")
    wait_deployed(client, model_id, timeout)
    log.info("query model %s registered and deployed (connector %s)", model_id, connector_id)
    return model_id


def ensure_default_pipeline(client: OpenSearch, model_id: str) -> str:
    """PUT the generation's default search pipeline (same body, same name: idempotent)."""
    name = pipeline_name(model_id)
    ml_call(client, "PUT", f"/_search/pipeline/{name}", default_pipeline_body(model_id))
    return name


def attach_query_model(client: OpenSearch, index: str, model_id: str, spec: QueryModelSpec) -> str:
    """Record ``model_id`` in the generation's ``_meta`` and make its pipeline the index's
    default. Refuses a model of another embedder (`chunkwise.search.query_model.attach_check`)."""
    meta = index_meta(client, index)
    attach_check(meta, spec)
    pipeline = ensure_default_pipeline(client, model_id)
    if meta.get("query_model_id") != model_id:
        meta["query_model_id"] = model_id
        # _meta is replaced as a whole by a mapping update: send all of it.
        ml_call(client, "PUT", f"/{index}/_mapping", {"_meta": meta})
    ml_call(client, "PUT", f"/{index}/_settings", {"index.search.default_pipeline": pipeline})
    return pipeline


def generation_query_model(client: OpenSearch, index: str) -> str | None:
    """The model id recorded for a generation (an index or the read alias), or None."""
    resp = ml_call(client, "GET", f"/{index}/_mapping")
    for mapping in resp.values():
        found = mapping.get("mappings", {}).get("_meta", {}).get("query_model_id")
        if found:
            return str(found)
    return None


def delete_query_model(client: OpenSearch, model_id: str) -> None:
    """Undeploy and delete a query model, its connector and its pipeline (throwaway
    stacks; a live generation's model is kept by the setup, never deleted by it)."""
    model = ml_call(client, "GET", f"{ML}/models/{model_id}")
    ml_call(client, "POST", f"{ML}/models/{model_id}/_undeploy")
    ml_call(client, "DELETE", f"{ML}/models/{model_id}")
    if model.get("connector_id"):
        ml_call(client, "DELETE", f"{ML}/connectors/{model['connector_id']}")
    with contextlib.suppress(NotFoundError):
        ml_call(client, "DELETE", f"/_search/pipeline/{pipeline_name(model_id)}")


def delete_query_models(client: OpenSearch, prefix: str) -> int:
    """Every query model of a throwaway index prefix; returns how many."""
    models = _models_of(client, prefix)
    for model in models:
        delete_query_model(client, str(model["model_id"]))
    return len(models)
