"""The token counter: the model's real tokenizer, never truncating, configurable location."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkwise.errors import TokenizerError
from chunkwise.tokens import (
    configure_default_model,
    default_tokenizer_path,
    load_counter,
    load_tokenizer_json,
)


def test_counts_are_not_truncated_at_the_packaged_128_tokens() -> None:
    counter = load_counter()
    assert counter.count("word " * 1000) == 1000 + 2
    assert counter.count_plain("word " * 1000) == 1000


def test_bert_tokenizer_is_marked_additive() -> None:
    counter = load_counter()
    assert counter.additive
    a, b = "Die Pumpe läuft.", "Dann stoppt sie, z. B. nachts."
    assert counter.count_plain(a + "\n\n" + b) == counter.count_plain(a) + counter.count_plain(b)


def test_configured_model_directory_is_used(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text(load_tokenizer_json(default_tokenizer_path()))
    packaged = load_counter().count("Übergrößen im Oktober")
    try:
        configure_default_model(tmp_path)
        assert default_tokenizer_path() == tmp_path
        assert load_counter().count("Übergrößen im Oktober") == packaged
    finally:
        configure_default_model(None)
    assert default_tokenizer_path().name == "model.zip"


def test_bad_tokenizer_files(tmp_path: Path) -> None:
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(TokenizerError, match="invalid tokenizer"):
        load_counter(bad)
    with pytest.raises(TokenizerError, match="not found"):
        load_counter(tmp_path / "nope" / "tokenizer.json")
