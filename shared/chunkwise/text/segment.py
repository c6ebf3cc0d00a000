"""Sentence splitting: ICU's sentence boundaries plus the corrections of
`chunkwise.text.sentence_rules`, as code-point spans that cover the text.

The ICU layer (graphemes, words, raw sentences, UTF-16 to code-point offsets, its
handling of lone surrogates and its thread safety) is `chunkwise.text.breaks`; its
public functions are importable from here too, as before.
"""

from __future__ import annotations

import itertools

from chunkwise.text.abbreviations import rules_for
from chunkwise.text.breaks import (
    grapheme_boundaries,
    icu_boundaries,
    normalise_lang,
    raw_sentence_boundaries,
    utf16_to_codepoint_offsets,
    word_boundaries,
)
from chunkwise.text.sentence_rules import correct, insert_boundaries

__all__ = [
    "grapheme_boundaries",
    "raw_sentence_boundaries",
    "split_sentences",
    "utf16_to_codepoint_offsets",
    "word_boundaries",
]


def split_sentences(text: str, lang: str | None = None) -> list[tuple[int, int]]:
    """Split ``text`` into sentences: half-open code-point spans.

    The spans are contiguous and cover the text exactly (first start 0, last
    end ``len(text)``), none is empty; whitespace after a sentence stays with
    it, as in ICU.  Empty text gives ``[]``.

    ``lang``: "en" and "de" (any region, e.g. "de-AT") use ICU's rules for
    that locale plus the corrections of that language; None, "" or "und" use
    ICU's root rules plus the corrections of both English and German (the
    service's languages; a text of unknown language is most likely one of
    them).  Any other language gets ICU's rules for it and only the
    language-neutral corrections (see `chunkwise.text.sentence_rules`).
    """
    if not text:
        return []
    code = normalise_lang(lang)
    rules = rules_for(code)
    bounds = icu_boundaries("sentence", code, text, graphemes_only=True)
    if len(bounds) > 2:
        bounds = correct(text, bounds, rules)
    added = insert_boundaries(text, rules)
    if added:
        bounds = sorted(set(bounds).union(added))
    return list(itertools.pairwise(bounds))
