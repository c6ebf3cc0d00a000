"""`chunkwise eval`, pure parts: loaders, evidence resolution, judging, metrics, baselines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkwise.chunking.config import ChunkerConfig
from chunkwise.errors import ConfigError
from chunkwise.evaluation.baselines import chunk_with, fixed_size_spans, recursive_spans
from chunkwise.evaluation.evaluate import (
    EvidenceError,
    Judgement,
    Question,
    QuestionsError,
    RankedHit,
    diff_reports,
    judge,
    load_config,
    load_questions,
    parse_config,
    parse_questions,
    resolve_evidence,
    retrieval_metrics,
)
from chunkwise.stats import percentile

HEADER = "| Plan | Price |"
TABLE = f"{HEADER}\n| --- | --- |\n| Team | 12 USD |\n| Business | 25 USD |\n"
OLD_TABLE = f"{HEADER}\n| --- | --- |\n| Team | 10 USD |\n| Business | 25 USD |\n"
TEXTS = {("p.md", "r2"): TABLE, ("p.md", "r1"): OLD_TABLE}
CURRENT = {"p.md": "r2"}


def q(**kw: object) -> Question:
    base: dict[str, object] = {
        "id": "q1",
        "lang": "en",
        "doc_type": "table",
        "question": "What does the Team plan cost?",
        "evidence": [{"source_key": "p.md", "quote": "| Team | 12 USD |"}],
        "required_context": [HEADER],
    }
    base.update(kw)
    return Question.model_validate(base)


def hit(
    start: int, end: int, *, rev: str = "r2", text: str | None = None, key: str = "p.md"
) -> RankedHit:
    src = TEXTS[(key, rev)]
    return RankedHit(
        id=f"{key}:{rev}:{start}",
        key=key,
        revision=rev,
        start=start,
        end=end,
        body=src[start:end],
        text=src[start:end] if text is None else text,
    )


ROW = TABLE.index("| Team | 12 USD |")
ROW_END = ROW + len("| Team | 12 USD |")


# --------------------------------------------------------------------------- loaders


def test_bad_question_line_names_the_line(tmp_path: Path) -> None:
    good = json.dumps(q().model_dump(mode="json"))
    path = tmp_path / "q.jsonl"
    path.write_text(good + "\n\n" + '{"id": "q2", "lang": "en"\n', encoding="utf-8")
    with pytest.raises(QuestionsError, match=r"line 3: invalid JSON"):
        load_questions(path)


def test_question_missing_field_names_line_and_field() -> None:
    good = json.dumps(q().model_dump(mode="json"))
    bad = json.dumps({"id": "q2", "lang": "en", "doc_type": "x", "question": "?"})
    with pytest.raises(QuestionsError, match=r"line 2: evidence: Field required"):
        parse_questions([good, bad], "q.jsonl")


def test_duplicate_question_id_and_bad_evidence_form() -> None:
    good = json.dumps(q().model_dump(mode="json"))
    with pytest.raises(QuestionsError, match=r"line 2: duplicate question id 'q1'.*line 1"):
        parse_questions([good, good])
    both = q().model_dump(mode="json")
    both["evidence"] = [{"source_key": "p.md", "quote": "x", "start": 1, "end": 2}]
    with pytest.raises(QuestionsError, match=r"line 1: .*either 'quote' or both"):
        parse_questions([json.dumps(both)])


def test_unknown_config_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "a.toml"
    path.write_text('name = "a"\nbaseline = "fixed"\nmax_chars = 10\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"unknown key\(s\) 'max_chars'"):
        load_config(path)


def test_unknown_chunker_field_and_baseline_are_named() -> None:
    with pytest.raises(ConfigError, match=r"\[chunker\].*max_charz"):
        parse_config({"name": "a", "chunker": {"max_charz": 100}})
    with pytest.raises(ConfigError, match=r"baseline: unknown 'semantic'"):
        parse_config({"name": "a", "baseline": "semantic"})
    cfg = parse_config(
        {"name": "f", "baseline": "fixed", "chunker": {"max_chars": 1000, "overlap_chars": 0}}
    )
    assert cfg.chunker.max_chars == 1000 and cfg.baseline == "fixed"


def test_config_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "chunkwise.toml"
    path.write_text('baseline = "chunkwise"\n[chunker]\nmax_chars = 1200\n', encoding="utf-8")
    cfg = load_config(path)
    assert cfg.name == "chunkwise" and cfg.chunker.max_chars == 1200


# --------------------------------------------------------------------------- evidence


def test_evidence_not_found_is_a_clear_error() -> None:
    bad = q(evidence=[{"source_key": "p.md", "quote": "| Team | 99 USD |"}])
    with pytest.raises(
        EvidenceError, match=r"question q1: evidence '\| Team \| 99 USD \|' not found .*p\.md@r2"
    ):
        resolve_evidence([bad], TEXTS, CURRENT)
    with pytest.raises(EvidenceError, match=r"source 'nope.md' is not in the corpus"):
        resolve_evidence([q(evidence=[{"source_key": "nope.md", "quote": "x"}])], TEXTS, CURRENT)
    with pytest.raises(EvidenceError, match=r"required context"):
        resolve_evidence([q(required_context=["| Tier | Cost |"])], TEXTS, CURRENT)
    with pytest.raises(EvidenceError, match=r"outside"):
        resolve_evidence(
            [q(evidence=[{"source_key": "p.md", "start": 0, "end": 10_000}])], TEXTS, CURRENT
        )


def test_evidence_as_span_and_superseded_quote() -> None:
    qq = q(
        evidence=[{"source_key": "p.md", "start": ROW, "end": ROW_END}],
        revision={"superseded": "r1", "superseded_quote": "| Team | 10 USD |"},
    )
    gold = resolve_evidence([qq], TEXTS, CURRENT)["q1"]
    assert gold.quotes == ("| Team | 12 USD |",)
    assert gold.superseded and gold.superseded[0].revision == "r1"
    with pytest.raises(EvidenceError, match=r"superseded quote"):
        resolve_evidence(
            [q(revision={"superseded": "r1", "superseded_quote": "| Team | 7 USD |"})],
            TEXTS,
            CURRENT,
        )


# --------------------------------------------------------------------------- judging


def test_judge_strict_rank_needs_context_and_exact_citation() -> None:
    qq = q(revision={"superseded": "r1", "superseded_quote": "| Team | 10 USD |"})
    gold = resolve_evidence([qq], TEXTS, CURRENT)["q1"]
    no_header = hit(ROW, len(TABLE))  # covers the row, body lacks the header
    with_header_ctx = hit(ROW, ROW_END, text=HEADER + "\n" + TABLE[ROW:ROW_END])
    old = hit(0, len(OLD_TABLE), rev="r1")
    j = judge(qq, [old, no_header, with_header_ctx], gold, TEXTS)
    assert j.rank == 3  # the first hit that covers the evidence AND has the header in its text
    assert j.evidence_rank == 2  # the body shows the evidence at rank 2 ...
    assert j.citation_ok is False  # ... but its citation lacks the required context
    assert j.superseded_citations == 1  # r1 hit covering the old value
    # offsets that do not reproduce the body never verify
    forged = RankedHit("x", "p.md", "r2", 0, 5, TABLE[ROW:ROW_END], HEADER + TABLE)
    assert judge(qq, [forged], gold, TEXTS).rank is None


def test_metrics_on_hand_made_rankings() -> None:
    def jj(rank: int | None, ev: int | None = None, ok: bool | None = None) -> Judgement:
        return Judgement("q", "en", "t", [], rank, ev, ok, 0, 10.0)

    js = [jj(1, 1, True), jj(2, 2, True), jj(4, 1, False), jj(None), jj(10, None)]
    m = retrieval_metrics(js)
    assert m["hit@1"] == pytest.approx(1 / 5)
    assert m["hit@3"] == pytest.approx(2 / 5)
    assert m["hit@5"] == pytest.approx(3 / 5)
    assert m["mrr@10"] == pytest.approx((1 + 1 / 2 + 1 / 4 + 1 / 10) / 5)
    assert m["evidence@3"] == pytest.approx(3 / 5)
    assert m["citation_accuracy"] == pytest.approx(2 / 3) and m["citations_checked"] == 3


def test_percentile_nearest_rank() -> None:
    vals = list(range(1, 101))
    assert percentile(vals, 50) == 50 and percentile(vals, 95) == 95 and percentile(vals, 1) == 1
    assert percentile([], 50) == 0.0 and percentile([7], 5) == 7


def test_diff_wins_and_losses() -> None:
    def rep(name: str, ranks: dict[str, int | None]) -> dict[str, object]:
        qs = [{"id": k, "doc_type": "t", "lang": "en", "rank": r} for k, r in ranks.items()]
        metrics = {
            "all": {
                "questions": 2,
                "hit@1": 0,
                "hit@3": 0.5,
                "hit@5": 0.5,
                "mrr@10": 0.1,
                "citation_accuracy": None,
                "superseded_citations": 0,
            }
        }
        return {
            "config": {"name": name},
            "questions": {"hybrid": qs},
            "modes": {"hybrid": metrics},
            "chunks": {"chunks": 1, "mean_tokens": 1.0, "runts": 0, "over_token_cap": 0},
        }

    d = diff_reports(rep("a", {"x": 1, "y": None, "z": 5}), rep("b", {"x": None, "y": 2, "z": 7}))
    assert [r["id"] for r in d["wins"]] == ["x"]
    assert [r["id"] for r in d["losses"]] == ["y"]
    assert [r["id"] for r in d["better_rank"]] == ["z"]


# --------------------------------------------------------------------------- baselines


def test_fixed_size_matches_seed_000() -> None:
    text = "Pump X17: disconnect power. Wait 30 seconds. Check the inlet filter."
    assert fixed_size_spans(text, 40, 10) == [(0, 40), (30, 68)]
    assert fixed_size_spans("", 40, 10) == []
    with pytest.raises(ConfigError):
        fixed_size_spans(text, 10, 10)


def test_recursive_spans_are_exact_bounded_and_cut_at_separators() -> None:
    paras = ["Alpha beta gamma. " * 3, "Delta epsilon. " * 20, "Zeta eta theta."]
    text = "\n\n".join(p.strip() for p in paras)
    spans = recursive_spans(text, 120, 30)
    assert all(e - s <= 120 for s, e in spans)
    covered = set().union(*(set(range(s, e)) for s, e in spans))
    assert all(text[i].isspace() for i in set(range(len(text))) - covered)
    # cuts fall at separators (paragraph, sentence, word), never inside a word
    assert all(e == len(text) or text[e].isspace() for _, e in spans)
    assert all(s == 0 or text[s - 1].isspace() for s, _ in spans)
    assert len(spans) > 1 and spans[1][0] < spans[0][1]  # overlap


@pytest.mark.parametrize("baseline", ["fixed", "recursive", "chunkwise"])
def test_baselines_emit_chunks_with_exact_offsets(baseline: str) -> None:
    text = "## Page 1\n\nHäuser 🇩🇪 und Straßen. " * 30 + "\n\n## Page 2\n\n" + TABLE * 5
    cfg = ChunkerConfig.build(max_chars=300, overlap_chars=50)
    chunks = chunk_with(baseline, text, "de", cfg)
    assert chunks
    for c in chunks:
        assert text[c.start : c.end] == c.body
        assert len(text[: c.start].encode()) == c.byte_start
        assert c.byte_end - c.byte_start == len(c.body.encode())
        assert c.token_count > 0
        if baseline != "chunkwise":
            assert c.text == c.body and not c.table_header and not c.overlap_prefix
    if baseline != "chunkwise":
        assert chunks[-1].page_end == 2
