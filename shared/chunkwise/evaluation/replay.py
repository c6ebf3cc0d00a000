"""Offline replay of hybrid fusions over stored legs (pure; no I/O).

`chunkwise eval --legs-out DIR` fetches, per question and once, both legs of the hybrid
query as the search path sends them (BM25 top ``depth`` and k-NN top ``depth`` over the
write alias, with their raw scores and chunk ids), which of those chunks are current
(the heads, as `chunkwise.index.reading` judges them) and which of them answer the
question strictly (`chunkwise.evaluation.judging.citation_verifies`). Whether a chunk
answers does not depend on where it is ranked, so any fusion can then be replayed
without the node: fuse the two stored lists, order by the one tie rule
(`chunkwise.search.hybrid.tie_key`), keep the top ``depth`` as the server's hybrid
query does, keep the current chunks, `postprocess` to k and take the first answering
hit's rank. With `FusionSpec.fuse` as the fusion this is the same arithmetic as the
cluster's pipeline (`chunkwise.search.fusion`), so the replayed ranks are the ranks
the eval recorded for that spec on the same index (checked by
``python -m bench.eval.fusion_replay verify``).

The file is JSONL: one ``meta`` line, one ``chunk`` line per chunk any leg returned
(its stored fields, no vector), one ``question`` line per question.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkwise.evaluation.judging import Judgement
from chunkwise.evaluation.metrics import grouped_metrics
from chunkwise.search.hybrid import Hit, build_hit, postprocess, tie_key

Leg = tuple[tuple[str, float], ...]  # one retriever's (chunk id, raw score), best first
Fuse = Callable[[Sequence[Sequence[tuple[str, float]]]], Mapping[str, float]]
#: The fields of a chunk's ``_source`` the replay needs (citation, tie rule, dedupe).
SOURCE_FIELDS = (
    "doc_id",
    "chunk_index",
    "last_modified",
    "kind",
    "lang",
    "source_key",
    "revision",
    "page_start",
    "page_end",
    "start",
    "end",
    "heading_path",
    "body",
    "state",
)


@dataclass(frozen=True)
class StoredChunk:
    id: str
    source: Mapping[str, Any]
    current: bool  # its document's head names its revision state

    def raw(self, score: float) -> dict[str, Any]:
        """The chunk as an OpenSearch raw hit with ``score``."""
        return {"_id": self.id, "_score": score, "_source": dict(self.source)}


@dataclass(frozen=True)
class QuestionLegs:
    id: str
    lang: str
    doc_type: str
    tags: tuple[str, ...]
    bm25: Leg
    knn: Leg
    correct: frozenset[str] = field(default_factory=frozenset)  # chunk ids that answer


@dataclass(frozen=True)
class Legs:
    depth: int  # each leg's size (the search path's window: k x candidates)
    k: int  # hits kept after post-processing
    chunks: Mapping[str, StoredChunk]
    questions: tuple[QuestionLegs, ...]
    meta: Mapping[str, Any] = field(default_factory=dict)
    # A sweep replays hundreds of fusions: each chunk's Hit is built once, and the
    # post-processed top k of an order already seen is looked up (many fusions agree).
    _hits: dict[str, Hit] = field(default_factory=dict, compare=False, repr=False)
    _tops: dict[tuple[str, ...], list[str]] = field(default_factory=dict, compare=False, repr=False)

    def hit(self, chunk_id: str) -> Hit:
        h = self._hits.get(chunk_id)
        if h is None:
            h = self._hits[chunk_id] = build_hit(self.chunks[chunk_id].raw(0.0), 0.0, "replay")
        return h


def source_subset(source: Mapping[str, Any]) -> dict[str, Any]:
    return {f: source.get(f) for f in SOURCE_FIELDS if f in source}


# --------------------------------------------------------------------------- replay


def fused_ids(q: QuestionLegs, legs: Legs, fuse: Fuse) -> list[str]:
    """The post-processed top k of ``q`` with ``fuse`` as the fusion, chunk ids."""
    scores = fuse([list(q.bm25), list(q.knn)])
    order = sorted(scores, key=lambda d: _order_key(legs, d, scores[d]))[: legs.depth]
    return _current_top(order, legs)


def leg_ids(q: QuestionLegs, legs: Legs, which: str) -> list[str]:
    """One leg alone (``bm25`` or ``knn``) as the eval's single-retriever modes rank it:
    its own scores, ties by `tie_key`, current chunks, post-processed to k."""
    leg = q.bm25 if which == "bm25" else q.knn
    scores: dict[str, float] = {}
    for d, s in leg:
        scores.setdefault(d, s)
    order = sorted(scores, key=lambda d: _order_key(legs, d, scores[d]))
    return _current_top(order, legs)


def _order_key(legs: Legs, chunk_id: str, score: float) -> tuple[float, int, str]:
    """`tie_key` of the stored chunk with ``score`` (the one order of both fusion paths)."""
    index = legs.chunks[chunk_id].source.get("chunk_index", 0)
    return tie_key(score, {"_id": chunk_id, "_source": {"chunk_index": index}})


def _current_top(order: Sequence[str], legs: Legs) -> list[str]:
    """The current chunks of ``order``, post-processed to k. Post-processing reads only
    the hits' documents, revisions, spans and bodies, never their scores, so a chunk's
    Hit is built once (scores 0) and equal orders share one result. Its steps are greedy
    filters in rank order (and every current chunk of a document has the same revision),
    so a prefix that already yields k hits yields the same k as the whole list."""
    current = tuple(d for d in order if legs.chunks[d].current)
    m = 2 * legs.k
    while True:
        prefix = current[:m]
        top = legs._tops.get(prefix)
        if top is None:
            top = [h.id for h in postprocess([legs.hit(d) for d in prefix], legs.k)]
            legs._tops[prefix] = top
        if len(top) >= legs.k or m >= len(current):
            return top
        m *= 2


def first_rank(ids: Sequence[str], correct: Iterable[str]) -> int | None:
    """1-based rank of the first answering chunk; None if none of ``ids`` answers."""
    good = set(correct)
    return next((i for i, d in enumerate(ids, start=1) if d in good), None)


Ranker = Callable[[QuestionLegs], Sequence[str]]


def judgements(questions: Iterable[QuestionLegs], rank: Ranker) -> list[Judgement]:
    """Each question judged by rank only (what hit@k and MRR need)."""
    return [
        Judgement(
            qid=q.id,
            lang=q.lang,
            doc_type=q.doc_type,
            tags=list(q.tags),
            rank=first_rank(ranked, q.correct),
            evidence_rank=None,
            citation_ok=None,
            superseded_citations=0,
            latency_ms=0.0,
            top=list(ranked[:3]),
        )
        for q in questions
        for ranked in [rank(q)]
    ]


def grouped(questions: Iterable[QuestionLegs], rank: Ranker) -> dict[str, dict[str, Any]]:
    """The eval's groups (`grouped_metrics`) of the questions ranked by ``rank``."""
    return grouped_metrics(judgements(questions, rank))


