"""The chunker's parts: the sizing interface and its backends, the split ladder
as data, and `contextualize` as the one way `text` is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkwise import ChunkerConfig, chunk_text
from chunkwise.chunking.context import contextualize
from chunkwise.chunking.model import ChunkingReport
from chunkwise.chunking.sizing import CharCounter, TokenCounter
from chunkwise.chunking.split import LADDER, Rung, below
from chunkwise.models.counter import HFTokenCounter

DATA = Path(__file__).resolve().parents[1] / "data"
MANUAL = (DATA / "manual_en.md").read_text(encoding="utf-8")


def test_both_backends_are_token_counters(counter: HFTokenCounter) -> None:
    assert isinstance(counter, TokenCounter)
    assert isinstance(CharCounter(100), TokenCounter)
    assert not isinstance(object(), TokenCounter)


def test_sizing_by_characters_caps_every_text_in_characters() -> None:
    sizer = CharCounter(max_tokens=160)
    config = ChunkerConfig(max_chars=120, overlap_chars=40)
    chunks = chunk_text(MANUAL, lang="en", config=config, counter=sizer)
    assert len(chunks) > 5
    for chunk in chunks:
        assert MANUAL[chunk.start : chunk.end] == chunk.body
        assert chunk.token_count == len(chunk.text) <= 160
        assert (chunk.sized_by_model, chunk.sized_by_tokenizer) == ("characters", "characters")


def test_the_ladder_runs_from_sections_to_graphemes() -> None:
    assert [rung.name for rung in LADDER] == [
        "SECTION",
        "BLOCK",
        "UNIT",
        "SENTENCE",
        "WORD",
        "GRAPHEME",
    ]
    assert [below(rung) for rung in LADDER] == [*LADDER[1:], Rung.GRAPHEME]


@pytest.mark.parametrize(
    "text, rungs",
    [
        ("One sentence here. " * 40, {"sentences"}),
        (" ".join(["unbrokenwordswithoutanystop"] * 60), {"sentences", "words"}),
        ("x" * 2000, {"sentences", "words", "graphemes"}),
    ],
)
def test_an_oversized_paragraph_walks_down_the_ladder_only_as_far_as_needed(
    text: str, rungs: set[str]
) -> None:
    report = ChunkingReport()
    sizer = CharCounter(max_tokens=400)
    chunks = chunk_text(
        text, lang="en", config=ChunkerConfig(max_chars=300), counter=sizer, report=report
    )
    assert set(report.split_levels) == rungs
    assert "".join(c.body for c in chunks).replace(" ", "") == text.replace(" ", "")


def test_text_is_the_contextualized_body(counter: HFTokenCounter) -> None:
    config = ChunkerConfig(max_chars=300, overlap_chars=80, soft_target_fraction=1.0)
    chunks = chunk_text(MANUAL, lang="en", config=config, counter=counter)
    prose = [c for c in chunks if not c.table_header]
    assert any(c.overlap_prefix for c in prose)
    for chunk in prose:
        heading = config.heading_separator.join(chunk.heading_path)
        assert chunk.text == contextualize(heading, chunk.overlap_prefix, "", chunk.body)


def test_contextualize_joins_the_parts_present_and_replaces_lone_surrogates() -> None:
    assert contextualize("A > B", "", "| h |", "body") == "A > B\n| h |\nbody"
    assert contextualize("", "", "", "x\ud800y") == "x\ufffdy"
