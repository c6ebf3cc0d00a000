"""The revision switch's load step for a batch: each document loaded alone, the
chunks of consecutive documents embedded together; and its restamp step, for a
metadata-only change, which neither extracts nor embeds.

`BatchLoader` is the switch's ``load`` callable (`chunkwise.ingest.revisions`): it
loads each document in its own budget (`chunkwise.ingest.document.DocumentLoader`)
and embeds the chunks of consecutive documents in shared calls of the embedder's
batch size (Cohere Embed takes 96 texts per call: ten documents of ten chunks are
two calls, not ten). An error stays that document's. What each document's load
returned, how long its embedding took and how many embedding calls carried its texts
are kept (`loads`, `embed_seconds`, `embed_calls`), for the pipeline to report once the
switch is done.

`BatchLoader.restamp` is the switch's ``restamp`` callable: for a document whose
sidecar (or its absence) is all that changed, it reads the new state's metadata and
the chunks and vectors of the head's state back from the index (`RevisionSource`), and
hands them on with the new metadata; what it did is kept in `restamps`. A document
whose stored chunks are gone is left to the full load.
"""

from __future__ import annotations

import gc
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chunkwise.errors import ChunkwiseError
from chunkwise.index.heads import Head
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.document import DocumentLoad
from chunkwise.ingest.ports import RevisionSource
from chunkwise.ingest.revisions import Loaded
from chunkwise.metadata.fields import document_fields
from chunkwise.metadata.model import DocumentMetadata
from chunkwise.schema import Chunk

if TYPE_CHECKING:
    from chunkwise.embedding.embed import Embedder
    from chunkwise.index.versions import ObjectVersion

#: Texts per embedding call between budget checks (a step of the local model takes
#: about a second on a loaded core; Bedrock embeds one text per call anyway).
EMBED_STEP = 16

LoadDocument = Callable[["ObjectVersion", str, DocumentBudget], DocumentLoad]
ReadMetadata = Callable[["ObjectVersion"], DocumentMetadata]
Results = dict[str, Loaded | ChunkwiseError]


@dataclass(frozen=True)
class Restamp:
    """A revision state made from the head's chunks with new metadata."""

    chunks: int
    tokens: int
    metadata: DocumentMetadata
    stages: dict[str, float]  # seconds of metadata, restamp (the read of the chunks)


class BatchLoader:
    """The switch's `load`: ``items`` of ``(doc_id, key, version)`` to each document's
    chunks and vectors, or the error that keeps it from being indexed. A document's
    budget is made when it is first loaded (``budget_for(doc_id)``) and kept for the
    rounds that follow."""

    def __init__(
        self,
        load: LoadDocument,
        embedder: Embedder,
        budget_for: Callable[[str], DocumentBudget],
        *,
        source: RevisionSource | None = None,
        read_metadata: ReadMetadata | None = None,
    ) -> None:
        self.load = load
        self.embedder = embedder
        self.budget_for = budget_for
        self.source = source
        self.read_metadata = read_metadata
        self.budgets: dict[str, DocumentBudget] = {}
        self.loads: dict[str, DocumentLoad] = {}  # the latest load of each loaded document
        self.restamps: dict[str, Restamp] = {}  # the latest restamp of each document
        self.embed_seconds: dict[str, float] = {}  # its share of the embedding calls
        self.embed_calls: dict[str, int] = {}  # embedding calls that carried its texts

    def __call__(self, items: Sequence[tuple[str, str, ObjectVersion]]) -> Results:
        out: Results = {}
        loaded: dict[str, list[Chunk]] = {}
        shared = SharedEmbedding(self, out)
        for doc_id, _key, version in items:
            budget = self.budgets.setdefault(doc_id, self.budget_for(doc_id))
            try:
                self.loads[doc_id] = self.load(version, doc_id, budget)
            except ChunkwiseError as exc:
                self.fail(out, doc_id, exc)
                continue
            loaded[doc_id] = self.loads[doc_id].chunks
            shared.add(doc_id, loaded[doc_id])
        vectors = shared.finish()
        versions = {doc_id: version for doc_id, _key, version in items}
        for doc_id, chunks in loaded.items():
            if doc_id not in out:
                out[doc_id] = Loaded(
                    chunks,
                    vectors[doc_id],
                    metadata_version=versions[doc_id].metadata_version,
                    fields=document_fields(self.loads[doc_id].metadata),
                )
        return out

    def restamp(self, items: Sequence[tuple[str, Head, ObjectVersion]]) -> Results:
        """The switch's restamp step: ``items`` of ``(doc_id, head, version)``, where
        ``version`` differs from the head's state in its metadata only. Nothing is
        extracted or embedded; a document whose chunks cannot be read back is left out
        (the switch loads it in full)."""
        out: Results = {}
        if self.source is None or self.read_metadata is None:
            return out
        for doc_id, head, version in items:
            budget = self.budgets.setdefault(doc_id, self.budget_for(doc_id))
            stages: dict[str, float] = {}
            try:
                budget.check("metadata")
                t0 = time.perf_counter()
                metadata = self.read_metadata(version)
                t1 = time.perf_counter()
                stored = self.source.read_revision(doc_id, head.revision_key, head.chunks)
                stages |= {"metadata": t1 - t0, "restamp": time.perf_counter() - t1}
            except ChunkwiseError as exc:
                self.fail(out, doc_id, exc)
                continue
            if stored is None or any(c.revision != version.revision for c, _ in stored):
                continue
            chunks = [c for c, _ in stored]
            out[doc_id] = Loaded(
                chunks,
                [v for _, v in stored],
                metadata_version=version.metadata_version,
                fields=document_fields(metadata),
            )
            tokens = sum(c.token_count for c in chunks)
            self.restamps[doc_id] = Restamp(len(chunks), tokens, metadata, stages)
        return out

    def fail(self, out: Results, doc_id: str, exc: ChunkwiseError) -> None:
        # Kept until the batch ends: without its traceback, which holds the failed
        # document's frames (source bytes, extracted text) alive, and without its load.
        out[doc_id] = exc.with_traceback(None)
        self.loads.pop(doc_id, None)
        self.restamps.pop(doc_id, None)
        del exc
        gc.collect()  # what the failed document held is not the next one's to carry


