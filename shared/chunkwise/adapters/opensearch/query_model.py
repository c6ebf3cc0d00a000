"""ML Commons over opensearch-py: connector, remote model, default search pipeline.

Used at setup time only (the admin custom resource on AWS, `chunkwise local up`
locally), never on the query path. Idempotent: the model's name is derived from the
connector's content (`chunkwise.search.query_model.model_name`), so a second run finds the
model of the first and only deploys it again if the cluster undeployed it.

ML Commons on a node that has just (re)started refuses some steps for a moment: its
encryptor gives up on the first decrypt of a connector's credential after about 3 s
("Fetching master key timed out", `EncryptorImpl.waitForLatch`) and reports "master key
already initialized" a moment later. The node's own redeployment of the models it had
deployed can fail that way too and leave the model half-held by the node, so that
every later deployment is refused ("Duplicate deploy model task") while the model
record says DEPLOY_FAILED; an undeploy clears it. Those steps are retried with a
bounded backoff (`ML_RETRY`, tenacity); any other failure is final at once.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from opensearchpy import OpenSearch
from opensearchpy.exceptions import NotFoundError
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential,
    wait_fixed,
    wait_random,
)

from chunkwise.adapters.opensearch.retries import RetryPolicy, with_retries
from chunkwise.errors import ChunkwiseError
from chunkwise.search.fusion import DEFAULT_FUSION, FusionSpec
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
T = TypeVar("T")

# Seconds: 0.5, 1, 2, 4, 8, 8, 8 between eight attempts (about 30 s), enough for the
# master key (about 3 s after the node answers) and for an auto-redeploy in flight.
ML_RETRY = RetryPolicy(attempts=8, initial=0.5, maximum=8.0, jitter=0.2)
POLL_SECONDS = 0.5
# What ML Commons says while it is still starting (lower case, matched as substrings).
DUPLICATE_DEPLOY = "duplicate deploy model task"
TRANSIENT_ML_FAILURES = (
    "fetching master key timed out",
    "master key has not been initialized",
    DUPLICATE_DEPLOY,
    "model not ready",
)


class QueryModelError(ChunkwiseError):
    """ML Commons refused or did not finish a setup step."""


class MLCommonsNotReady(QueryModelError):
    """A step ML Commons refused while starting up; retried by `ml_retrying`."""


class _Pending(Exception):
    """Internal: a task or deployment is still under way (polled again)."""


def transient_ml_failure(reason: str) -> bool:
    """Is this refusal one that ML Commons stops giving once it has started?"""
    text = reason.lower()
    return any(failure in text for failure in TRANSIENT_ML_FAILURES)


def _log_ml_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.warning("ML Commons not ready (attempt %d): %s; retrying", state.attempt_number, exc)


def ml_retrying(policy: RetryPolicy = ML_RETRY, timeout: float = 120.0) -> Retrying:
    """Retries `MLCommonsNotReady` with exponential backoff, at most ``policy.attempts``
    times and ``timeout`` seconds; the last failure is raised as it is."""
    return Retrying(
        stop=stop_after_attempt(policy.attempts) | stop_after_delay(timeout),
        wait=wait_exponential(multiplier=policy.initial, max=policy.maximum)
        + wait_random(0, policy.jitter),
        retry=retry_if_exception_type(MLCommonsNotReady),
        before_sleep=_log_ml_retry,
        reraise=True,
    )


def _poll(what: Callable[[], T], timeout: float, poll: float = POLL_SECONDS) -> T:
    """``what()`` until it stops raising `_Pending`, for at most ``timeout`` seconds."""
    retrying = Retrying(
        stop=stop_after_delay(timeout),
        wait=wait_fixed(poll),
        retry=retry_if_exception_type(_Pending),
        reraise=True,
    )
    return retrying(what)


def _refusal(step: str, reason: str) -> QueryModelError:
    cls = MLCommonsNotReady if transient_ml_failure(reason) else QueryModelError
    return cls(f"{step}: {reason}")


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
    def check() -> dict[str, Any]:
        task: dict[str, Any] = ml_call(client, "GET", f"{ML}/tasks/{task_id}")
        state = str(task.get("state", ""))
        if state == "COMPLETED":
            return task
        if state in ("FAILED", "COMPLETED_WITH_ERROR", "CANCELLED"):
            raise _refusal(f"ML task {task_id} {state}", json.dumps(task.get("error", task)))
        raise _Pending(f"ML task {task_id} still {state or 'unknown'} after {timeout:.0f} s")

    try:
        return _poll(check, timeout)
    except _Pending as exc:
        raise QueryModelError(str(exc)) from exc


def model_state(client: OpenSearch, model_id: str) -> str:
    return str(ml_call(client, "GET", f"{ML}/models/{model_id}").get("model_state", ""))


def wait_deployed(client: OpenSearch, model_id: str, timeout: float) -> None:
    def check() -> None:
        state = model_state(client, model_id)
        if state == "DEPLOYED":
            return
        if state == "DEPLOY_FAILED":  # on a starting node: the master key, see above
            raise MLCommonsNotReady(f"model {model_id} is DEPLOY_FAILED")
        raise _Pending(f"model {model_id} is {state or 'not deployed'} after {timeout:.0f} s")

    try:
        _poll(check, timeout)
    except _Pending as exc:
        raise QueryModelError(str(exc)) from exc


def deploy(
    client: OpenSearch, model_id: str, timeout: float = 120.0, policy: RetryPolicy = ML_RETRY
) -> None:
    """Deploy the model and wait until it is DEPLOYED, retrying what a starting
    ML Commons refuses. A deployment already under way (the node redeploys the
    models it had after a restart) is waited for, not doubled."""

    def attempt() -> None:
        if model_state(client, model_id) != "DEPLOYING":
            resp = ml_call(client, "POST", f"{ML}/models/{model_id}/_deploy")
            try:
                if resp.get("task_id"):
                    wait_task(client, str(resp["task_id"]), timeout)
            except MLCommonsNotReady as exc:
                if DUPLICATE_DEPLOY in str(exc).lower():
                    # No deployment is under way (the state says so), yet the node holds
                    # one: left by its own redeploy that failed on the master key. Only
                    # an undeploy clears it; the next attempt deploys afresh.
                    ml_call(client, "POST", f"{ML}/models/{model_id}/_undeploy")
                raise
        wait_deployed(client, model_id, timeout)

    ml_retrying(policy, timeout)(attempt)


def wait_for_ml_commons(
    client: OpenSearch, timeout: float = 60.0, policy: RetryPolicy = ML_RETRY
) -> dict[str, str]:
    """Wait until every ML Commons system index that exists is searchable (its stats
    say green or yellow); returns the statuses. A node that just answered its health
    check can still be opening them."""

    def check() -> dict[str, str]:
        try:
            stats = ml_call(client, "GET", f"{ML}/stats", policy=RetryPolicy(attempts=1))
        except ChunkwiseError as exc:  # the plugin itself is still starting
            raise MLCommonsNotReady(f"ML Commons stats: {exc}") from exc
        statuses = {k: str(v) for k, v in stats.items() if k.endswith("_index_status")}
        waiting = {
            k: v for k, v in statuses.items() if v not in ("green", "yellow", "non-existent")
        }
        if waiting:
            raise MLCommonsNotReady(f"ML Commons system indices not ready: {waiting}")
        return statuses

    return ml_retrying(policy, timeout)(check)


def probe_query_model(
    client: OpenSearch,
    model_id: str,
    dimension: int,
    timeout: float = 60.0,
    policy: RetryPolicy = ML_RETRY,
) -> None:
    """Embed one text through the model, as the cluster does for a `neural` query, and
    check the vector's size. ML Commons deploys a remote model on its first predict
    (its recorded state can say DEPLOYED before a restarted node has loaded it)."""
    body = {"parameters": {"texts": ["chunkwise query model probe"]}}

    def attempt() -> None:
        try:
            resp = ml_call(client, "POST", f"{ML}/models/{model_id}/_predict", body, RetryPolicy(1))
        except ChunkwiseError as exc:
            raise _refusal(f"query model {model_id} predict", str(exc)) from exc
        try:
            shape = resp["inference_results"][0]["output"][0]["shape"]
        except (KeyError, IndexError, TypeError) as exc:
            raise QueryModelError(f"query model {model_id} answered {resp!r:.300}") from exc
        if list(shape) != [dimension]:
            raise QueryModelError(f"query model {model_id} embeds {shape}, not [{dimension}]")

    ml_retrying(policy, timeout)(attempt)


def ensure_query_model(
    client: OpenSearch,
    prefix: str,
    connector: dict[str, Any],
    spec: QueryModelSpec,
    *,
    timeout: float = 120.0,
    policy: RetryPolicy = ML_RETRY,
) -> str:
    """The id of a deployed remote model behind ``connector``; registered if missing,
    deployed unless it is (a model an interrupted setup registered is deployed now)."""
    name = model_name(prefix, connector)
    found = find_model(client, name)
    if found is None:
        model_id = _register(client, name, connector, spec, timeout, policy)
    else:
        model_id = str(found["model_id"])
        if found.get("model_state") == "DEPLOYED":
            return model_id
        log.info("deploying query model %s (%s)", model_id, found.get("model_state"))
    deploy(client, model_id, timeout, policy)
    return model_id


def _register(
    client: OpenSearch,
    name: str,
    connector: dict[str, Any],
    spec: QueryModelSpec,
    timeout: float,
    policy: RetryPolicy,
) -> str:
    """Create the connector (its credential is encrypted with the master key) and
    register the model behind it; returns the model id."""

    def create_connector() -> str:
        try:
            created = ml_call(client, "POST", f"{ML}/connectors/_create", connector, RetryPolicy(1))
        except ChunkwiseError as exc:
            raise _refusal("create connector", str(exc)) from exc
        return str(created["connector_id"])

    connector_id = ml_retrying(policy, timeout)(create_connector)
    body = register_model_body(name, connector_id, spec)
    resp = ml_call(client, "POST", f"{ML}/models/_register", body)
    if resp.get("task_id"):
        task = wait_task(client, str(resp["task_id"]), timeout)
        resp = {**task, **resp}
    model_id = str(resp.get("model_id") or "")
    if not model_id:
        raise QueryModelError(f"registering {name} returned no model id: {resp}")
    log.info("query model %s registered (connector %s)", model_id, connector_id)
    return model_id


def ensure_default_pipeline(
    client: OpenSearch, model_id: str, fusion: FusionSpec = DEFAULT_FUSION
) -> str:
    """PUT the generation's default search pipeline (same body, same name: idempotent)."""
    name = pipeline_name(model_id)
    ml_call(client, "PUT", f"/_search/pipeline/{name}", default_pipeline_body(model_id, fusion))
    return name


def attach_query_model(
    client: OpenSearch,
    index: str,
    model_id: str,
    spec: QueryModelSpec,
    fusion: FusionSpec = DEFAULT_FUSION,
) -> str:
    """Record ``model_id`` in the generation's ``_meta`` and make its pipeline (fusing as
    ``fusion`` says) the index's default. Refuses a model of another embedder
    (`chunkwise.search.query_model.attach_check`)."""
    meta = index_meta(client, index)
    attach_check(meta, spec)
    pipeline = ensure_default_pipeline(client, model_id, fusion)
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
