"""Retry/backoff classification of the OpenSearch adapter with fake clients (no I/O)."""

from __future__ import annotations

from typing import Any

import pytest
from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import RequestError, TransportError

from chunkwise.adapters.opensearch.retries import (
    RetryPolicy,
    TransientOpenSearchError,
    bulk_with_retries,
    is_transient,
    with_retries,
)
from chunkwise.errors import PermanentError, TransientError

FAST = RetryPolicy(attempts=4, initial=0.001, maximum=0.002, jitter=0)


def test_classification() -> None:
    assert is_transient(TransportError(429, "x", {}))
    assert is_transient(TransportError(503, "x", {}))
    assert is_transient(OSConnectionError("N/A", "refused", None))
    assert not is_transient(RequestError(400, "mapper_parsing_exception", {}))


def test_with_retries_recovers_and_gives_up() -> None:
    calls = {"n": 0}

    def flaky() -> str:
        calls["n"] += 1
        if calls["n"] < 3:
            raise TransportError(503, "unavailable", {})
        return "ok"

    assert with_retries(FAST, "op", flaky) == "ok" and calls["n"] == 3

    def down() -> None:
        raise OSConnectionError("N/A", "refused", None)

    with pytest.raises(TransientOpenSearchError, match="after 4 attempts") as err:
        with_retries(FAST, "op", down)
    assert isinstance(err.value, TransientError)

    def bad() -> None:
        raise RequestError(400, "mapper_parsing_exception", {})

    with pytest.raises(PermanentError):
        with_retries(FAST, "op", bad)


class _FakeBulk:
    def __init__(self, statuses: list[dict[str, int]]) -> None:
        self.statuses = statuses  # per call: _id -> status
        self.bodies: list[list[Any]] = []

    def bulk(self, body: list[Any], params: Any = None) -> Any:
        self.bodies.append(body)
        st = self.statuses[min(len(self.bodies) - 1, len(self.statuses) - 1)]
        items = []
        for meta in body[::2]:
            op, info = next(iter(meta.items()))
            items.append({op: {"_id": info["_id"], "status": st.get(info["_id"], 201)}})
        return {"items": items}


def _actions(n: int) -> list[dict[str, Any]]:
    return [
        {"_op_type": "index", "_index": "i", "_id": f"d:r:{i}", "_routing": "d", "_source": {}}
        for i in range(n)
    ]


def test_bulk_resends_only_throttled_items_and_reports_4xx() -> None:
    fake = _FakeBulk([{"d:r:1": 429, "d:r:2": 400}, {}])
    res = bulk_with_retries(fake, _actions(3), policy=FAST)  # type: ignore[arg-type]
    assert sorted(res.indexed) == ["d:r:0", "d:r:1"]
    assert [f["_id"] for f in res.failed] == ["d:r:2"]
    assert len(fake.bodies) == 2 and len(fake.bodies[1]) == 2  # only d:r:1 re-sent
    assert fake.bodies[0][0] == {"index": {"_index": "i", "_id": "d:r:0", "routing": "d"}}


def test_bulk_gives_up_on_endless_throttling() -> None:
    fake = _FakeBulk([{"d:r:0": 429}])
    with pytest.raises(TransientOpenSearchError, match="throttled"):
        bulk_with_retries(fake, _actions(1), policy=FAST)  # type: ignore[arg-type]
    assert len(fake.bodies) == 4


def test_rejection_reasons_never_carry_document_text() -> None:
    from chunkwise.adapters.opensearch.retries import error_reason

    secret = "Vertrauliche Gehaltsliste"
    immense = {
        "type": "illegal_argument_exception",
        "reason": 'Document contains at least one immense term in field="heading_path" (whose '
        "UTF8 encoding is longer than the max length 32766), all of which were skipped. The "
        f"prefix of the first immense term is: '[86, 101, 114]...' {secret}, original message: "
        "bytes can be at most 32766 in length; got 40000",
        "caused_by": {
            "type": "max_bytes_length_exceeded_exception",
            "reason": "bytes can be at most 32766 in length; got 40000",
        },
    }
    preview = {
        "type": "mapper_parsing_exception",
        "reason": f"failed to parse field [page_start] of type [integer]. Preview of field's "
        f"value: '{secret}'",
    }
    for error in (immense, preview):
        reason = error_reason(error)
        assert secret not in reason and "86, 101" not in reason
        assert reason.startswith(str(error["type"])) and len(reason) < 700
    assert "heading_path" in error_reason(immense) and "32766" in error_reason(immense)
