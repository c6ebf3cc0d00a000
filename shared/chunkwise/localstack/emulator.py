"""The Lambda emulator: the ingest function's own handler (functions/ingest/app.py)
fed from the real queue, as the SQS event source mapping would feed it.

`Runner` receives up to 10 messages, builds the event AWS would send, calls the
handler with a `LocalContext` and deletes only the messages it did not report as
batch item failures; failed ones come back after the visibility timeout and end in
the DLQ after maxReceiveCount receives. `run_workers` runs N runners in N processes,
as N Lambda execution environments would.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import multiprocessing
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from chunkwise import progress
from chunkwise.errors import ConfigError
from chunkwise.localstack.config import StackConfig, apply_env, repo_root, say
from chunkwise.localstack.resources import boto


class LocalContext:
    """The parts of a Lambda context that Powertools reads."""

    function_name = "chunkwise-ingest-local"
    function_version = "$LATEST"
    # No Lambda memory limit applies to a local process; Lambda's largest size keeps
    # the per-document memory ceiling (chunkwise.ingest.budget) for runaway documents only.
    memory_limit_in_mb = 10240
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:chunkwise-ingest-local"
    log_group_name = "/local/chunkwise-ingest"
    log_stream_name = "local"

    def __init__(self, timeout_s: float = 900.0) -> None:
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


_HANDLERS: dict[str, ModuleType] = {}


def load_function(name: str = "ingest") -> ModuleType:
    """Import functions/<name>/app.py (the Lambda's own code) once per process."""
    if name in _HANDLERS:
        return _HANDLERS[name]
    path = repo_root() / "functions" / name / "app.py"
    spec = importlib.util.spec_from_file_location(f"chunkwise_function_{name}", path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    _HANDLERS[name] = module
    return module


def log_to_stderr(module: ModuleType) -> None:
    """The handler logs JSON to stdout, as a Lambda does; run from the command line,
    stdout is for results, so its log lines go to stderr."""
    handler = getattr(getattr(module, "logger", None), "registered_handler", None)
    if isinstance(handler, logging.StreamHandler):
        handler.setStream(sys.stderr)


def sqs_event(messages: Sequence[Mapping[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    """An SQS -> Lambda event from ReceiveMessage results (same shape as AWS sends)."""
    records = []
    for m in messages:
        records.append(
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": dict(m.get("Attributes", {})),
                "messageAttributes": dict(m.get("MessageAttributes", {})),
                "md5OfBody": m.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": region,
            }
        )
    return {"Records": records}


@dataclass
class RunStats:
    batches: int = 0
    received: int = 0
    succeeded: int = 0
    failed: int = 0
    workers: int = 1
    # Wall-clock times (time.time(), comparable across processes): when polling began
    # (after the cold start) and when the last handled batch was done.
    first_poll: float = 0.0
    last_done: float = 0.0

    @classmethod
    def total(cls, parts: Iterable[RunStats]) -> RunStats:
        """The stats of several workers as one run."""
        parts = list(parts)
        return cls(
            batches=sum(p.batches for p in parts),
            received=sum(p.received for p in parts),
            succeeded=sum(p.succeeded for p in parts),
            failed=sum(p.failed for p in parts),
            workers=sum(p.workers for p in parts),
            first_poll=min((p.first_poll for p in parts if p.first_poll), default=0.0),
            last_done=max((p.last_done for p in parts), default=0.0),
        )


class Runner:
    """Polls the ingest queue and feeds the ingest Lambda handler, like the event source
    mapping does: batch of up to 10, partial batch failures stay on the queue."""

    def __init__(self, cfg: StackConfig, *, batch_size: int = 10, wait_seconds: int = 1) -> None:
        self.cfg = cfg
        self.batch_size = batch_size
        self.wait_seconds = wait_seconds
        apply_env(cfg.env())
        self.sqs = boto("sqs", cfg)
        self.queue_arn = self.sqs.get_queue_attributes(
            QueueUrl=cfg.queue_url, AttributeNames=["QueueArn"]
        )["Attributes"]["QueueArn"]
        module = load_function("ingest")
        log_to_stderr(module)
        self.handler: Callable[[dict[str, Any], Any], dict[str, Any]] = module.lambda_handler
        # With POWERTOOLS_METRICS_DISABLED the handler's metrics are never flushed; a
        # long-running runner clears them after each invocation instead of growing.
        self._metrics: Any = getattr(module, "metrics", None)
        self.stats = RunStats()

    def poll_once(self) -> int:
        """One ReceiveMessage + handler call; returns the number of messages received."""
        resp = self.sqs.receive_message(
            QueueUrl=self.cfg.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=self.wait_seconds,
            MessageSystemAttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        messages = resp.get("Messages", [])
        if not messages:
            return 0
        self.stats.batches += 1
        self.stats.received += len(messages)
        event = sqs_event(messages, self.queue_arn, self.cfg.region)
        try:
            result = self.handler(event, LocalContext())
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
        except Exception as exc:  # the whole invocation failed: every message is retried
            say(f"handler raised {type(exc).__name__}: {exc}; batch returns to the queue")
            failed = {m["MessageId"] for m in messages}
        if self._metrics is not None:
            self._metrics.clear_metrics()
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            self.sqs.delete_message_batch(
                QueueUrl=self.cfg.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)
                ],
            )
        self.stats.succeeded += len(done)
        self.stats.failed += len(failed)
        self.stats.last_done = time.time()
        # The queue's length is not known up front: the bar counts messages handled.
        progress.advance("local run: messages", self.stats.received)
        return len(messages)

    def run(
        self,
        *,
        until: Callable[[], bool] | None = None,
        until_idle: float | None = None,
        max_seconds: float | None = None,
    ) -> bool:
        """Poll until ``until()`` holds, the queue was idle that long, or time is up.

        Returns True when stopped by ``until``/idleness, False on timeout.
        """
        start = time.monotonic()
        idle_since = time.monotonic()
        self.stats.first_poll = self.stats.first_poll or time.time()
        while True:
            if until is not None and until():
                return True
            if max_seconds is not None and time.monotonic() - start > max_seconds:
                return False
            n = self.poll_once()
            if n:
                idle_since = time.monotonic()
            elif until_idle is not None and time.monotonic() - idle_since >= until_idle:
                return True


def _run_one(
    cfg: StackConfig, batch_size: int, until_idle: float | None, max_seconds: float | None
) -> RunStats:
    """One worker: a Runner until the queue is idle or time is up (Ctrl-C ends it too)."""
    runner = Runner(cfg, batch_size=batch_size)
    with contextlib.suppress(KeyboardInterrupt):
        runner.run(until_idle=until_idle, max_seconds=max_seconds)
    return runner.stats


def run_workers(
    cfg: StackConfig,
    workers: int = 1,
    *,
    batch_size: int = 10,
    until_idle: float | None = None,
    max_seconds: float | None = None,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> RunStats:
    """``workers`` runners on one queue, each in its own process, as several Lambda
    execution environments are: one batch at a time per worker, the handler's
    module state (settings, pipeline, clients) its own. Processes, not threads: the
    handler's work (extraction, ICU segmentation, tokenizing, building the bulk
    bodies) is CPU-bound Python that holds the GIL, and the handler module keeps one
    pipeline per process. ``initializer(*initargs)`` runs first in each worker (the
    benchmarks swap the embedder there). One worker without an initializer runs in
    this process. Returns the summed stats."""
    if workers < 1:
        raise ConfigError(f"workers: at least 1, got {workers}")
    if workers == 1 and initializer is None:
        return _run_one(cfg, batch_size, until_idle, max_seconds)
    context = multiprocessing.get_context("spawn")  # no boto3/OpenSearch state forked
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=initializer, initargs=initargs
    ) as pool:
        jobs = [
            pool.submit(_run_one, cfg, batch_size, until_idle, max_seconds) for _ in range(workers)
        ]
        return RunStats.total(_result_after_interrupts(job) for job in jobs)


def _result_after_interrupts(job: Future[RunStats]) -> RunStats:
    """Ctrl-C reaches the workers too; they stop after their batch and report."""
    while True:
        try:
            return job.result()
        except KeyboardInterrupt:
            continue
