"""The ingest pipeline: "key K in bucket B changed" -> the index agrees with S3.

samdocs/architecture.md, "One upload, step by step" and "The revision protocol".
The same code runs in the ingest Lambda, in the local runner (`chunkwise local run`)
and in tests; handlers only adapt events.

Reconcile, don't replay
-----------------------
An event only says that a key changed (`chunkwise.ingest.messages.ObjectChange`).
`Pipeline.ingest_batch` (an SQS batch; `Pipeline.ingest` is a batch of one) admits
each change, then hands the keys of each generation to the revision switch
(`chunkwise.ingest.revisions`) once: it reads each document's head, asks S3 for the
key's current version (HEAD) and, if the head does not name it yet, loads that exact
revision (`chunkwise.ingest.embed_batch.BatchLoader`: each document through
`chunkwise.ingest.document.DocumentLoader` - GetObject with its VersionId, limits,
extract, chunk, artifacts - then the batch's chunks embedded together), creates the
chunks pending, HEADs S3 again and commits the head; then the new chunks go live and
the older revision is superseded. If the key is gone the head becomes a tombstone
(the chunks become ``deleted``). Each change's `IngestResult` is then built from the
switch's outcome and the document's load.

Sidecars
--------
What S3 holds for a document is its revision state: the object's version and its
sidecar's (`chunkwise.ingest.sidecars.current_state`). A change of ``K.metadata.json``
is a change of ``K`` (same doc_id); when only the sidecar moved, the switch restamps
the current chunks with the new metadata (`BatchLoader.restamp`): nothing is
extracted or embedded, and the result says ``metadata_only``. A sidecar that is
refused (`chunkwise.metadata.MetadataError`, naming the field) fails its document's
state like any document that can never be indexed: the DLQ after the queue's
retries, batch-mates unaffected, and no older state left visible in its place.

Identifiers
-----------
``doc_id`` = first 32 hex digits of sha256(``bucket`` + NUL + ``key``)
(`chunkwise.index.names.make_doc_id`): stable for the life of the key, the same in
every generation, safe as ``_id`` prefix and routing value. The revision is the
S3 VersionId (``etag-<etag>`` for unversioned buckets).

Errors: `PermanentError` (extraction, limits, mapping) -> the message ends in
the DLQ after the queue's retries; `TransientError` -> retried.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from chunkwise.errors import ChunkwiseError, ConfigError, PermanentError, TransientError
from chunkwise.index.names import make_doc_id
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.config import PipelineConfig
from chunkwise.ingest.document import DocumentLoad, DocumentLoader
from chunkwise.ingest.embed_batch import BatchLoader, Restamp
from chunkwise.ingest.messages import ObjectChange
from chunkwise.ingest.ports import ArtifactStore, ObjectStore, RevisionSource
from chunkwise.ingest.result import IngestResult, Status
from chunkwise.ingest.revisions import Outcome, RevisionSwitch, SwitchIndexPort
from chunkwise.ingest.sidecars import current_state, document_key
from chunkwise.metadata.sidecar import SIDECAR_SUFFIX

if TYPE_CHECKING:
    from chunkwise.chunking.config import ChunkerConfig
    from chunkwise.embedding.embed import Embedder
    from chunkwise.extract import ExtractLimits, OcrPort
    from chunkwise.index.versions import ObjectVersion
    from chunkwise.models.counter import HFTokenCounter

log = logging.getLogger("chunkwise.pipeline")


class PipelineIndexPort(SwitchIndexPort, RevisionSource, Protocol):
    """What the pipeline needs of a generation's index: the switch's port, and the
    stored chunks of a state for a metadata-only change."""


IndexFactory = Callable[[str | None], PipelineIndexPort]
BudgetFor = Callable[[ObjectChange], DocumentBudget]


@dataclass(frozen=True)
class _Admitted:
    """A change the revision switch takes: its (resolved) key and document."""

    change: ObjectChange
    key: str
    doc_id: str


@dataclass(frozen=True)
class _Switched:
    """What the switch made of one document, and what its load learnt."""

    outcome: Outcome
    load: DocumentLoad | Restamp | None
    embed_seconds: float | None
    seconds: float  # the whole switch of the batch
    extractions: int = 0
    embedding_calls: int = 0


class Pipeline:
    """Ingest object changes, a batch at a time. Thread-compatible: one per worker."""

    def __init__(
        self,
        config: PipelineConfig,
        *,
        store: ObjectStore,
        artifacts: ArtifactStore,
        index_for: IndexFactory,
        embedder: Embedder,
        chunker_config: ChunkerConfig | None = None,
        counter: HFTokenCounter | None = None,
        limits: ExtractLimits | None = None,
        ocr: OcrPort | None = None,
    ) -> None:
        if store.bucket != config.bucket:
            raise ConfigError(f"store bucket {store.bucket!r} != config bucket {config.bucket!r}")
        self.config = config
        self.store = store
        self.artifacts = artifacts
        self.index_for = index_for
        self.embedder = embedder
        self.ocr = ocr
        self.documents = DocumentLoader(
            config,
            store,
            artifacts,
            embedder,
            chunker_config=chunker_config,
            counter=counter,
            limits=limits,
            ocr=ocr,
        )

    def ingest(self, change: ObjectChange, budget: DocumentBudget | None = None) -> IngestResult:
        """Make the index agree with S3's current version of ``change.key``; raises the
        document's error (`PermanentError`: never indexable; `TransientError`: retry).

        ``budget`` bounds this document's time and memory (the ingest function derives
        it from the invocation's remaining time); over it, `LimitExceeded`.
        """
        (result,) = self.ingest_batch([change], lambda _c: budget or DocumentBudget.unbounded())
        if result.error is not None:
            raise result.error
        return result

    def ingest_batch(
        self, changes: Sequence[ObjectChange], budget_for: BudgetFor | None = None
    ) -> list[IngestResult]:
        """Several changes (one SQS batch) through the revision switch together: one
        index round trip per phase for all of them. One result per change, in order; a
        failed one has status "failed" and its error: a `PermanentError` for the DLQ, a
        `TransientError` to retry."""
        budget_for = budget_for or (lambda _c: DocumentBudget.unbounded())
        admitted = [self._admit(c) for c in changes]
        by_generation: dict[str | None, dict[str, list[_Admitted]]] = {}
        for a in admitted:
            if isinstance(a, _Admitted):
                docs = by_generation.setdefault(a.change.generation, {})
                docs.setdefault(a.doc_id, []).append(a)
        switched: dict[tuple[str | None, str], _Switched] = {}
        for generation, docs in by_generation.items():
            port = self.index_for(generation)
            for doc_id, done in self._switch(port, {d: a[0] for d, a in docs.items()}, budget_for):
                switched[(generation, doc_id)] = done
        return [
            a
            if isinstance(a, IngestResult)
            else _result(a, switched[(a.change.generation, a.doc_id)])
            for a in admitted
        ]

    def resolve_key(self, change: ObjectChange) -> str:
        """Decoded key, unless only the raw event key exists (an emulator or an
        EventBridge rule that did not URL-encode a key with a literal '+' or '%')."""
        if not change.raw_key or change.raw_key == change.key:
            return change.key
        if (
            self.store.head_current(change.key) is None
            and self.config.watches(change.raw_key)
            and self.store.head_current(change.raw_key) is not None
        ):
            log.warning("key %r exists only undecoded; using it", change.raw_key)
            return change.raw_key
        return change.key

    def _admit(self, change: ObjectChange) -> _Admitted | IngestResult:
        """The change for the switch, or its final result if the switch has nothing to do
        with it (another bucket, a key outside the input prefix, a key S3 cannot say)."""
        config = self.config
        doc_id = make_doc_id(config.bucket, change.key)
        document = document_key(change.key)
        if change.bucket != config.bucket:
            error = PermanentError(
                f"event for bucket {change.bucket!r}, but this pipeline serves {config.bucket!r}"
            )
            return IngestResult(
                change.key, doc_id, "failed", generation=change.generation, error=error
            )
        if not config.watches(change.key):
            log.info(
                "ignored: %r is not under the input prefix %r", change.key, config.input_prefix
            )
            return IngestResult(change.key, doc_id, "ignored", generation=change.generation)
        if document is None:
            log.info("ignored: %r is the sidecar of a sidecar", change.key)
            return IngestResult(change.key, doc_id, "ignored", generation=change.generation)
        if document != change.key:  # a sidecar: its document's state changed
            change = _of_document(change, document)
        try:
            key = self.resolve_key(change)
        except ChunkwiseError as exc:
            return IngestResult(
                change.key, doc_id, "failed", generation=change.generation, error=exc
            )
        return _Admitted(change, key, make_doc_id(config.bucket, key))

    def _switch(
        self, port: PipelineIndexPort, docs: Mapping[str, _Admitted], budget_for: BudgetFor
    ) -> list[tuple[str, _Switched]]:
        """The documents of one generation through one revision switch."""
        loader = BatchLoader(
            self.documents.load,
            self.embedder,
            lambda doc_id: budget_for(docs[doc_id].change),
            source=port,
            read_metadata=self.documents.read_metadata,
        )
        switch = RevisionSwitch(port, self.current_state, loader, restamp=loader.restamp)
        t0 = time.perf_counter()
        outcomes = switch.run({d: a.key for d, a in docs.items()})
        seconds = time.perf_counter() - t0
        out = []
        for doc_id, outcome in outcomes.items():
            _, error = _status(outcome, docs[doc_id].key)
            if isinstance(error, PermanentError) and outcome.revision:
                _record_failure(port, docs[doc_id], outcome, error)
            load: DocumentLoad | Restamp | None = (
                loader.restamps.get(doc_id) if outcome.metadata_only else loader.loads.get(doc_id)
            )
            out.append(
                (
                    doc_id,
                    _Switched(
                        outcome,
                        load,
                        loader.embed_seconds.get(doc_id),
                        seconds,
                        self.documents.extractions.pop(doc_id, 0),
                        loader.embed_calls.get(doc_id, 0),
                    ),
                )
            )
        return out

    def current_state(self, key: str) -> ObjectVersion | None:
        """S3's current revision state of document ``key`` (object + sidecar)."""
        return current_state(self.store, key)


