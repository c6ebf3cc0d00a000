"""chunkwise.ingest.embed_batch: documents loaded alone, embedded together, errors kept apart."""

from __future__ import annotations

from collections.abc import Sequence

from chunkwise.errors import ChunkwiseError, TransientError
from chunkwise.index.versions import ObjectVersion
from chunkwise.ingest.budget import DocumentBudget
from chunkwise.ingest.document import ChunkingFacts, DocumentLoad, ExtractionFacts
from chunkwise.ingest.embed_batch import BatchLoader
from chunkwise.ingest.revisions import Loaded
from tests.fakes.index import chunks_from_paragraphs
from tests.fakes.pipeline import FakeEmbedder


class RefusingEmbedder(FakeEmbedder):
    """Refuses every call that holds a text with "refused" in it."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if any("refused" in t for t in texts):
            self.calls.append(-len(texts))
            raise TransientError("model refused the text")
        return super().embed(texts)


def _version(key: str) -> ObjectVersion:
    return ObjectVersion("2026-03-02T09:00:00.000Z", "v1", key=key, etag='"e"', size=10)


def _load(version: ObjectVersion, doc_id: str, _budget: DocumentBudget) -> DocumentLoad:
    words = "refused" if "bad" in version.key else "fine"
    chunks = chunks_from_paragraphs(doc_id, version, [f"{words} text {i}" for i in range(3)])
    facts = ExtractionFacts("markdown", None, 0, 0, 0, 0, 0, 0)
    tokens = sum(c.token_count for c in chunks)
    return DocumentLoad(chunks, facts, ChunkingFacts(3, 0, 5, tokens, {}), {"fetch": 0.0})


def test_a_refused_document_fails_alone_and_leaves_no_load_behind() -> None:
    embedder = RefusingEmbedder()
    budgets: list[str] = []

    def budget_for(doc_id: str) -> DocumentBudget:
        budgets.append(doc_id)
        return DocumentBudget.unbounded()

    loader = BatchLoader(_load, embedder, budget_for)
    items = [(d, f"incoming/{d}.md", _version(f"incoming/{d}.md")) for d in ("a", "bad", "c")]
    out = loader(items)
    assert isinstance(out["bad"], ChunkwiseError)
    good = {d: r for d, r in out.items() if isinstance(r, Loaded)}
    assert sorted(good) == ["a", "c"]
    assert all(len(r.vectors) == len(r.chunks) == 3 for r in good.values())
    assert sorted(loader.loads) == ["a", "c"]  # the failed document's chunks are let go
    assert sorted(loader.embed_seconds) == ["a", "c"]
    assert budgets == ["a", "bad", "c"]  # one budget per document, in load order
    # one shared call failed, then each document alone: only the refused one failed
    assert embedder.calls[0] == -9 and sorted(embedder.calls[1:]) == [-3, 3, 3]
