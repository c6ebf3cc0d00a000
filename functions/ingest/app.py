"""Ingest function: SQS batch of S3 / EventBridge events -> chunkwise.ingest.messages.

Thin on purpose: the batch's messages go to `chunkwise.ingest.messages` at once
(all their changes then share the revision switch's index round trips), each
outcome is logged and counted, and failed messages are reported as batch item
failures (``ReportBatchItemFailures``). A failed message becomes visible again
after the queue's visibility timeout and moves to the DLQ after
``maxReceiveCount`` receives; the log line says why (permanent: the document will
never index; transient: an outage or throttling; malformed: nobody can read it).

Each document gets a budget (`chunkwise.ingest.budget`): a deadline from the
invocation's remaining time, keeping time back for the documents still waiting,
and a memory ceiling from the function's memory size. A document over it fails
alone (`LimitExceeded`, logged); its batch-mates go on in the same invocation.

Settings are validated once per cold start; the pipeline (OpenSearch client,
embedder, tokenizer) is built on the first event, so importing this module stays
cheap.
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

from chunkwise.errors import ChunkwiseError, PermanentError
from chunkwise.ingest.budget import BatchBudgets, DocumentBudget
from chunkwise.ingest.messages import MessageOutcome, QueuedMessage, ingest_messages, read_messages
from chunkwise.settings import IngestSettings, load_settings
from chunkwise.wiring import pipeline_config

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from chunkwise.ingest.messages import ObjectChange
    from chunkwise.ingest.pipeline import Pipeline
    from chunkwise.ingest.result import IngestResult

logger = Logger(service="chunkwise-ingest")
tracer = Tracer(service="chunkwise-ingest")
metrics = Metrics(namespace="chunkwise", service="ingest")
# Every failed record is reported (also when all fail): the runner and the event source
# mapping then treat them alike, and the log line of each failure says why.
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)

# Cold start: a bad variable, or a bad combination of them (the pipeline's
# configuration), fails here, loudly.
SETTINGS: IngestSettings = load_settings(IngestSettings)
pipeline_config(SETTINGS)
_PIPELINE: Pipeline | None = None
CLOCK = time.monotonic  # the budgets' clock (tests put a fake one here)


def get_pipeline() -> Pipeline:
    global _PIPELINE
    if _PIPELINE is None:
        from chunkwise.wiring import build_pipeline

        _PIPELINE = build_pipeline(SETTINGS)
    return _PIPELINE


def next_budget(context: LambdaContext | None, batch: BatchBudgets) -> DocumentBudget:
    if context is None:
        return batch.next(None)
    return batch.next(
        context.get_remaining_time_in_millis(), int(context.memory_limit_in_mb), clock=CLOCK
    )


def ingest(
    messages: list[QueuedMessage], context: LambdaContext | None, id_field: str = "message_id"
) -> dict[str, MessageOutcome]:
    """Every message of the invocation through the pipeline together, each outcome reported."""
    outcomes = read_messages(messages)
    batch = BatchBudgets(sum(len(o.changes) for o in outcomes.values()))
    ingest_messages(get_pipeline(), outcomes, lambda _change: next_budget(context, batch))
    for message in messages:
        _report(message, outcomes[message.message_id], id_field)
    return outcomes


def _report(message: QueuedMessage, outcome: MessageOutcome, id_field: str) -> None:
    if outcome.malformed is not None:
        logger.error(  # id and reason, never the body: it may carry document names
            "malformed message: it goes to the DLQ once its receives are used up",
            extra={
                id_field: message.message_id,
                **_error_fields(outcome.malformed),
                "receive_count": message.receive_count,
            },
        )
        metrics.add_metric(name="MalformedMessages", unit=MetricUnit.Count, value=1)
    elif outcome.test_event:
        logger.info("skipped s3:TestEvent", extra={id_field: message.message_id})
    for change, result in zip(outcome.changes, outcome.results, strict=True):
        if result.error is None:
            _report_indexed(result)
        else:
            _report_failed(change, result.error, message.receive_count)


def _error_fields(exc: ChunkwiseError) -> dict[str, str]:
    return {"error": type(exc).__name__, "reason": str(exc)}


def _report_indexed(result: IngestResult) -> None:
    logger.info("ingested", extra=result.log_fields())
    for name, unit, value in document_metrics(result):
        metrics.add_metric(name=name, unit=unit, value=value)


Metric = tuple[str, MetricUnit, float]


def document_metrics(result: IngestResult) -> list[Metric]:
    """The metrics of one document that came through: its outcome; for a new revision
    state its chunks, tokens, what the extraction found and what it cost (extractions,
    embedding calls: 0 for a metadata-only change, counted as `MetadataOnly`); the
    stage latencies."""
    count = MetricUnit.Count
    out: list[Metric] = [(f"Documents_{result.status}", count, 1)]
    if result.status == "indexed":
        out += [
            ("Extractions", count, result.extractions),
            ("EmbeddingCalls", count, result.embedding_calls),
        ]
        if result.metadata_only:
            out.append(("MetadataOnly", count, 1))
        out += [("Chunks", count, result.chunks), ("Runts", count, result.runts)]
        out.append(("Tokens", count, result.tokens))
        out += [(f"ChunkChars_{name}", count, value) for name, value in result.chunk_chars.items()]
        out += _extraction_metrics(result)
    out += [
        (f"Stage_{stage}", MetricUnit.Milliseconds, seconds * 1000.0)
        for stage, seconds in result.stages.items()
    ]
    return out


def _extraction_metrics(result: IngestResult) -> list[Metric]:
    facts, count = result.extraction, MetricUnit.Count
    if facts is None:
        return []
    out: list[Metric] = [
        ("Tables", count, facts.tables),
        ("TablesStitched", count, facts.tables_stitched),
        ("ExtractionWarnings", count, facts.warnings),
        ("OcrPages", count, facts.ocr_pages),
        ("PagesWithoutText", count, facts.pages_without_text),
    ]
    if facts.pages is not None:  # paged formats only (PDF)
        out.append(("Pages", count, facts.pages))
    return out


def _report_failed(change: ObjectChange, exc: ChunkwiseError, receive_count: int) -> None:
    permanent = isinstance(exc, PermanentError)
    (logger.error if permanent else logger.warning)(
        "permanent failure: this message goes to the DLQ once its receives are used up"
        if permanent
        else "transient failure: retried after the visibility timeout",
        extra={
            "key": change.key,
            "bucket": change.bucket,
            "kind": change.kind,
            **_error_fields(exc),
            "receive_count": receive_count,
        },
    )
    failures = "PermanentFailures" if permanent else "TransientFailures"
    metrics.add_metric(name=failures, unit=MetricUnit.Count, value=1)
    if permanent:
        gc.collect()  # what the failed document held is not the next one's to carry


def _queued(record: SQSRecord) -> QueuedMessage:
    count = int(record.attributes.approximate_receive_count or 1)
    return QueuedMessage(record.message_id, record.body, count)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if event.get("source") == "aws.s3":  # EventBridge target invoking the function directly
        outcome = ingest([QueuedMessage(str(event.get("id", "")), event)], context, "event_id")
        error = next(iter(outcome.values())).error
        if error is not None:
            raise error  # logged already; the invocation fails and is retried
        return {"batchItemFailures": []}
    outcomes = ingest([_queued(SQSRecord(r)) for r in event.get("Records") or []], context)

    def record_handler(record: SQSRecord) -> None:
        error = outcomes[record.message_id].error
        if error is not None:
            raise error  # logged already; the record is reported as failed

    return dict(
        process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
    )