def _status(outcome: Outcome, key: str) -> tuple[Status, ChunkwiseError | None]:
    if outcome.status == "indexed":
        return "indexed", None
    if outcome.status == "unchanged":
        return ("unchanged" if outcome.revision else "retired"), None
    if outcome.status == "retired":
        return "retired", None
    return "failed", outcome.error or TransientError(f"{key!r}: switch ended open")


def _result(admitted: _Admitted, switched: _Switched) -> IngestResult:
    outcome = switched.outcome
    status, error = _status(outcome, admitted.key)
    stages = dict(switched.load.stages) if switched.load is not None else {}
    if switched.embed_seconds is not None:
        stages["embed"] = switched.embed_seconds
    stages["total"] = switched.seconds
    return IngestResult.loaded(
        admitted.key,
        admitted.doc_id,
        status,
        switched.load,
        revision=outcome.revision,
        metadata_version=outcome.metadata_version,
        generation=admitted.change.generation,
        rounds=outcome.rounds,
        actions=[outcome.status],
        stages=stages,
        error=error,
        metadata_only=outcome.metadata_only and status == "indexed",
        extractions=switched.extractions,
        embedding_calls=switched.embedding_calls,
    )


def _of_document(change: ObjectChange, document: str) -> ObjectChange:
    """A sidecar's change as a change of its document (the raw key likewise: the
    sidecar suffix needs no URL-encoding, so it ends the raw key too)."""
    raw = change.raw_key
    if raw and raw != change.key and raw.endswith(SIDECAR_SUFFIX):
        raw = raw[: -len(SIDECAR_SUFFIX)]
    else:
        raw = document
    return replace(change, key=document, raw_key=raw)


def _record_failure(
    port: SwitchIndexPort, admitted: _Admitted, outcome: Outcome, error: PermanentError
) -> None:
    """A revision state that can never be indexed gets its marker (the sweep skips it).
    Best effort: the document's own error is what the caller must see; without the
    marker the next sweep only enqueues the state once more."""
    revision = outcome.revision or ""
    try:
        port.record_failure(
            admitted.doc_id, admitted.key, revision, str(error), outcome.metadata_version
        )
    except ChunkwiseError as marker_error:
        log.warning(
            "could not record the failure of %s/%s: %s", admitted.doc_id, revision, marker_error
        )
