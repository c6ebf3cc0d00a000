"""ML Commons setup steps on a node that has just started: what is retried, and how often.

A fake client plays the ML Commons REST API (no I/O). The waits are zero."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from opensearchpy.exceptions import TransportError

from chunkwise.adapters.opensearch.query_model import (
    ML,
    MLCommonsNotReady,
    QueryModelError,
    deploy,
    ml_retrying,
    probe_query_model,
    transient_ml_failure,
    wait_for_ml_commons,
)
from chunkwise.adapters.opensearch.retries import RetryPolicy

NO_WAIT = RetryPolicy(attempts=4, initial=0.0, maximum=0.0, jitter=0.0)
MASTER_KEY = {"node-1": "Fetching master key timed out."}
Answer = dict[str, Any] | Exception | Callable[[], dict[str, Any]]


class FakeML:
    """Answers per (method, path): a list of answers, consumed in order (the last repeats)."""

    def __init__(self, answers: dict[tuple[str, str], list[Answer]]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, str]] = []
        self.transport = self

    def perform_request(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        self.calls.append((method, path))
        queue = self.answers[(method, path)]
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(answer, Exception):
            raise answer
        return answer() if callable(answer) else answer

    def count(self, method: str, path: str) -> int:
        return self.calls.count((method, path))


MODEL = f"{ML}/models/m1"
DEPLOY = f"{ML}/models/m1/_deploy"


def test_a_deployment_refused_for_the_master_key_is_retried() -> None:
    ml = FakeML(
        {
            ("GET", MODEL): [
                {"model_state": "REGISTERED"},
                {"model_state": "DEPLOY_FAILED"},
                {"model_state": "DEPLOYED"},
            ],
            ("POST", DEPLOY): [{"task_id": "t1"}, {"task_id": "t2"}],
            ("GET", f"{ML}/tasks/t1"): [{"state": "FAILED", "error": MASTER_KEY}],
            ("GET", f"{ML}/tasks/t2"): [{"state": "COMPLETED"}],
        }
    )
    deploy(ml, "m1", timeout=10, policy=NO_WAIT)  # type: ignore[arg-type]
    assert ml.count("POST", DEPLOY) == 2


def test_another_failure_is_final_at_once() -> None:
    ml = FakeML(
        {
            ("GET", MODEL): [{"model_state": "REGISTERED"}],
            ("POST", DEPLOY): [{"task_id": "t1"}],
            ("GET", f"{ML}/tasks/t1"): [{"state": "FAILED", "error": {"n": "connector gone"}}],
        }
    )
    with pytest.raises(QueryModelError, match="connector gone") as err:
        deploy(ml, "m1", timeout=10, policy=NO_WAIT)  # type: ignore[arg-type]
    assert not isinstance(err.value, MLCommonsNotReady)
    assert ml.count("POST", DEPLOY) == 1


def test_the_retries_are_bounded() -> None:
    ml = FakeML(
        {
            ("GET", MODEL): [{"model_state": "DEPLOY_FAILED"}],
            ("POST", DEPLOY): [{"task_id": "t1"}],
            ("GET", f"{ML}/tasks/t1"): [{"state": "FAILED", "error": MASTER_KEY}],
        }
    )
    with pytest.raises(MLCommonsNotReady, match="master key"):
        deploy(ml, "m1", timeout=10, policy=NO_WAIT)  # type: ignore[arg-type]
    assert ml.count("POST", DEPLOY) == NO_WAIT.attempts


def test_a_deployment_under_way_is_waited_for_not_doubled() -> None:
    # after a restart the node redeploys the models it had ("Duplicate deploy model task")
    ml = FakeML(
        {
            ("GET", MODEL): [
                {"model_state": "DEPLOYING"},
                {"model_state": "DEPLOYING"},
                {"model_state": "DEPLOYED"},
            ],
            ("POST", DEPLOY): [{"task_id": "never"}],
        }
    )
    deploy(ml, "m1", timeout=10, policy=NO_WAIT)  # type: ignore[arg-type]
    assert ml.count("POST", DEPLOY) == 0


def test_system_indices_still_opening_are_waited_for() -> None:
    stats = f"{ML}/stats"
    ml = FakeML(
        {
            ("GET", stats): [
                TransportError(500, "ml_exception", {"error": "plugin starting"}),
                {"ml_config_index_status": "red", "ml_model_index_status": "green"},
                {"ml_config_index_status": "green", "ml_task_index_status": "non-existent"},
            ]
        }
    )
    statuses = wait_for_ml_commons(ml, timeout=10, policy=NO_WAIT)  # type: ignore[arg-type]
    assert statuses["ml_config_index_status"] == "green"
    assert ml.count("GET", stats) == 3


def test_the_probe_retries_the_master_key_and_checks_the_vector_size() -> None:
    predict = f"{ML}/models/m1/_predict"
    vector = {"inference_results": [{"output": [{"shape": [384], "data": [0.0] * 384}]}]}
    ml = FakeML(
        {
            ("POST", predict): [
                TransportError(500, "ml_exception", {"error": "Fetching master key timed out."}),
                vector,
            ]
        }
    )
    probe_query_model(ml, "m1", 384, timeout=10, policy=NO_WAIT)  # type: ignore[arg-type]
    assert ml.count("POST", predict) == 2
    with pytest.raises(QueryModelError, match=r"embeds \[384\], not \[768\]"):
        probe_query_model(ml, "m1", 768, timeout=10, policy=NO_WAIT)  # type: ignore[arg-type]


def test_which_refusals_are_transient() -> None:
    assert transient_ml_failure('{"tLH1": "Fetching master key timed out."}')
    assert transient_ml_failure("Duplicate deploy model task")
    assert not transient_ml_failure("Invalid payload: { ... }")
    assert not transient_ml_failure("connector not found")


def test_the_policy_stops_after_its_attempts() -> None:
    attempts: list[int] = []

    def always() -> None:
        attempts.append(1)
        raise MLCommonsNotReady("still starting")

    with pytest.raises(MLCommonsNotReady):
        ml_retrying(RetryPolicy(attempts=3, initial=0.0, maximum=0.0, jitter=0.0), 10)(always)
    assert len(attempts) == 3


def test_a_deployment_the_node_half_holds_is_undeployed_then_deployed_again() -> None:
    # the node's own redeploy failed on the master key: the record says DEPLOY_FAILED,
    # yet every deploy is refused as a duplicate until an undeploy clears the node
    duplicate = {"state": "FAILED", "error": {"node-1": "Duplicate deploy model task"}}
    ml = FakeML(
        {
            ("GET", MODEL): [
                {"model_state": "DEPLOY_FAILED"},
                {"model_state": "UNDEPLOYED"},
                {"model_state": "DEPLOYED"},
            ],
            ("POST", DEPLOY): [{"task_id": "t1"}, {"task_id": "t2"}],
            ("GET", f"{ML}/tasks/t1"): [duplicate],
            ("GET", f"{ML}/tasks/t2"): [{"state": "COMPLETED"}],
            ("POST", f"{ML}/models/m1/_undeploy"): [{"node-1": {"stats": {"m1": "undeployed"}}}],
        }
    )
    deploy(ml, "m1", timeout=10, policy=NO_WAIT)  # type: ignore[arg-type]
    posts = [path for method, path in ml.calls if method == "POST"]
    assert posts == [DEPLOY, f"{ML}/models/m1/_undeploy", DEPLOY]
