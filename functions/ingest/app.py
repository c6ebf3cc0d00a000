"""Ingest function: SQS batch of S3 / EventBridge events -> chunkwise.ingest.pipeline.

Thin on purpose: parse each message into object changes, hand all changes of
the batch to `Pipeline.ingest_batch` at once (the revision switch then needs one
index round trip per phase for the whole batch), report failed messages as
batch item failures
(``ReportBatchItemFailures``). A failed message becomes visible again after the
queue's visibility timeout and moves to the DLQ after ``maxReceiveCount``
receives; the log line says why (permanent: the document will never index;
transient: an outage or throttling).

Each document gets a budget (`chunkwise.ingest.budget`): a deadline from the
invocation's remaining time, keeping time back for the records still waiting,
and a memory ceiling from the function's memory size. A document over it fails
alone (`LimitExceeded`, logged); its batch-mates go on in the same invocation.

Settings are validated once per cold start; the pipeline (OpenSearch client,
embedder, tokenizer) is built on the first record, so importing this module
stays cheap.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from chunkwise.errors import ChunkwiseError, PermanentError
from chunkwise.ingest.budget import BatchBudgets, DocumentBudget
from chunkwise.ingest.pipeline import IngestResult, MessageError, ObjectChange, parse_message
from chunkwise.settings import IngestSettings, load_settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from chunkwise.ingest.pipeline import Pipeline

logger = Logger(service="chunkwise-ingest")
tracer = Tracer(service="chunkwise-ingest")
metrics = Metrics(namespace="chunkwise", service="ingest")
# Every failed record is reported (also when all fail): the runner and the event source
# mapping then treat them alike, and the log line of each failure says why.
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)

# Cold start: a bad variable fails here, loudly.
SETTINGS: IngestSettings = load_settings(IngestSettings)
_PIPELINE: Pipeline | None = None


def get_pipeline() -> Pipeline:
    global _PIPELINE
    if _PIPELINE is None:
        from chunkwise.wiring import build_pipeline

        _PIPELINE = build_pipeline(SETTINGS)
    return _PIPELINE


def _report(result: IngestResult) -> None:
    logger.info("ingested", extra=result.log_fields())
    metrics.add_metric(name=f"Documents_{result.status}", unit=MetricUnit.Count, value=1)
    if result.status == "indexed":
        metrics.add_metric(name="Chunks", unit=MetricUnit.Count, value=result.chunks)
        metrics.add_metric(name="Runts", unit=MetricUnit.Count, value=result.runts)
        for name, value in result.chunk_chars.items():
            metrics.add_metric(name=f"ChunkChars_{name}", unit=MetricUnit.Count, value=value)
    for stage, seconds in result.stages.items():
        metrics.add_metric(
            name=f"Stage_{stage}", unit=MetricUnit.Milliseconds, value=seconds * 1000.0
        )


_BATCH = BatchBudgets()
CLOCK = time.monotonic  # the budgets' clock (tests put a fake one here)


def next_budget(context: LambdaContext | None, batch: BatchBudgets) -> DocumentBudget:
    if context is None:
        return batch.next(None)
    return batch.next(
        context.get_remaining_time_in_millis(), int(context.memory_limit_in_mb), clock=CLOCK
    )


def ingest_change(
    change: ObjectChange, receive_count: int = 1, budget: DocumentBudget | None = None
) -> IngestResult:
    """One change on its own (the EventBridge path); raises its error after logging it."""
    (result,) = ingest_changes([(change, receive_count)], lambda _c: budget)
    if result.error is not None:
        raise result.error
    return result


def ingest_changes(
    changes: list[tuple[ObjectChange, int]],
    budget_for: Callable[[ObjectChange], DocumentBudget | None],
) -> list[IngestResult]:
    """All changes of one invocation through the pipeline together (one index round
    trip per phase of the revision switch); each result logged and counted."""

    def budget(change: ObjectChange) -> DocumentBudget:
        return budget_for(change) or DocumentBudget.unbounded()

    results = get_pipeline().ingest_batch([c for c, _n in changes], budget)
    for (change, receive_count), result in zip(changes, results, strict=True):
        if result.error is None:
            _report(result)
        else:
            _log_failure(change, result.error, receive_count)
    return results


def _log_failure(change: ObjectChange, exc: ChunkwiseError, receive_count: int) -> None:
    permanent = isinstance(exc, PermanentError)
    log = logger.error if permanent else logger.warning
    log(
        "permanent failure: this message goes to the DLQ once its receives are used up"
        if permanent
        else "transient failure: retried after the visibility timeout",
        extra={
            "key": change.key,
            "bucket": change.bucket,
            "kind": change.kind,
            "error": type(exc).__name__,
            "reason": str(exc),
            "receive_count": receive_count,
        },
    )
    failures = "PermanentFailures" if permanent else "TransientFailures"
    metrics.add_metric(name=failures, unit=MetricUnit.Count, value=1)
    if permanent:
        gc.collect()  # what the failed document held is not the next one's to carry


def _changes_or_none(record: SQSRecord) -> list[ObjectChange]:
    try:
        return parse_message(record.body)
    except MessageError:
        return []


def parse_record(record: SQSRecord) -> list[ObjectChange]:
    """The record's object changes; a malformed message is logged (id and reason, never
    its body) before it fails, so the DLQ never receives a message nobody explained."""
    try:
        return parse_message(record.body)
    except MessageError as exc:
        logger.error(
            "malformed message: it goes to the DLQ once its receives are used up",
            extra={
                "message_id": record.message_id,
                "error": type(exc).__name__,
                "reason": str(exc),
                "receive_count": int(record.attributes.approximate_receive_count or 1),
            },
        )
        metrics.add_metric(name="MalformedMessages", unit=MetricUnit.Count, value=1)
        raise


# message id -> the results of its changes, computed for the whole batch at once
_RESULTS: dict[str, list[IngestResult]] = {}


def ingest_records(records: list[SQSRecord], context: LambdaContext | None) -> None:
    """Every well-formed record's changes through the pipeline in one batch; a
    malformed record is left to `record_handler`, which reports it."""
    changes: list[tuple[ObjectChange, int]] = []
    owners: list[str] = []
    for record in records:
        try:
            parsed = parse_message(record.body)
        except MessageError:
            continue
        count = int(record.attributes.approximate_receive_count or 1)
        changes += [(c, count) for c in parsed]
        owners += [record.message_id] * len(parsed)
    _RESULTS.clear()
    results = ingest_changes(changes, lambda _c: next_budget(context, _BATCH))
    for owner, result in zip(owners, results, strict=True):
        _RESULTS.setdefault(owner, []).append(result)


@tracer.capture_method
def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> None:
    changes = parse_record(record)
    if not changes:
        logger.info("skipped s3:TestEvent", extra={"message_id": record.message_id})
        return
    for result in _RESULTS.get(record.message_id, []):
        if result.error is not None:
            raise result.error  # logged already; the record is reported as failed


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    global _BATCH
    if event.get("source") == "aws.s3":  # EventBridge target invoking the function directly
        try:
            changes = parse_message(event)
        except MessageError as exc:
            logger.error(
                "malformed EventBridge event",
                extra={
                    "event_id": event.get("id"),
                    "error": type(exc).__name__,
                    "reason": str(exc),
                },
            )
            metrics.add_metric(name="MalformedMessages", unit=MetricUnit.Count, value=1)
            raise
        for change in changes:
            ingest_change(change, budget=next_budget(context, BatchBudgets()))
        return {"batchItemFailures": []}
    records = [SQSRecord(r) for r in event.get("Records") or []]
    _BATCH = BatchBudgets(sum(len(_changes_or_none(r)) for r in records))
    ingest_records(records, context)
    response = process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
    return dict(response)
