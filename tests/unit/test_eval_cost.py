"""What the answer step pays: top-5 tokens and the share of repeated text (pure)."""

from __future__ import annotations

from chunkwise.evaluation.judging import COST_K, Judgement, RankedHit, redundant_share
from chunkwise.evaluation.metrics import retrieval_metrics


def _hit(i: str, key: str, start: int, body: str, tokens: int = 10) -> RankedHit:
    return RankedHit(i, key, "r1", start, start + len(body), body, body, tokens)


def test_overlapping_spans_count_only_the_repeated_part() -> None:
    a = _hit("a", "k", 0, "x" * 100)
    b = _hit("b", "k", 50, "y" * 100)  # 50 of its 100 chars inside a
    c = _hit("c", "other", 0, "z" * 100)
    assert redundant_share([a, b, c]) == 50 / 300
    assert redundant_share([a, c]) == 0.0


def test_a_copy_in_another_document_is_wholly_redundant() -> None:
    a = _hit("a", "x17.pdf", 0, "## Page 2\n\nCheck the inlet filter.")
    b = _hit("b", "x17.docx", 7, "Check the inlet filter.")
    assert redundant_share([a, b]) == len(b.body) / (len(a.body) + len(b.body))


def test_metrics_average_the_cost_over_questions() -> None:
    def j(tokens: int, red: float) -> Judgement:
        return Judgement("q", "en", "prose", [], 1, 1, True, 0, 1.0, [], tokens, red)

    m = retrieval_metrics([j(100, 0.0), j(300, 0.5)])
    assert m["context_tokens_mean"] == 200 and m["redundant_share_mean"] == 0.25
    assert COST_K == 5
