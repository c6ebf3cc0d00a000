"""The offline fusion replay (chunkwise.evaluation.replay) on tiny hand-made legs."""

from __future__ import annotations

import json
from collections.abc import Mapping

from chunkwise.evaluation.replay import (
    Legs,
    QuestionLegs,
    StoredChunk,
    first_rank,
    fused_ids,
    grouped,
    leg_ids,
    legs_lines,
    parse_legs,
)
from chunkwise.search.fusion import FusionSpec


def _chunk(
    cid: str, index: int, start: int, *, current: bool = True, doc: str = "d1"
) -> StoredChunk:
    src = {
        "doc_id": doc,
        "chunk_index": index,
        "last_modified": "2026-01-01T00:00:00Z",
        "kind": "text",
        "lang": "en",
        "source_key": f"{doc}.md",
        "revision": "r2" if current else "r1",
        "start": start,
        "end": start + 10,
        "body": f"body of chunk {cid}",
        "state": "live",
    }
    return StoredChunk(cid, src, current)


def _legs(q: QuestionLegs, *chunks: StoredChunk, depth: int = 40, k: int = 10) -> Legs:
    return Legs(depth, k, {c.id: c for c in chunks}, (q,))


A, B = _chunk("A", 0, 0), _chunk("B", 1, 100)
Q = QuestionLegs(
    "q1",
    "en",
    "table",
    ("cell",),
    bm25=(("A", 10.0), ("B", 5.0)),
    knn=(("B", 0.9), ("A", 0.8)),
    correct=frozenset({"B"}),
)


def test_weight_decides_which_leg_wins_rank_one() -> None:
    legs = _legs(Q, A, B)
    # min-max: A is (1, 0.001), B (0.001, 1); BM25 weighted 0.7 puts A first, 0.3 puts B first
    assert fused_ids(Q, legs, FusionSpec("min_max", bm25_weight=0.7).fuse) == ["A", "B"]
    assert fused_ids(Q, legs, FusionSpec("min_max", bm25_weight=0.3).fuse) == ["B", "A"]
    assert (
        first_rank(fused_ids(Q, legs, FusionSpec("min_max", bm25_weight=0.7).fuse), Q.correct) == 2
    )


def test_rrf_tie_goes_to_the_earlier_chunk() -> None:
    # ranks (1, 2) and (2, 1): equal RRF scores; tie_key puts chunk_index 0 first
    legs = _legs(Q, A, B)
    assert fused_ids(Q, legs, FusionSpec("rrf", rank_constant=60).fuse) == ["A", "B"]


def test_superseded_chunks_are_dropped_after_fusion() -> None:
    old = _chunk("A-old", 0, 0, current=False)
    q = QuestionLegs(
        "q",
        "en",
        "prose",
        (),
        bm25=(("A-old", 12.0), ("A", 10.0), ("B", 5.0)),
        knn=(("B", 0.9),),
        correct=frozenset({"A"}),
    )
    legs = _legs(q, old, A, B)
    ids = fused_ids(q, legs, FusionSpec("min_max", bm25_weight=0.7).fuse)
    assert "A-old" not in ids
    assert ids[0] == "A"
    # the old chunk still took part in the normalisation: A is not BM25's maximum
    assert leg_ids(q, legs, "bm25") == ["A", "B"]


def test_the_server_keeps_only_the_top_depth_before_the_heads() -> None:
    c = _chunk("C", 2, 200)
    q = QuestionLegs(
        "q",
        "en",
        "prose",
        (),
        bm25=(("A", 10.0), ("B", 5.0)),
        knn=(("C", 0.9),),
        correct=frozenset({"C"}),
    )
    spec = FusionSpec("min_max", bm25_weight=0.7).fuse
    assert fused_ids(q, _legs(q, A, B, c, depth=3), spec) == ["A", "C", "B"]
    assert fused_ids(q, _legs(q, A, B, c, depth=2), spec) == ["A", "C"]


def test_k_cuts_after_dedupe() -> None:
    dup = _chunk("A2", 5, 2)  # overlaps A's span [0, 10) by 8 of 10 chars: a near duplicate
    q = QuestionLegs(
        "q",
        "en",
        "prose",
        (),
        bm25=(("A", 10.0), ("A2", 9.0), ("B", 5.0)),
        knn=(),
        correct=frozenset({"B"}),
    )
    legs = _legs(q, A, dup, B, k=2)
    assert leg_ids(q, legs, "bm25") == ["A", "B"]
    assert first_rank(leg_ids(q, legs, "bm25"), q.correct) == 2


def test_groups_are_the_evals() -> None:
    legs = _legs(Q, A, B)
    g = grouped(
        legs.questions, lambda q: fused_ids(q, legs, FusionSpec("min_max", bm25_weight=0.7).fuse)
    )
    assert g["lang=en&tag=cell"]["hit@1"] == 0.0
    assert g["table/en"]["hit@3"] == 1.0
    g = grouped(legs.questions, lambda q: leg_ids(q, legs, "knn"))
    assert g["all"]["hit@1"] == 1.0


def test_file_round_trip() -> None:
    legs = _legs(Q, A, B)
    back = parse_legs(json.dumps(x) for x in legs_lines(legs))
    assert back.questions == legs.questions
    assert back.chunks == legs.chunks
    assert (back.depth, back.k) == (40, 10)


def test_gap_weight_follows_the_more_confident_leg() -> None:
    from bench.eval.fusion_replay import gap_weighted

    def best(fused: Mapping[str, float]) -> str:
        return max(fused, key=lambda d: fused[d])

    # BM25 cannot tell A from D (gap 0.01), k-NN puts B far ahead (gap 0.8):
    # min-max 0.7 keeps BM25's A, the gap rule gives k-NN the say and B wins
    legs = [
        [("A", 10.0), ("D", 9.9), ("B", 5.0), ("C", 0.0)],
        [("B", 0.9), ("A", 0.5), ("D", 0.45), ("C", 0.4)],
    ]
    assert best(FusionSpec("min_max", bm25_weight=0.7).fuse(legs)) == "A"
    assert best(gap_weighted(0.7)(legs)) == "B"
    # the other way round: BM25 clear, k-NN flat (B and D 0.001 apart), prior 0.3
    legs = [
        [("A", 10.0), ("B", 2.0), ("C", 1.0)],
        [("B", 0.9), ("D", 0.899), ("A", 0.6), ("C", 0.4)],
    ]
    assert best(FusionSpec("min_max", bm25_weight=0.3).fuse(legs)) == "B"
    assert best(gap_weighted(0.3)(legs)) == "A"


def test_halves_split_by_article_and_number() -> None:
    from bench.eval.fusion_replay import half_of

    def q(qid: str, *tags: str) -> QuestionLegs:
        return QuestionLegs(qid, "en", "x", tags, (), ())

    assert half_of(q("xquad-en-abc", "article-03", "qtype-how")) == "A"
    assert half_of(q("xquad-de-abc", "article-04")) == "B"
    assert half_of(q("table-en-011")) == "A"
    assert half_of(q("table-de-012")) == "B"