class SharedEmbedding:
    """The chunks of consecutive documents embedded in shared calls of ``step`` texts.

    Full calls go out as soon as they are full; the rest waits for the next document,
    unless a waiting document has used half of its time budget (its share of the
    invocation must not run out while its batch-mates load), and goes out at the end.
    Before each call the budget of every document in it is checked, as before each
    step of a document alone; a document over it fails alone and its other texts
    leave the queue. A call that fails is retried document by document, so that the
    document whose text the model refused fails alone, not its call-mates."""

    def __init__(self, loader: BatchLoader, out: Results) -> None:
        self.loader, self.out = loader, out
        self.embedder = loader.embedder
        self.step = max(EMBED_STEP, int(self.embedder.batch_size))
        self.queue: deque[tuple[str, str]] = deque()
        self.vectors: dict[str, list[list[float]]] = {}
        self.step_seconds = 0.0  # how long the last call took: the next one will be alike

    def add(self, doc_id: str, chunks: Sequence[Chunk]) -> None:
        self.vectors[doc_id] = []
        if not chunks:
            self._check(doc_id, "index")
        self.queue.extend((doc_id, c.text) for c in chunks)
        self._flush(everything=self._pressed())

    def finish(self) -> Mapping[str, list[list[float]]]:
        self._flush(everything=True)
        return self.vectors

    def _pressed(self) -> bool:
        for doc_id in dict.fromkeys(d for d, _ in self.queue):
            budget = self.loader.budgets[doc_id]
            left, granted = budget.seconds_left(), budget.granted_seconds
            if left is not None and granted is not None and left < granted / 2:
                return True
        return False

    def _flush(self, *, everything: bool) -> None:
        while self.queue and (everything or len(self.queue) >= self.step):
            batch = [self.queue.popleft() for _ in range(min(self.step, len(self.queue)))]
            for doc_id in dict.fromkeys(d for d, _ in batch):
                self._check(doc_id, "embed", self.step_seconds)
            batch = [(d, t) for d, t in batch if d not in self.out]
            if batch:
                self._embed(batch)
            self.queue = deque((d, t) for d, t in self.queue if d not in self.out)
            waiting = {d for d, _ in self.queue}
            for doc_id in dict.fromkeys(d for d, _ in batch):
                if doc_id not in waiting:  # all its texts embedded: the step before writing
                    self._check(doc_id, "index")  # nothing is written past its deadline

    def _check(self, doc_id: str, stage: str, needs_seconds: float = 0.0) -> None:
        if doc_id in self.out:
            return
        try:
            self.loader.budgets[doc_id].check(stage, needs_seconds=needs_seconds)
        except ChunkwiseError as exc:
            self.loader.fail(self.out, doc_id, exc)

    def _embed(self, batch: list[tuple[str, str]]) -> None:
        t0 = time.perf_counter()
        owners = list(dict.fromkeys(d for d, _ in batch))
        calls = self.loader.embed_calls
        for doc_id in owners:
            calls[doc_id] = calls.get(doc_id, 0) + 1
        try:
            vectors = self.embedder.embed([t for _, t in batch])
        except ChunkwiseError as exc:
            if len(owners) == 1:
                self.loader.fail(self.out, owners[0], exc)
                return
            for doc_id in owners:
                self._embed([(d, t) for d, t in batch if d == doc_id])
            return
        self.step_seconds = time.perf_counter() - t0
        for (doc_id, _), vector in zip(batch, vectors, strict=True):
            self.vectors[doc_id].append(vector)
        seconds = self.loader.embed_seconds
        for doc_id in owners:
            share = sum(1 for d, _ in batch if d == doc_id) / len(batch)
            seconds[doc_id] = seconds.get(doc_id, 0.0) + self.step_seconds * share
