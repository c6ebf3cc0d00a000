"""Unit tests for chunkwise.segment (ICU segmentation + corrections). Pure, no I/O."""

from __future__ import annotations

import itertools

import pytest

from chunkwise.segment import (
    grapheme_boundaries,
    split_sentences,
    utf16_to_codepoint_offsets,
    word_boundaries,
)


def sentences(text: str, lang: str | None) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text, lang)]


def assert_covers(text: str, spans: list[tuple[int, int]]) -> None:
    assert spans[0][0] == 0
    assert spans[-1][1] == len(text)
    for (a, b), (c, _d) in itertools.pairwise(spans):
        assert b == c
        assert a < b


# --- UTF-16 conversion -----------------------------------------------------


def _utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def test_utf16_fast_path_bmp_only() -> None:
    text = "Grüße, Ωmega — 漢字"
    assert utf16_to_codepoint_offsets(text, [0, 3, len(text)]) == [0, 3, len(text)]


def test_utf16_astral_offsets_shift() -> None:
    text = "a😀b𝄞c"  # two astral chars, each 2 code units
    # code points: a=0 😀=1 b=2 𝄞=3 c=4 end=5 ; utf16: a=0 😀=1 b=3 𝄞=4 c=6 end=7
    assert utf16_to_codepoint_offsets(text, [0, 1, 3, 4, 6, 7]) == [0, 1, 2, 3, 4, 5]


def test_utf16_every_codepoint_offset_round_trips() -> None:
    text = "x👩\u200d👩\u200d👧 🇩🇪 é\u0301 \ud800 z\U0001d54f"
    u16 = [_utf16_len(text[:i]) for i in range(len(text) + 1)]
    assert utf16_to_codepoint_offsets(text, u16) == list(range(len(text) + 1))


def test_utf16_empty_iterable() -> None:
    assert utf16_to_codepoint_offsets("😀", []) == []


# --- graphemes -------------------------------------------------------------


@pytest.mark.parametrize(
    "cluster",
    [
        "👩\u200d👩\u200d👧\u200d👦",  # ZWJ family
        "🇩🇪",  # flag (regional indicator pair)
        "👍🏽",  # skin tone modifier
        "e\u0301\u0323",  # combining marks
        "\u1100\u1161\u11a8",  # Hangul jamo L V T = one syllable
        "\r\n",  # CRLF
        "🏴\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f",  # tag sequence
    ],
)
def test_grapheme_cluster_is_atomic(cluster: str) -> None:
    text = "a" + cluster + "b"
    assert grapheme_boundaries(text) == [0, 1, 1 + len(cluster), len(text)]


def test_grapheme_two_flags_are_two_clusters() -> None:
    text = "🇩🇪🇬🇧"
    assert grapheme_boundaries(text) == [0, 2, 4]


def test_grapheme_empty() -> None:
    assert grapheme_boundaries("") == [0]


# --- words -----------------------------------------------------------------


def test_word_boundaries_basic_and_astral() -> None:
    text = "Hallo 😀 Welt"
    b = word_boundaries(text, "de")
    assert b[0] == 0 and b[-1] == len(text)
    assert 5 in b and 6 in b and 7 in b and 8 in b
    assert text[b[-2] : b[-1]] == "Welt"


def test_word_boundaries_keep_crlf_and_zwj() -> None:
    text = "a\r\nb 👩\u200d👩\u200d👧 c"
    b = word_boundaries(text, "en")
    assert 2 not in b  # never between CR and LF
    zwj_start = text.index("👩")
    for i in range(zwj_start + 1, zwj_start + 5):
        assert i not in b


# --- sentences: raw behaviour & robustness ----------------------------------


def test_empty_text_gives_no_sentences() -> None:
    assert split_sentences("") == []


def test_trailing_whitespace_stays_with_sentence() -> None:
    text = "One. Two.  Three."
    assert sentences(text, "en") == ["One. ", "Two.  ", "Three."]


def test_astral_text_spans_are_code_points() -> None:
    text = "Ich 😀 lache. Du 🇩🇪 nicht."
    assert sentences(text, "de") == ["Ich 😀 lache. ", "Du 🇩🇪 nicht."]


@pytest.mark.parametrize(
    "text",
    [
        "a\ud800b. C d. \udfff E.",
        "Null\x00byte. Next one.",
        "\ufeffBOM first. Then more.",
        "Line one.\r\nLine two.\rLine three.\nEnd.",
        "\ud83d\ude00 pair of lone halves. Ok.",
        "   ",
        ".",
    ],
)
def test_bad_input_does_not_crash_and_covers(text: str) -> None:
    for lang in ("en", "de", None):
        spans = split_sentences(text, lang)
        assert_covers(text, spans)


def test_crlf_never_split() -> None:
    text = "Line one.\r\nLine two.\r\n\r\nThree."
    for lang in ("en", "de", None):
        for a, b in split_sentences(text, lang):
            assert not (a > 0 and text[a - 1] == "\r" and text[a] == "\n")
            assert not (b < len(text) and text[b - 1] == "\r" and text[b] == "\n")


def test_lang_variants_accepted() -> None:
    text = "Eins. Zwei."
    expected = [(0, 6), (6, 11)]
    for lang in ("de", "de-AT", "de_CH", "DE", "und", None, "", "fr"):
        assert split_sentences(text, lang) == expected
