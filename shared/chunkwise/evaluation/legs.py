"""The I/O half of the offline fusion replay: both legs of every question fetched once
from the real index (`chunkwise eval --legs-out`; the pure half is
`chunkwise.evaluation.replay`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chunkwise import progress
from chunkwise.adapters.opensearch.retries import with_retries
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.evaluation.evaluate import Gold, Question
from chunkwise.evaluation.judging import RankedHit, citation_verifies
from chunkwise.evaluation.replay import Legs, QuestionLegs, StoredChunk, source_subset
from chunkwise.index.reading import candidate_of
from chunkwise.index.reading import judge as judge_current
from chunkwise.schema import Chunk
from chunkwise.search.hybrid import (
    Hit,
    SearchFilters,
    bm25_query,
    build_hit,
    guess_query_lang,
    knn_query,
)


def _leg_search(searcher: Searcher, body: dict[str, Any]) -> list[dict[str, Any]]:
    """One leg as the hybrid search path sends it: over the searcher's index (the write
    alias, pending and live chunks), the whole answer or an error."""

    def call() -> Any:
        return searcher.client.search(index=searcher.index, body=body)

    hits: list[dict[str, Any]] = with_retries(searcher.policy, "search", call)["hits"]["hits"]
    return hits


def fetch_legs(
    searcher: Searcher,
    questions: Sequence[Question],
    vectors: Mapping[str, list[float]],
    depth: int,
    gold: Mapping[str, Gold],
    texts: Mapping[tuple[str, str], str],
    store: dict[str, Chunk],
    ranked: Callable[[Sequence[Hit], dict[str, Chunk]], list[RankedHit]],
    k: int,
) -> Legs:
    """Both legs of every question, once (`chunkwise.evaluation.replay`): BM25 and k-NN
    top ``depth`` with their raw scores, the queries the client-side fusion path sends
    (`Searcher._client`: same bodies, language boost and filters; the server's hybrid
    query runs the same two clauses); which returned chunks are current (the heads,
    read once: the index does not change while the questions run) and which answer."""
    f = SearchFilters()
    sources: dict[str, dict[str, Any]] = {}
    rows: list[tuple[Question, list[tuple[str, float]], list[tuple[str, float]]]] = []
    for q in progress.track(questions, "eval: legs"):
        lang = guess_query_lang(q.question)
        legs: list[list[tuple[str, float]]] = []
        for body in (
            bm25_query(q.question, depth, f, lang=lang),
            knn_query(vectors[q.question], depth, f) if searcher.embedder_reads(lang) else None,
        ):
            raw = [] if body is None else _leg_search(searcher, body)
            for h in raw:
                sources.setdefault(str(h["_id"]), source_subset(h["_source"]))
            legs.append([(str(h["_id"]), float(h.get("_score") or 0.0)) for h in raw])
        rows.append((q, legs[0], legs[1]))
    cands = {
        d: candidate_of(d, str(s.get("doc_id", "")), str(s.get("state", "")))
        for d, s in sources.items()
    }
    heads = searcher.heads.search_heads(sorted({c.doc_id for c in cands.values()}))
    ids = list(cands)
    keep, _ = judge_current(
        [cands[d] for d in ids], {c.doc_id: heads.get(c.doc_id) for c in cands.values()}
    )
    chunks = {d: StoredChunk(d, sources[d], k) for d, k in zip(ids, keep, strict=True)}
    out = []
    for q, b, kn in rows:
        seen = {d for d, _ in (*b, *kn)}
        judged = ranked([build_hit(chunks[d].raw(0.0), 0.0, "replay") for d in sorted(seen)], store)
        correct = frozenset(r.id for r in judged if citation_verifies(r, gold[q.id], texts))
        out.append(
            QuestionLegs(q.id, q.lang, q.doc_type, tuple(q.tags), tuple(b), tuple(kn), correct)
        )
    meta = {"index": searcher.index, "opensearch": searcher.caps.version}
    return Legs(depth, k, chunks, tuple(out), meta)
