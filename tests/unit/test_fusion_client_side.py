"""Client-side fusion computes what neural-search 2.19's pipeline computes (pure).

The hand computations follow neural-search 2.19.1's MinMaxScoreNormalizationTechnique,
L2ScoreNormalizationTechnique, ArithmeticMeanScoreCombinationTechnique and the RRF
processor (chunkwise.search.fusion, module docstring)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkwise.search.fusion import (
    DEFAULT_FUSION,
    MIN_SCORE,
    f32,
    min_max_scores,
    parse_fusion,
    rrf_term,
)
from chunkwise.search.hybrid import fuse_client_side, hits_from_response

LM = "2025-01-01T00:00:00Z"


def _raw(_id: str, score: float, i: int = 0) -> dict[str, Any]:
    src = {
        "doc_id": f"doc-{_id}",
        "source_key": f"key/{_id}",
        "revision": "r1",
        "last_modified": LM,
        "start": 0,
        "end": 10,
        "chunk_index": i,
        "body": f"passage {_id}",
    }
    return {"_id": _id, "_score": score, "_source": src}


BM25 = [_raw("a", 10.0), _raw("b", 6.0), _raw("c", 2.0)]
KNN = [_raw("c", 0.9), _raw("d", 0.8), _raw("a", 0.5)]


def test_the_default_is_minmax_with_bm25_weighted_0_7() -> None:
    assert parse_fusion("minmax:0.7") == DEFAULT_FUSION
    assert DEFAULT_FUSION.weights == (0.7, 0.3)


def test_client_side_minmax_equals_the_hand_computed_ranking() -> None:
    # BM25 min-max: a (10-2)/8 = 1, b (6-2)/8 = 0.5, c 0 -> 0.001 (neural-search's floor)
    # k-NN min-max: c 1, d (0.8-0.5)/0.4 = 0.75, a 0 -> 0.001
    # mean, weights 0.7 / 0.3 (sum 1), a missing leg counts 0 with its weight:
    expected = {
        "a": 0.7 * 1.0 + 0.3 * 0.001,  # 0.7003
        "b": 0.7 * 0.5,  # 0.35: not in k-NN, not averaged over BM25 alone
        "c": 0.7 * 0.001 + 0.3 * 1.0,  # 0.3007
        "d": 0.3 * 0.75,  # 0.225
    }
    hits = fuse_client_side(BM25, KNN, parse_fusion("minmax:0.7"))
    assert [h.id for h in hits] == ["a", "b", "c", "d"]
    for h in hits:
        assert h.score.fused == pytest.approx(expected[h.id], abs=1e-6)
        assert f32(h.score.fused) == h.score.fused  # float32, as the cluster returns it
    assert hits[0].score.fusion == "norm-client"
    assert (hits[0].score.bm25_rank, hits[0].score.knn_rank) == (1, 3)
    # RRF ranks the same lists otherwise: a and c tie (1, 3) / (3, 1), b and d too
    rrf = fuse_client_side(BM25, KNN, parse_fusion("rrf:60"))
    assert [h.id for h in rrf] == ["a", "c", "b", "d"]  # ties: tie_key (chunk, then id)
    assert rrf[0].score.fused == rrf[1].score.fused and rrf[0].score.fusion == "rrf-client"


def test_other_weights_change_the_order_as_computed_by_hand() -> None:
    # minmax:0.3: a 0.3 + 0.0007 = 0.3007, b 0.15, c 0.0003 + 0.7 = 0.7003, d 0.525
    hits = fuse_client_side(BM25, KNN, parse_fusion("minmax:0.3"))
    assert [h.id for h in hits] == ["c", "d", "a", "b"]
    assert hits[0].score.fused == pytest.approx(0.7003, abs=1e-6)


def test_minmax_edge_cases() -> None:
    # one hit in a sub-query: max == min == its score -> 1.0
    assert min_max_scores([("x", 3.5)]) == {"x": 1.0}
    # all equal: every one 1.0
    assert min_max_scores([("x", 2.0), ("y", 2.0)]) == {"x": 1.0, "y": 1.0}
    # the minimum gets 0.001, not 0; repeated ids count once (their first score)
    assert min_max_scores([("x", 4.0), ("y", 2.0), ("x", 1.0)]) == {"x": 1.0, "y": MIN_SCORE}
    assert min_max_scores([]) == {}
    # a leg without hits: the other leg's hits get only their weighted share
    only = fuse_client_side([_raw("a", 3.0), _raw("b", 1.0)], [], DEFAULT_FUSION)
    assert [(h.id, h.score.fused) for h in only] == [
        ("a", f32(0.7)),
        ("b", f32(f32(0.001) * f32(0.7))),
    ]


def test_l2_equals_the_hand_computed_scores() -> None:
    # BM25 3, 4: norm 5 -> 0.6, 0.8; k-NN 1.0 alone -> 1.0; weights 0.5 / 0.5
    hits = fuse_client_side(
        [_raw("a", 4.0), _raw("b", 3.0)], [_raw("b", 1.0)], parse_fusion("l2:0.5")
    )
    assert [h.id for h in hits] == ["b", "a"]
    assert hits[0].score.fused == pytest.approx((0.6 + 1.0) / 2, abs=1e-6)
    assert hits[1].score.fused == pytest.approx(0.8 / 2, abs=1e-6)


def test_rrf_terms_are_neural_search_floats() -> None:
    # BigDecimal 1 / 61 to 10 decimals, half up, then float
    assert rrf_term(60, 1) == f32(0.0163934426)
    assert rrf_term(60, 2) == f32(0.0161290323)


def test_ties_in_minmax_follow_tie_key_like_the_server_path() -> None:
    later = _raw("a", 5.0, i=1)
    earlier = _raw("b", 5.0, i=0)
    client = fuse_client_side([later, earlier], [], DEFAULT_FUSION)
    assert client[0].score.fused == client[1].score.fused == f32(0.7)  # max == min: 1.0
    tied = client[0].score.fused
    server = hits_from_response(
        {"hits": {"hits": [{**later, "_score": tied}, {**earlier, "_score": tied}]}},
        "norm-server",
    )
    assert [h.id for h in client] == [h.id for h in server] == ["b", "a"]


scores = st.floats(min_value=0.125, max_value=50.0, allow_nan=False, width=32)


@given(
    st.lists(scores, min_size=1, max_size=8),
    st.lists(scores, min_size=1, max_size=8),
    st.sampled_from(["minmax:0.7", "minmax:0.5", "l2:0.3", "rrf:60", "rrf:10"]),
)
def test_fused_scores_are_bounded_and_float32(b: list[float], k: list[float], name: str) -> None:
    spec = parse_fusion(name)
    bm25 = [_raw(f"b{i}", s) for i, s in enumerate(sorted(b, reverse=True))]
    knn = [
        _raw(f"k{i % 3}" if i % 2 else f"b{i}", s) for i, s in enumerate(sorted(k, reverse=True))
    ]
    hits = fuse_client_side(bm25, knn, spec)
    assert {h.id for h in hits} == {str(r["_id"]) for r in (*bm25, *knn)}
    for h in hits:
        assert f32(h.score.fused) == h.score.fused
        assert (
            0
            < h.score.fused
            <= (1.0 if spec.technique != "rrf" else 2 / (spec.rank_constant + 1) + 1e-6)
        )
    assert [h.score.fused for h in hits] == sorted((h.score.fused for h in hits), reverse=True)
