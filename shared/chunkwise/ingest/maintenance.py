"""Maintenance over the ports: the reconcile sweep, retention, the re-chunk fan-out and
the check that a new generation is complete (pure steps; the reconcile function and
`chunkwise reconcile` run them through `chunkwise.wiring.operations`).

- `sweep`: the bucket's current revision states (each document with its sidecar,
  `chunkwise.ingest.sidecars.fold_sidecars`) against the index's live set, by revision
  key; every key that drifted (lost events, failed messages after redrive, manual
  deletes, a switch whose finish never ran, chunks whose metadata is not their
  sidecar's) is enqueued, or reconciled inline without a queue; a state known to fail
  for good is reported apart, not re-enqueued;
- `apply_retention`: the chunks and artifacts of revisions deleted or superseded
  longer than the retention ago (an artifact stays while its object revision is
  visible under any state: a restamped revision shares its object revision's text);
- `fan_out_rechunk`: one rechunk message per current document (many workers share it);
- `verify_generation`: exactly the bucket's current revision states live in a generation?
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from chunkwise import progress
from chunkwise.errors import ChunkwiseError
from chunkwise.index.states import State
from chunkwise.ingest.config import ARTIFACT_SUFFIXES, PipelineConfig
from chunkwise.ingest.messages import ObjectChange, change_message
from chunkwise.ingest.ports import (
    ArtifactStore,
    LiveSetPort,
    ObjectStore,
    QueuePort,
    RetentionIndexPort,
)
from chunkwise.ingest.sidecars import fold_sidecars

if TYPE_CHECKING:
    from chunkwise.ingest.pipeline import Pipeline

log = logging.getLogger("chunkwise.pipeline")


def plan_sweep(bucket_revisions: Mapping[str, str], live: Mapping[str, set[str]]) -> list[str]:
    """Keys whose visible revision states differ from the bucket's current one (pure;
    revision keys on both sides).

    Lost events (key missing or stale in the index), failed messages after
    redrive, manual deletes (visible in the index, gone from S3), documents
    showing two states and chunks with older metadata than their sidecar all come out
    here.
    """
    drift = [k for k, rev in bucket_revisions.items() if live.get(k) != {rev}]
    drift += [k for k, revs in live.items() if revs and k not in bucket_revisions]
    return sorted(set(drift))


@dataclass
class SweepResult:
    bucket_keys: int
    indexed_keys: int
    drifted: list[str]
    enqueued: int = 0
    repaired: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    # key -> "revision: reason": the bucket's current revision is known to fail for
    # good; not drift, not re-enqueued (a new upload of the key is a new revision).
    known_failures: dict[str, str] = field(default_factory=dict)


def split_known_failures(
    drifted: Sequence[str],
    bucket_revisions: Mapping[str, str],
    failures: Mapping[str, Mapping[str, str]],
) -> tuple[list[str], dict[str, str]]:
    """(drift to repair, key -> "revision: reason" of current revisions known to fail)."""
    known: dict[str, str] = {}
    repair: list[str] = []
    for key in drifted:
        rev = bucket_revisions.get(key)
        reason = failures.get(key, {}).get(rev) if rev is not None else None
        if reason is None:
            repair.append(key)
        else:
            known[key] = f"{rev}: {reason}"
    return repair, known


def sweep(
    config: PipelineConfig,
    store: ObjectStore,
    live_set: LiveSetPort,
    *,
    queue: QueuePort | None = None,
    pipeline: Pipeline | None = None,
) -> SweepResult:
    """Reconcile sweep: bucket's current versions vs the index's live set.

    With a queue, one reconcile message per drifted key is enqueued (the ingest
    function does the work, in parallel, with the queue's retries and DLQ);
    without one, ``pipeline`` reconciles each drifted key inline (CLI, tests).
    """
    bucket = current_states(config, store)
    live = {k: v for k, v in live_set.live_revisions().items() if config.watches(k)}
    drifted, known = split_known_failures(
        plan_sweep(bucket, live), bucket, live_set.known_failures()
    )
    res = SweepResult(
        bucket_keys=len(bucket), indexed_keys=len(live), drifted=drifted, known_failures=known
    )
    if queue is not None:
        queue.send_batch([change_message(config.bucket, k, "reconcile") for k in res.drifted])
        res.enqueued = len(res.drifted)
    elif pipeline is not None:
        for k in progress.track(res.drifted, "reconcile: documents"):
            try:
                pipeline.ingest(ObjectChange(config.bucket, k, kind="reconcile", raw_key=k))
                res.repaired.append(k)
            except ChunkwiseError as exc:
                log.warning("sweep: %r failed: %s", k, exc)
                res.failed[k] = f"{type(exc).__name__}: {exc}"
    return res


@dataclass
class RetentionResult:
    deleted_chunks: int
    expired_revisions: int
    deleted_artifacts: int


def apply_retention(
    config: PipelineConfig,
    index: RetentionIndexPort,
    artifacts: ArtifactStore,
    older_than_seconds: int,
    *,
    now: datetime | None = None,
) -> RetentionResult:
    """Erase what deleted and superseded revisions left behind, once they are older
    than the retention: their chunks (text, vectors) in the index and their
    artifacts (canonical text, report). A revision that is visible again (live or
    pending, e.g. re-ingested meanwhile) keeps its artifacts, and so does one whose
    older state was superseded by a restamp: the index counts chunks by object
    revision (`revision_states`), so the new state's live chunks keep it visible.
    """
    at = now or datetime.now(UTC)
    expired = index.expired_revisions(older_than_seconds, now=at)
    deleted = index.sweep(older_than_seconds, now=at)
    keys: list[str] = []
    for doc_id in sorted({d for d, _ in expired}):
        states = index.revision_states(doc_id)
        visible = {r for r, st in states.items() if st.visible or st.n(State.PENDING)}
        for d, revision in sorted(expired):
            if d == doc_id and revision not in visible:
                keys += [config.artifact_key(doc_id, revision, s) for s in ARTIFACT_SUFFIXES]
    artifacts.delete(keys)
    return RetentionResult(deleted, len(expired), len(keys))


def current_states(config: PipelineConfig, store: ObjectStore, task: str = "") -> dict[str, str]:
    """Document key -> revision key of its current state, from one listing (sidecars
    folded into their documents)."""
    listing = store.list_current(config.input_prefix)
    versions = fold_sidecars(progress.track(listing, task) if task else listing)
    return {v.key: v.revision_key for v in versions if config.watches(v.key)}


def fan_out_rechunk(
    config: PipelineConfig, store: ObjectStore, queue: QueuePort, generation: str
) -> int:
    """Enqueue one rechunk message per current document (many workers share the work;
    a sidecar is read with its document, never on its own)."""
    bodies = [
        change_message(config.bucket, key, "rechunk", generation)
        for key in current_states(config, store, "rechunk: documents")
    ]
    queue.send_batch(bodies)
    return len(bodies)


@dataclass(frozen=True)
class GenerationCheck:
    generation: str
    bucket_keys: int
    indexed_keys: int
    missing: tuple[str, ...]  # current in S3, not (exactly) live in the generation
    extra: tuple[str, ...]  # live in the generation, gone from S3

    @property
    def complete(self) -> bool:
        return not self.missing and not self.extra and self.bucket_keys == self.indexed_keys


def verify_generation(
    config: PipelineConfig, store: ObjectStore, live_set: LiveSetPort, generation: str
) -> GenerationCheck:
    """Is the new generation complete: exactly the bucket's current revision states live?"""
    bucket = current_states(config, store, "finish: documents")
    live = {k: v for k, v in live_set.live_revisions().items() if v and config.watches(k)}
    missing = tuple(sorted(k for k, r in bucket.items() if live.get(k) != {r}))
    extra = tuple(sorted(k for k in live if k not in bucket))
    return GenerationCheck(generation, len(bucket), len(live), missing, extra)
