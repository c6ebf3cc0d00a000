"""Unit tests of the soft packing target (ChunkerConfig.soft_target_fraction).

A chunk whose body reached the soft target closes at the next paragraph
boundary; the sentences of one long paragraph and the rows of one table still
fill up to the hard maximum; runts still coalesce. Pure code, the default
model's real tokenizer, no I/O.
"""

from __future__ import annotations

import pytest

from chunkwise import ChunkerConfig, chunk_text
from chunkwise.errors import ConfigError
from chunkwise.models.counter import HFTokenCounter
from chunkwise.schema import ChunkKind
from tests.chunk_invariants import assert_all, assert_no_runts

# Six paragraphs of about 330 characters, each on its own topic.
TOPICS = ["pump", "filter", "valve", "motor", "sensor", "cable"]


def _paragraph(topic: str) -> str:
    sentence = f"The {topic} needs attention during every service visit of the plant. "
    return (sentence * 5).strip()


def _paragraphs() -> tuple[str, list[int]]:
    paras = [_paragraph(t) for t in TOPICS]
    text = "\n\n".join(paras) + "\n"
    starts = [text.index(p) for p in paras]
    return text, starts


def test_soft_target_off_packs_up_to_the_hard_maximum(counter: HFTokenCounter) -> None:
    text, _ = _paragraphs()
    cfg = ChunkerConfig.build(max_chars=1800, overlap_chars=0, soft_target_fraction=1.0)
    chunks = chunk_text(text, lang="en", config=cfg)
    # Five paragraphs fill the 1,800-char maximum; the sixth, a runt, coalesces into it.
    assert len(chunks) == 1, "without a soft target the paragraphs share one chunk"
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_chunk_closes_at_first_paragraph_boundary_past_the_target(
    counter: HFTokenCounter,
) -> None:
    text, starts = _paragraphs()
    cfg = ChunkerConfig.build(max_chars=1800, overlap_chars=0, soft_target_fraction=0.3)
    target = 0.3 * cfg.max_chars  # 540 characters: reached after two paragraphs
    chunks = chunk_text(text, lang="en", config=cfg)
    assert [c.start for c in chunks] == starts[::2]
    for c in chunks:
        last_para = max(s for s in starts if s < c.end)
        assert last_para - c.start < target, "took in a paragraph after the target"
        assert c.end - c.start >= target or c is chunks[-1]
    assert_no_runts(chunks, cfg, counter.max_tokens)
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_no_overlap_after_a_soft_close_but_after_a_hard_one(counter: HFTokenCounter) -> None:
    text, _ = _paragraphs()
    soft = ChunkerConfig.build(max_chars=1800, overlap_chars=150, soft_target_fraction=0.3)
    closed_soft = chunk_text(text, lang="en", config=soft)
    assert len(closed_soft) == 3
    assert all(c.overlap_prefix == "" for c in closed_soft), "another topic's tail leaked in"
    # Closed by the hard maximum at a paragraph boundary: overlap as before.
    hard = ChunkerConfig.build(max_chars=700, overlap_chars=150, soft_target_fraction=1.0)
    closed_hard = chunk_text(text, lang="en", config=hard)
    assert len(closed_hard) == 3
    assert all(c.overlap_prefix for c in closed_hard[1:])
    assert_all(text, closed_soft, counter, soft, counter.max_tokens)


def test_long_paragraph_is_not_cut_at_the_soft_target(counter: HFTokenCounter) -> None:
    long_para = " ".join(f"Sentence {i} of one long paragraph on one topic." for i in range(25))
    tail = _paragraph("pump") + "\n\n" + _paragraph("filter")
    text = long_para + "\n\n" + tail + "\n"
    cfg = ChunkerConfig.build(max_chars=1800, overlap_chars=0, soft_target_fraction=0.3)
    assert 0.3 * cfg.max_chars < len(long_para) < cfg.max_chars
    chunks = chunk_text(text, lang="en", config=cfg)
    assert chunks[0].body == long_para, "a paragraph under the hard maximum stays whole"
    assert chunks[1].body == tail
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_sentences_of_an_oversized_paragraph_fill_to_the_maximum(
    counter: HFTokenCounter,
) -> None:
    huge = " ".join(f"Sentence {i} of a paragraph longer than the maximum." for i in range(40))
    cfg = ChunkerConfig.build(max_chars=1200, overlap_chars=0, soft_target_fraction=0.3)
    assert len(huge) > cfg.max_chars
    chunks = chunk_text(huge, lang="en", config=cfg)
    assert len(chunks) == 2
    assert len(chunks[0].body) > 0.8 * cfg.max_chars, "cut at sentences only at the maximum"
    assert_all(huge, chunks, counter, cfg, counter.max_tokens)


def test_table_rows_are_packed_as_before(counter: HFTokenCounter) -> None:
    head = "| Plan | Price | Seats |\n|---|---|---|\n"
    rows = "".join(f"| Plan {i} | {i * 10}.00 EUR | {i % 16} |\n" for i in range(120))
    text = head + rows
    soft = ChunkerConfig.build(soft_target_fraction=0.2)
    hard = ChunkerConfig.build(soft_target_fraction=1.0)
    with_soft = chunk_text(text, lang="en", config=soft)
    without = chunk_text(text, lang="en", config=hard)
    assert [(c.start, c.end) for c in with_soft] == [(c.start, c.end) for c in without]
    assert all(c.kind is ChunkKind.TABLE for c in with_soft)
    assert_all(text, with_soft, counter, soft, counter.max_tokens)


def test_small_paragraphs_still_pack_up_to_the_target(counter: HFTokenCounter) -> None:
    paras = [f"Short note {i} on the {TOPICS[i % 6]}." for i in range(40)]
    text = "\n\n".join(paras)
    cfg = ChunkerConfig.build(max_chars=1800, overlap_chars=0, soft_target_fraction=0.3)
    chunks = chunk_text(text, lang="en", config=cfg)
    assert len(chunks) >= 2
    assert all(len(c.body) >= 0.3 * cfg.max_chars for c in chunks[:-1])
    assert_no_runts(chunks, cfg, counter.max_tokens)
    assert_all(text, chunks, counter, cfg, counter.max_tokens)


def test_default_soft_target_is_documented_value() -> None:
    assert ChunkerConfig().soft_target_fraction == 0.3


@pytest.mark.parametrize("value", [0.0, -0.1, 1.5])
def test_soft_target_out_of_range_is_refused(value: float) -> None:
    with pytest.raises(ConfigError, match="soft_target_fraction"):
        ChunkerConfig.build(soft_target_fraction=value)
