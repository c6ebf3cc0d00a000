"""chunkwise.ingest.messages: one queue batch in, one outcome per message out."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from chunkwise.errors import TransientError
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.messages import (
    MessageError,
    ObjectChange,
    QueuedMessage,
    ingest_messages,
    read_messages,
)
from chunkwise.ingest.result import IngestResult


def _s3_body(*keys: str) -> str:
    records = [
        {
            "eventSource": "aws:s3",
            "eventName": "ObjectCreated:Put",
            "s3": {"bucket": {"name": "b"}, "object": {"key": k, "versionId": "v1"}},
        }
        for k in keys
    ]
    return json.dumps({"Records": records})


class _Pipeline:
    """Records what it was given; fails the changes whose key says so."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def ingest_batch(
        self, changes: Sequence[ObjectChange], budget_for: Callable[[ObjectChange], DocumentBudget]
    ) -> list[IngestResult]:
        self.batches.append([c.key for c in changes])
        return [self._result(c, budget_for(c)) for c in changes]

    @staticmethod
    def _result(change: ObjectChange, _budget: DocumentBudget) -> Any:
        error = TransientError("node away") if "fail" in change.key else None
        return _Result(change.key, error)


class _Result:
    def __init__(self, key: str, error: TransientError | None) -> None:
        self.key, self.error = key, error


def test_all_changes_of_all_messages_go_in_one_batch_and_come_back_to_their_message() -> None:
    messages = [
        QueuedMessage("m1", _s3_body("a.pdf", "fail.pdf"), 2),
        QueuedMessage("m2", "not json"),
        QueuedMessage("m3", json.dumps({"Event": "s3:TestEvent"})),
        QueuedMessage("m4", _s3_body("c.md")),
    ]
    outcomes = read_messages(messages)
    pipeline = _Pipeline()
    ingest_messages(pipeline, outcomes, lambda _c: DocumentBudget.unbounded())  # type: ignore[arg-type]
    assert pipeline.batches == [["a.pdf", "fail.pdf", "c.md"]]
    assert [r.key for r in outcomes["m1"].results] == ["a.pdf", "fail.pdf"]
    assert isinstance(outcomes["m1"].error, TransientError)
    assert isinstance(outcomes["m2"].malformed, MessageError) and outcomes["m2"].error is not None
    assert "not JSON" in str(outcomes["m2"].error)
    assert outcomes["m3"].test_event and outcomes["m3"].error is None
    assert not outcomes["m4"].test_event and outcomes["m4"].error is None


def test_an_unreadable_message_never_reaches_the_pipeline() -> None:
    outcomes = read_messages([QueuedMessage("m", json.dumps({"what": 1}))])
    pipeline = _Pipeline()
    ingest_messages(pipeline, outcomes, lambda _c: DocumentBudget.unbounded())  # type: ignore[arg-type]
    assert pipeline.batches == [[]]
    assert outcomes["m"].results == [] and "unrecognised message" in str(outcomes["m"].error)
