"""Ingest function: SQS batch of S3 / EventBridge events -> chunkwise.ingest.pipeline.

Thin on purpose: parse each message into object changes, hand every change to
`Pipeline.ingest`, report failed messages as batch item failures
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
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from chunkwise.errors import PermanentError, TransientError
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
    where = {"key": change.key, "bucket": change.bucket, "kind": change.kind}
    try:
        result = get_pipeline().ingest(change, budget)
    except (PermanentError, TransientError) as exc:
        permanent = isinstance(exc, PermanentError)
        log = logger.error if permanent else logger.warning
        log(
            "permanent failure: this message goes to the DLQ once its receives are used up"
            if permanent
            else "transient failure: retried after the visibility timeout",
            extra={
                **where,
                "error": type(exc).__name__,
                "reason": str(exc),
                "receive_count": receive_count,
            },
        )
        failures = "PermanentFailures" if permanent else "TransientFailures"
        metrics.add_metric(name=failures, unit=MetricUnit.Count, value=1)
        if permanent:
            gc.collect()  # what the failed document held is not the next one's to carry
        raise
    _report(result)
    return result


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


@tracer.capture_method
def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> None:
    budget = next_budget(lambda_context, _BATCH)
    changes = parse_record(record)
    if not changes:
        logger.info("skipped s3:TestEvent", extra={"message_id": record.message_id})
        return
    count = int(record.attributes.approximate_receive_count or 1)
    for change in changes:
        ingest_change(change, count, budget)


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
    _BATCH = BatchBudgets(len(event.get("Records") or []))
    response = process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
    return dict(response)
