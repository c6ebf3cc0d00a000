"""Reconcile function: the scheduled sweep, re-chunk fan-out and the retention sweep.

Events:
- EventBridge "Scheduled Event" or ``{"action": "sweep"}``: compare the bucket's
  current versions with the index's live set; enqueue one reconcile message per
  drifted key on the ingest queue (the ingest function repairs them in parallel);
  a key whose current revision is known to fail permanently is reported apart
  (``known_failures``), not re-enqueued.
- ``{"action": "rechunk", "generation": "g..."?}``: create a new generation index and
  enqueue one rechunk message per object (never a loop over the bucket's documents
  inside this invocation).
- ``{"action": "finish-rechunk", "generation": "g...", "force": false}``: verify the
  generation holds exactly the bucket's current revisions, then swap both aliases.
- ``{"action": "retention", "older_than": "7d"?}`` (scheduled daily): erase the chunks
  and artifacts of revisions deleted or superseded longer ago than that (default
  ``CHUNKWISE_RETENTION``, 7 days).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit

from chunkwise.settings import ReconcileSettings, load_settings
from chunkwise.wiring import pipeline_config

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

logger = Logger(service="chunkwise-reconcile")
tracer = Tracer(service="chunkwise-reconcile")
metrics = Metrics(namespace="chunkwise", service="reconcile")

# Cold start: a bad variable, or a bad combination of them (the pipeline's
# configuration), fails here, loudly.
SETTINGS: ReconcileSettings = load_settings(ReconcileSettings)
pipeline_config(SETTINGS)


def handle(event: dict[str, Any]) -> dict[str, Any]:
    from chunkwise.wiring import operations

    if not isinstance(event, dict):  # EventBridge Scheduler without an Input
        event = {}
    action = str(event.get("action") or "sweep")
    if event.get("detail-type") == "Scheduled Event":
        action = "sweep"
    if action == "sweep":
        res = operations.run_sweep(SETTINGS, enqueue=bool(SETTINGS.queue_url))
        metrics.add_metric(name="DriftedKeys", unit=MetricUnit.Count, value=len(res.drifted))
        # Revisions known to fail are reported apart: fixing them is a new upload.
        metrics.add_metric(
            name="KnownFailures", unit=MetricUnit.Count, value=len(res.known_failures)
        )
        out: dict[str, Any] = {
            "action": action,
            "bucket_keys": res.bucket_keys,
            "indexed_keys": res.indexed_keys,
            "drifted": len(res.drifted),
            "enqueued": res.enqueued,
            "repaired": len(res.repaired),
            "failed": res.failed,
            "known_failures": len(res.known_failures),
            "known_failure_keys": sorted(res.known_failures)[:100],
        }
    elif action == "rechunk":
        gen, n = operations.start_rechunk(SETTINGS, event.get("generation"))
        out = {"action": action, "generation": gen, "enqueued": n}
    elif action == "finish-rechunk":
        check = operations.finish_rechunk(
            SETTINGS, str(event["generation"]), force=bool(event.get("force", False))
        )
        out = {
            "action": action,
            "generation": check.generation,
            "complete": check.complete,
            "swapped": check.complete or bool(event.get("force", False)),
            "bucket_keys": check.bucket_keys,
            "indexed_keys": check.indexed_keys,
            "missing": list(check.missing[:100]),
            "extra": list(check.extra[:100]),
        }
    elif action == "retention":
        older_than = str(event.get("older_than") or SETTINGS.retention)
        kept = operations.run_retention(SETTINGS, older_than)
        metrics.add_metric(
            name="ErasedRevisions", unit=MetricUnit.Count, value=kept.expired_revisions
        )
        out = {
            "action": action,
            "older_than": older_than,
            "deleted_chunks": kept.deleted_chunks,
            "expired_revisions": kept.expired_revisions,
            "deleted_artifacts": kept.deleted_artifacts,
        }
    else:
        raise ValueError(f"unknown action {action!r}")
    logger.info("reconcile done", extra=out)
    return out


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle(event)
