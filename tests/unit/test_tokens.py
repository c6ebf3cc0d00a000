"""The token counter: the model's real tokenizer, never truncating, configurable location."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from chunkwise.errors import TokenizerError
from chunkwise.models import word_counts
from chunkwise.models.counter import HFTokenCounter, load_counter
from chunkwise.models.files import default_tokenizer_path, load_tokenizer_json, model_tokenizer_path
from chunkwise.models.registry import DEFAULT_MODEL, MINILM, ModelTokenizer


def test_counts_are_not_truncated_at_the_packaged_128_tokens() -> None:
    counter = load_counter(model=MINILM)
    assert counter.count("word " * 1000) == 1000 + 2
    assert counter.count_plain("word " * 1000) == 1000


def test_default_counter_counts_the_passage_prefix_and_is_not_truncated() -> None:
    counter = load_counter()
    assert counter.max_tokens == DEFAULT_MODEL.max_tokens == 512
    assert counter.model_id == "intfloat/multilingual-e5-small"
    assert counter.tokenizer_id.startswith("intfloat/multilingual-e5-small@sha256:")
    # <s> "▁passage" ":" then one "▁word" per word, </s>: 2000 tokens, far over 512.
    assert counter.count(" ".join(["word"] * 1998)) == 2 + 2 + 1998
    assert counter.count_whole(" ".join(["word"] * 1998)) == 2 + 2 + 1998


def test_bert_tokenizer_is_marked_additive() -> None:
    counter = load_counter(model=MINILM)
    assert counter.additive
    a, b = "Die Pumpe läuft.", "Dann stoppt sie, z. B. nachts."
    assert counter.count_plain(a + "\n\n" + b) == counter.count_plain(a) + counter.count_plain(b)


def test_configured_model_directory_is_used(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text(load_tokenizer_json(default_tokenizer_path()))
    packaged = load_counter().count("Übergrößen im Oktober")
    assert default_tokenizer_path(tmp_path) == tmp_path
    configured = load_counter(default_tokenizer_path(tmp_path))
    assert configured.count("Übergrößen im Oktober") == packaged
    assert configured.prefix == "passage: "  # recognised as the model's file
    # Nothing is remembered: without a configured location, the installed package.
    assert default_tokenizer_path() == model_tokenizer_path(DEFAULT_MODEL)


def test_bad_tokenizer_files(tmp_path: Path) -> None:
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(TokenizerError, match="invalid tokenizer"):
        load_counter(bad)
    with pytest.raises(TokenizerError, match="not found"):
        load_counter(tmp_path / "nope" / "tokenizer.json")


# -- the word memo (exact sums of per-word counts for BERT tokenizers) -------------

ODD_TEXT = (
    "a\x0bb c\x85d e\u2028f\x1cg [CLS]x  \u3000y\u200dz 😀👍🏽 Cafe\u0301 ß İstanbul "
    "NUL\x00here \ufeffBOM 日本語テキスト Straße\r\nZeile\ttab\u00a0nbsp"
)


def test_python_whitespace_table_is_what_str_isspace_says() -> None:
    computed = {chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()}
    assert computed == word_counts.PYTHON_WHITESPACE


def test_separators_are_measured_on_the_tokenizer(minilm_counter: HFTokenCounter) -> None:
    counter = minilm_counter
    separators = word_counts._separators(counter.tokenizer)
    # BERT's normaliser deletes these control characters instead of splitting there.
    assert separators.isdisjoint({"\x0b", "\x0c", "\x1c", "\x1f", "\x85"})
    assert {" ", "\t", "\n", "\r", "\xa0", "\u3000", "\u2028"} <= separators


def test_memo_sums_equal_whole_text_counts(minilm_counter: HFTokenCounter) -> None:
    counter = minilm_counter
    assert counter.uses_word_memo
    texts = [ODD_TEXT, "", "   ", "word " * 300, "x" * 5000, ODD_TEXT.upper()]
    assert counter.count_many(texts) == [counter.count_whole(t) for t in texts]
    assert counter.count(ODD_TEXT) == counter.count_whole(ODD_TEXT)


def test_memo_is_bounded_and_skips_long_words() -> None:
    counter = load_counter.__wrapped__(None, None, True, model=MINILM)  # a private instance
    small = HFTokenCounter(
        counter.tokenizer, counter.max_tokens, add_special_tokens=True, additive=True, memo_words=3
    )
    long_word = "z" * 200
    assert small.count_plain(long_word) == small.count_whole(long_word) - 2
    assert small.memo_stats["size"] == 0  # counted, never stored
    small.count_many_plain(["one two three four five"])
    assert small.memo_stats["size"] == 5  # a batch may overshoot ...
    small.count_plain("six")
    assert small.memo_stats["size"] == 1  # ... the next call starts afresh
    assert small.count_plain("one two") == small.count_whole("one two") - 2


def test_tokenizers_whose_added_tokens_hold_spaces_are_counted_whole(tmp_path: Path) -> None:
    spec = json.loads(load_tokenizer_json(model_tokenizer_path(MINILM)))
    spec["added_tokens"].append(
        {
            "id": 30522,
            "special": False,
            "content": "New York",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
        }
    )
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec))
    counter = load_counter(path)
    assert counter.additive and not counter.uses_word_memo
    assert counter.count_plain("in New York") == 2  # "in" + the added token
    no_memo = HFTokenCounter(Tokenizer.from_str(path.read_text()), 256, True, additive=False)
    assert not no_memo.uses_word_memo
    assert no_memo.count_plain(ODD_TEXT) == load_counter(model=MINILM).count_plain(ODD_TEXT)


def test_memo_is_safe_to_share_between_threads(minilm_counter: HFTokenCounter) -> None:
    counter = minilm_counter
    shared = HFTokenCounter(
        counter.tokenizer,
        counter.max_tokens,
        add_special_tokens=True,
        additive=True,
        memo_words=50,
    )
    texts = [f"Wort{i} Straße{i % 7} naïve {i}. Übergröße" for i in range(400)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(shared.count, texts))
    assert results == [counter.count_whole(t) for t in texts]


def test_a_tokenizer_of_another_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text(load_tokenizer_json(model_tokenizer_path(MINILM)))
    with pytest.raises(TokenizerError, match="does not match the model intfloat/multilingual-e5"):
        load_counter(tmp_path, model=DEFAULT_MODEL)


def test_missing_model_package_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = ModelTokenizer(**{**DEFAULT_MODEL.__dict__, "package": "no_such_pkg_x"})
    with pytest.raises(TokenizerError, match=r"no_such_pkg_x.*not installed"):
        load_counter(model=missing)


def test_sentencepiece_separators_and_trailing_space_are_measured() -> None:
    counter = load_counter(model=DEFAULT_MODEL)
    tokenizer = counter.tokenizer
    assert counter.uses_word_memo and not counter.additive
    separators = word_counts._separators(tokenizer)
    # XLM-R's normaliser deletes U+000B and U+001C and keeps U+0085 inside the word.
    assert separators.isdisjoint({"\x0b", "\x1c", "\x85"})
    assert {" ", "\t", "\n", "\r", "\xa0", "\u3000", "\u2028"} <= separators
    assert word_counts._trailing_cost(tokenizer) == 1  # "a " is "▁a" "▁"
    texts = ["Die Pumpe läuft. ", "a\xa0\u0301b", "x\u200d", "a <s> b", "   ", ""]
    whole = [len(tokenizer.encode(t, add_special_tokens=False).ids) for t in texts]
    assert counter.count_many_plain(texts) == whole


@pytest.mark.parametrize(
    ("part", "change"),
    [
        ("normalizer", lambda n: {"type": "Sequence", "normalizers": n["normalizers"][:1]}),
        ("pre_tokenizer", lambda p: {**p, "prepend_scheme": "first"}),
        ("pre_tokenizer", lambda p: {**p, "split": False}),
    ],
    ids=["no-space-collapsing", "prefix-only-first", "no-split"],
)
def test_sentencepiece_variants_without_additivity_are_counted_whole(
    tmp_path: Path, part: str, change: object
) -> None:
    spec = json.loads(load_tokenizer_json(model_tokenizer_path(DEFAULT_MODEL)))
    spec[part] = change(spec[part])  # type: ignore[operator]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec))
    counter = load_counter(path)
    assert not counter.uses_word_memo
    text = "Die  Pumpe läuft.  Dann stoppt sie. "
    assert counter.count(text) == counter.count_whole(text)
