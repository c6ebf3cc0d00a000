"""One SQS batch through the revision switch: every document of the batch moves
through the switch's phases together (one OpenSearch round trip per phase,
`chunkwise.ingest.revisions`); extraction, chunking and embedding stay per
document, each within its own budget, so one bad document fails alone.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from chunkwise.errors import ChunkwiseError, PermanentError, TransientError
from chunkwise.index.bodies import ObjectVersion, make_doc_id
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.revisions import Loaded, Outcome, RevisionSwitch, SwitchIndexPort

if TYPE_CHECKING:
    from chunkwise.ingest.pipeline import IngestResult, ObjectChange, Pipeline

log = logging.getLogger("chunkwise.pipeline")

#: Texts per embedding call between budget checks (a step of the local model takes
#: about a second on a loaded core; Bedrock embeds one text per call anyway).
EMBED_STEP = 16

BudgetFor = Callable[["ObjectChange"], DocumentBudget]


def ingest_batch(
    pipeline: Pipeline, changes: Sequence[ObjectChange], budget_for: BudgetFor
) -> list[IngestResult]:
    """One result per change, in order; a failed one carries its error (``status``
    "failed"): a `PermanentError` for the DLQ, a `TransientError` to retry."""
    results = [_admit(pipeline, c) for c in changes]
    by_generation: dict[str | None, dict[str, list[tuple[ObjectChange, IngestResult]]]] = {}
    for change, result in zip(changes, results, strict=True):
        if result.status == "pending":
            docs = by_generation.setdefault(change.generation, {})
            docs.setdefault(result.doc_id, []).append((change, result))
    for generation, docs in by_generation.items():
        _switch(pipeline, pipeline.index_for(generation), docs, budget_for)
    return results


def _admit(pipeline: Pipeline, change: ObjectChange) -> IngestResult:
    """The change's result, "pending" when it is one for the switch."""
    from chunkwise.ingest.pipeline import IngestResult

    config = pipeline.config
    doc_id = make_doc_id(config.bucket, change.key)
    result = IngestResult(key=change.key, doc_id=doc_id, status="pending")
    result.generation = change.generation
    if change.bucket != config.bucket:
        result.status = "failed"
        result.error = PermanentError(
            f"event for bucket {change.bucket!r}, but this pipeline serves {config.bucket!r}"
        )
    elif not config.watches(change.key):
        log.info("ignored: %r is not under the input prefix %r", change.key, config.input_prefix)
        result.status = "ignored"
    else:
        try:
            result.key = pipeline.resolve_key(change)
        except ChunkwiseError as exc:
            result.status, result.error = "failed", exc
        result.doc_id = make_doc_id(config.bucket, result.key)
    return result


def _switch(
    pipeline: Pipeline,
    port: SwitchIndexPort,
    docs: Mapping[str, list[tuple[ObjectChange, IngestResult]]],
    budget_for: BudgetFor,
) -> None:
    loader = _Loader(pipeline, {d: items[0] for d, items in docs.items()}, budget_for)
    switch = RevisionSwitch(port, pipeline.store.head_current, loader)
    t0 = time.perf_counter()
    outcomes = switch.run({d: items[0][1].key for d, items in docs.items()})
    elapsed = time.perf_counter() - t0
    for doc_id, outcome in outcomes.items():
        first = docs[doc_id][0][1]
        for _change, result in docs[doc_id]:
            if result is not first:  # the same key twice in one batch: one switch
                result.stages, result.chunks, result.runts = first.stages, first.chunks, first.runts
            result.stages["total"] = elapsed
            _apply(port, outcome, result)


def _apply(port: SwitchIndexPort, outcome: Outcome, result: IngestResult) -> None:
    result.rounds = outcome.rounds
    result.actions = [outcome.status]
    result.revision = outcome.revision
    if outcome.status == "indexed":
        result.status = "indexed"
    elif outcome.status == "unchanged":
        result.status = "unchanged" if outcome.revision else "retired"
    elif outcome.status == "retired":
        result.status = "retired"
    else:
        result.status = "failed"
        result.error = outcome.error or TransientError(f"{result.key!r}: switch ended open")
        if isinstance(result.error, PermanentError) and outcome.revision:
            _record_failure(port, result, outcome.revision, result.error)


def _record_failure(
    port: SwitchIndexPort, result: IngestResult, revision: str, exc: PermanentError
) -> None:
    """Best effort: the document's own error is what the caller must see; without
    the marker the next sweep only enqueues the revision once more."""
    try:
        port.record_failure(result.doc_id, result.key, revision, str(exc))
    except ChunkwiseError as marker_error:
        log.warning(
            "could not record the failure of %s/%s: %s", result.doc_id, revision, marker_error
        )


class _Loader:
    """The switch's `LoadFn`: fetch, extract, chunk and embed each document in its
    own budget; an error stays that document's."""

    def __init__(
        self,
        pipeline: Pipeline,
        docs: Mapping[str, tuple[ObjectChange, IngestResult]],
        budget_for: BudgetFor,
    ) -> None:
        self.pipeline = pipeline
        self.docs = docs
        self.budget_for = budget_for
        self.budgets: dict[str, DocumentBudget] = {}

    def __call__(
        self, items: Sequence[tuple[str, str, ObjectVersion]]
    ) -> dict[str, Loaded | ChunkwiseError]:
        out: dict[str, Loaded | ChunkwiseError] = {}
        for doc_id, _key, version in items:
            change, result = self.docs[doc_id]
            budget = self.budgets.setdefault(doc_id, self.budget_for(change))
            try:
                chunks = self.pipeline.load_chunks(version, doc_id, result, budget)
                out[doc_id] = Loaded(chunks, self._embed([c.text for c in chunks], result, budget))
            except ChunkwiseError as exc:
                # Kept until the batch ends: without its traceback, which holds the
                # failed document's frames (source bytes, extracted text) alive.
                out[doc_id] = exc.with_traceback(None)
                del exc
                gc.collect()  # what the failed document held is not the next one's to carry
        return out

    def _embed(
        self, texts: Sequence[str], result: IngestResult, budget: DocumentBudget
    ) -> list[list[float]]:
        t0 = time.perf_counter()
        vectors: list[list[float]] = []
        step_seconds = 0.0  # how long the last step took: the next one will be alike
        for start in range(0, len(texts), EMBED_STEP):
            # Between steps, and not into a step that would end past the deadline: a
            # slow model must not run out the invocation's clock.
            budget.check("embed", needs_seconds=step_seconds)
            t_step = time.perf_counter()
            vectors += self.pipeline.embedder.embed(texts[start : start + EMBED_STEP])
            step_seconds = time.perf_counter() - t_step
        budget.check("index")  # nothing is written for a document past its deadline
        result.stages["embed"] = result.stages.get("embed", 0.0) + time.perf_counter() - t0
        return vectors
