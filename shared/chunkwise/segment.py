"""ICU segmentation stage: sentences, words and grapheme clusters.

All public functions take and return *code-point* offsets into the Python
``str`` they were given.  ICU reports UTF-16 code-unit offsets;
:func:`utf16_to_codepoint_offsets` is the one place where they are converted.

Robustness
----------
* Lone surrogates (possible in a Python ``str``) cannot be handed to ICU
  as-is.  Every surrogate code point is replaced by U+FFFD in the copy given
  to ICU.  Both are one UTF-16 code unit and one code point, so offsets are
  unchanged; the caller's text is never modified.
* NUL, BOM and CR LF need nothing special: ICU never breaks inside CR LF
  (sentence, word and grapheme rules all keep it together).

Thread safety
-------------
ICU ``BreakIterator`` objects are not thread-safe.  Instances are cached per
thread (``threading.local``) and per (kind, locale), so concurrent use from
several threads is safe; within one thread the functions are not re-entrant,
which they never need to be.
"""

from __future__ import annotations

import itertools
import re
import threading
from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

import icu

__all__ = [
    "grapheme_boundaries",
    "split_sentences",
    "utf16_to_codepoint_offsets",
    "word_boundaries",
]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")

_local = threading.local()


def _normalise_lang(lang: str | None) -> str:
    """Primary language subtag in lower case; "" for root/undetermined."""
    if not lang:
        return ""
    primary = re.split(r"[-_@]", lang.strip(), maxsplit=1)[0].lower()
    if primary in ("", "und", "root", "xx", "auto"):
        return ""
    return primary


def _iterator(kind: str, locale_id: str) -> Any:
    """A cached BreakIterator for this thread. ``kind`` in sentence|word|character."""
    cache: dict[tuple[str, str], Any] | None = getattr(_local, "cache", None)
    if cache is None:
        cache = {}
        _local.cache = cache
    key = (kind, locale_id)
    it = cache.get(key)
    if it is None:
        locale = icu.Locale(locale_id)
        if kind == "sentence":
            it = icu.BreakIterator.createSentenceInstance(locale)
        elif kind == "word":
            it = icu.BreakIterator.createWordInstance(locale)
        elif kind == "character":
            it = icu.BreakIterator.createCharacterInstance(locale)
        else:  # pragma: no cover - internal misuse
            raise ValueError(f"unknown break iterator kind: {kind!r}")
        cache[key] = it
    return it


def _icu_boundaries(kind: str, locale_id: str, text: str) -> list[int]:
    """All boundaries ICU reports (code points), including 0 and len(text)."""
    if not text:
        return [0]
    safe = _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
    ustr = icu.UnicodeString(safe)
    it = _iterator(kind, locale_id)
    it.setText(ustr)
    try:
        utf16 = [it.first(), *it]
    finally:
        # Drop ICU's reference to the (possibly large) text.
        it.setText(icu.UnicodeString(""))
    return utf16_to_codepoint_offsets(text, utf16)


def utf16_to_codepoint_offsets(text: str, utf16_offsets: Iterable[int]) -> list[int]:
    """Convert UTF-16 code-unit offsets into ``text`` to code-point offsets.

    The one place where ICU offsets become Python offsets.  Astral characters
    (U+10000 and above) are two UTF-16 code units but one code point; every
    other code point, including a lone surrogate, is one of each.  Offsets must
    lie on code-point boundaries (ICU never reports one inside a surrogate
    pair); an offset inside a pair maps to the start of that character.

    Fast path: text without astral characters returns the offsets unchanged.
    Otherwise O(n) to locate astral characters, then O(log n) per offset.
    """
    offsets = list(utf16_offsets)
    if not offsets:
        return offsets
    if text.isascii() or not _ASTRAL.search(text):
        return offsets
    # UTF-16 start offset of the k-th astral character = its code-point index + k.
    starts = [m.start() + k for k, m in enumerate(_ASTRAL.finditer(text))]
    # Each astral character that starts before offset u adds one extra code unit.
    return [u - bisect_left(starts, u) for u in offsets]


def grapheme_boundaries(text: str) -> list[int]:
    """Extended grapheme cluster boundaries (code points), incl. 0 and len(text)."""
    if not text:
        return [0]
    return _icu_boundaries("character", "", text)


def word_boundaries(text: str, lang: str | None = None) -> list[int]:
    """Offsets where ICU's word BreakIterator allows a boundary, incl. 0 and len(text)."""
    if not text:
        return [0]
    return _icu_boundaries("word", _normalise_lang(lang), text)


def _raw_sentence_boundaries(text: str, lang: str | None) -> list[int]:
    return _icu_boundaries("sentence", _normalise_lang(lang), text)


def split_sentences(text: str, lang: str | None = None) -> list[tuple[int, int]]:
    """Split ``text`` into sentences: half-open code-point spans.

    The spans are contiguous and cover the text exactly (first start 0, last
    end ``len(text)``), none is empty; whitespace after a sentence stays with
    it, as in ICU.  Empty text gives ``[]``.
    """
    if not text:
        return []
    bounds = _raw_sentence_boundaries(text, lang)
    return list(itertools.pairwise(bounds))
