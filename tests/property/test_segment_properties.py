"""Property tests for chunkwise.text.segment over multilingual text with emoji and marks."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkwise.text.breaks import icu_boundaries
from chunkwise.text.segment import (
    grapheme_boundaries,
    raw_sentence_boundaries,
    split_sentences,
    utf16_to_codepoint_offsets,
    word_boundaries,
)

PIECES = [
    "Der Vater kam.",
    " ",
    "  ",
    "\n",
    "\r\n",
    "\r",
    "am 3. Oktober",
    "z. B.",
    "Nr. 5",
    "Dr. Müller",
    "Dr. Smith",
    "e.g.",
    "U.S.",
    "J. R. R. Tolkien",
    "usw.",
    "Das kostet 5.",
    "!",
    "?",
    ".",
    "…",
    "… Dann",
    " :-) ",
    ";)",
    "Wir",
    "i loved it. ",
    "why",
    "etc. ",
    "„Hallo.“",
    '"Quote."',
    "(Klammer.)",
    "😀",
    "👩\u200d👩\u200d👧",
    "🇩🇪",
    "👍🏽",
    "e\u0301",
    "\u1100\u1161\u11a8",
    "한국어.",
    "漢字。",
    "Ελληνικά.",
    "עברית.",
    "\u0000",
    "\ufeff",
    "\ud800",
    "\U0001d54f",
]

texts = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    st.text(max_size=200),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=30).map("".join),
)
langs = st.sampled_from(["en", "de", None, "und"])


@settings(max_examples=300, deadline=None)
@given(texts, langs)
def test_sentence_spans_cover_text_contiguously(text: str, lang: str | None) -> None:
    spans = split_sentences(text, lang)
    if not text:
        assert spans == []
        return
    assert spans[0][0] == 0
    assert spans[-1][1] == len(text)
    for (a, b), (c, _) in itertools.pairwise(spans):
        assert a < b == c
    assert "".join(text[a:b] for a, b in spans) == text


@settings(max_examples=300, deadline=None)
@given(texts, langs)
def test_sentence_and_word_boundaries_are_grapheme_boundaries(text: str, lang: str | None) -> None:
    graphemes = set(grapheme_boundaries(text))
    for a, _ in split_sentences(text, lang):
        assert a in graphemes
    words = word_boundaries(text, lang)
    assert words == sorted(set(words))
    assert words[0] == 0 and words[-1] == len(text)
    assert set(words) <= graphemes


@settings(max_examples=300, deadline=None)
@given(texts)
def test_grapheme_boundaries_sorted_and_complete(text: str) -> None:
    g = grapheme_boundaries(text)
    assert g == sorted(set(g))
    assert g[0] == 0 and g[-1] == len(text)
    for i in g[1:-1]:
        assert not (text[i - 1] == "\r" and text[i] == "\n")


@settings(max_examples=300, deadline=None)
@given(texts)
def test_utf16_conversion_round_trips(text: str) -> None:
    u16 = [len(text[:i].encode("utf-16-le", "surrogatepass")) // 2 for i in range(len(text) + 1)]
    assert utf16_to_codepoint_offsets(text, u16) == list(range(len(text) + 1))


@settings(max_examples=300, deadline=None)
@given(texts, langs)
def test_boundaries_not_from_icu_follow_whitespace(text: str, lang: str | None) -> None:
    # Rules 1-9 only remove ICU boundaries; rules 10-12 add one only at the
    # end of a whitespace run, before a letter or an opening quote/bracket.
    raw = set(raw_sentence_boundaries(text, lang))
    for a, _ in split_sentences(text, lang):
        if a not in raw:
            assert 0 < a < len(text)
            assert text[a - 1].isspace() and not text[a].isspace()


@settings(max_examples=300, deadline=None)
@given(texts)
def test_grapheme_fast_path_agrees_with_icu(text: str) -> None:
    ascii_text = text.encode("ascii", "replace").decode("ascii")
    assert grapheme_boundaries(ascii_text) == icu_boundaries("character", "", ascii_text)
