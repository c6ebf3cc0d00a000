"""A baseline chunk over the model's token cap never stops an evaluation: it is embedded
truncated (and counted) or cut again until it fits, as its configuration says (#29)."""

from __future__ import annotations

import pytest

from chunkwise.chunking.config import ChunkerConfig
from chunkwise.errors import ConfigError
from chunkwise.evaluation.baselines import chunk_with, split_to_fit, truncate_to_tokens
from chunkwise.evaluation.inputs import parse_config
from chunkwise.models.counter import load_counter


def _words(text: str) -> int:
    return len(text.split())


def test_truncate_keeps_the_longest_prefix_within_the_cap() -> None:
    text = " ".join(f"w{i}" for i in range(100))
    out = truncate_to_tokens(text, _words, 10)
    assert _words(out) == 10 and text.startswith(out)
    assert not _words(text[: len(out) + 2]) <= 10 or text[len(out) : len(out) + 2].isspace()
    assert truncate_to_tokens("short text", _words, 10) == "short text"


def test_split_to_fit_cuts_only_what_does_not_fit_and_keeps_offsets() -> None:
    text = "a b c d e f g h. i j k l m n o p.\n\nq r."
    spans = [(0, len(text))]
    out = split_to_fit(text, spans, lambda body: _words(body) <= 4)
    assert all(_words(text[s:e]) <= 4 for s, e in out)
    assert [text[s:e] for s, e in out][-1] == "q r."
    assert split_to_fit(text, spans, lambda _body: True) == spans


# What made `chunkwise eval --config recursive.toml` stop with "text 1 has 516 tokens,
# over the 512": a 1,000-character window dense in part numbers and symbols costs more
# than 512 tokens of multilingual-e5-small (564 for this one).
DENSE = "Art.-Nr. 4711-0815/3b; " * 43 + "\n\n" + "Die Pumpe läuft. " * 20


def test_recursive_baseline_with_the_default_model_never_exceeds_or_crashes() -> None:
    counter = load_counter()
    cfg = parse_config(
        {"baseline": "recursive", "chunker": {"max_chars": 1000, "overlap_chars": 150}}
    )
    assert cfg.over_cap == "truncate"
    chunks = chunk_with("recursive", DENSE, "de", cfg.chunker, counter=counter)
    over = [c for c in chunks if c.token_count > counter.max_tokens]
    assert over, "the fixture must reproduce a chunk over the cap"
    for c in over:
        cut = truncate_to_tokens(c.text, counter.count, counter.max_tokens)
        assert counter.count(cut) <= counter.max_tokens < counter.count(c.text)
    split = chunk_with(
        "recursive", DENSE, "de", cfg.chunker, counter=counter, over_cap="split"
    )
    assert max(c.token_count for c in split) <= counter.max_tokens
    assert all(DENSE[c.start : c.end] == c.body for c in split)


def test_over_cap_setting_is_validated_by_name() -> None:
    assert parse_config({"over_cap": "split"}).over_cap == "split"
    with pytest.raises(ConfigError, match="over_cap: unknown 'drop'"):
        parse_config({"over_cap": "drop"})
    assert ChunkerConfig.build().max_tokens is None