# --------------------------------------------------------------------------- file format


def legs_lines(legs: Legs) -> Iterable[dict[str, Any]]:
    yield {"kind": "meta", "depth": legs.depth, "k": legs.k, **dict(legs.meta)}
    for c in legs.chunks.values():
        yield {"kind": "chunk", "id": c.id, "current": c.current, "source": dict(c.source)}
    for q in legs.questions:
        yield {
            "kind": "question",
            "id": q.id,
            "lang": q.lang,
            "doc_type": q.doc_type,
            "tags": list(q.tags),
            "bm25": [list(x) for x in q.bm25],
            "knn": [list(x) for x in q.knn],
            "correct": sorted(q.correct),
        }


def write_legs(path: Path, legs: Legs) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for line in legs_lines(legs):
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


def parse_legs(lines: Iterable[str]) -> Legs:
    meta: dict[str, Any] = {}
    chunks: dict[str, StoredChunk] = {}
    questions: list[QuestionLegs] = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        obj = json.loads(line)
        kind = obj.get("kind")
        if kind == "meta":
            meta = obj
        elif kind == "chunk":
            chunks[obj["id"]] = StoredChunk(obj["id"], obj["source"], bool(obj["current"]))
        elif kind == "question":
            questions.append(
                QuestionLegs(
                    id=obj["id"],
                    lang=obj["lang"],
                    doc_type=obj["doc_type"],
                    tags=tuple(obj["tags"]),
                    bm25=tuple((str(d), float(s)) for d, s in obj["bm25"]),
                    knn=tuple((str(d), float(s)) for d, s in obj["knn"]),
                    correct=frozenset(obj["correct"]),
                )
            )
        else:
            raise ValueError(f"line {n}: unknown kind {kind!r}")
    if not meta:
        raise ValueError("no meta line")
    rest = {k: v for k, v in meta.items() if k not in ("kind", "depth", "k")}
    return Legs(int(meta["depth"]), int(meta["k"]), chunks, tuple(questions), rest)


def read_legs(path: Path) -> Legs:
    with path.open(encoding="utf-8") as f:
        return parse_legs(f)
