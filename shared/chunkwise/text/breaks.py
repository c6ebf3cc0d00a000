"""ICU segmentation: grapheme, word and sentence boundaries as code-point offsets.

ICU's own boundaries, uncorrected; the sentence corrections are in
`chunkwise.text.sentence_rules`, the splitter that applies them in
`chunkwise.text.segment`.

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
* Word and sentence boundaries are always grapheme cluster boundaries: the
  rare ICU word/sentence boundary inside a cluster is dropped.

Thread safety
-------------
ICU ``BreakIterator`` objects are not thread-safe.  Instances are cached per
thread (``threading.local``) and per (kind, locale), so concurrent use from
several threads is safe; within one thread the functions are not re-entrant,
which they never need to be.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

import icu

__all__ = [
    "grapheme_boundaries",
    "icu_boundaries",
    "normalise_lang",
    "raw_sentence_boundaries",
    "utf16_to_codepoint_offsets",
    "word_boundaries",
]

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_CRLF = re.compile("\r\n")
_HIGH = re.compile("[^\x00-\u02ff]")

_local = threading.local()


def normalise_lang(lang: str | None) -> str:
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


def icu_boundaries(kind: str, locale_id: str, text: str, graphemes_only: bool = False) -> list[int]:
    """All boundaries ICU reports (code points), including 0 and len(text).

    ``graphemes_only``: drop any boundary that is not also an extended
    grapheme cluster boundary.  ICU's word and sentence rules do not promise
    that (e.g. the word iterator breaks between ":" and THAI SARA AM, which
    the grapheme rules join as a SpacingMark; a space followed by a spacing
    mark is one cluster but may follow a sentence boundary).  Only boundaries
    next to a character >= U+0300 can be affected, so only those are checked.
    """
    if not text:
        return [0]
    is_ascii = text.isascii()
    if is_ascii:
        safe, astral = text, False
    else:
        # One O(n) pass in C finds both lone surrogates (strict encoding
        # fails) and astral characters (more code units than code points).
        try:
            n_units = len(text.encode("utf-16-le")) >> 1
            safe = text
        except UnicodeEncodeError:
            safe = _SURROGATE.sub("\ufffd", text)
            n_units = len(safe.encode("utf-16-le")) >> 1
        astral = n_units != len(text)
    ustr = icu.UnicodeString(safe)
    it = _iterator(kind, locale_id)
    it.setText(ustr)
    try:
        utf16 = [it.first(), *it]
    finally:
        # Drop ICU's reference to the (possibly large) text.
        it.setText(_EMPTY)
    cp_astral = [m.start() for m in _ASTRAL.finditer(text)] if astral else []
    bounds = _utf16_to_codepoints(utf16, cp_astral)
    if graphemes_only and not is_ascii:
        bounds = _grapheme_filter(safe, ustr, bounds, cp_astral)
    return bounds


_EMPTY = icu.UnicodeString("")


def _grapheme_filter(text: str, ustr: Any, bounds: list[int], cp_astral: list[int]) -> list[int]:
    n = len(text)
    if len(bounds) * 64 < n:
        # Few boundaries (sentences): look at each.
        suspects = [
            b for b in bounds if 0 < b < n and (text[b] >= "\u0300" or text[b - 1] >= "\u0300")
        ]
    else:
        # Many boundaries (words): start from the (usually few) characters
        # >= U+0300 and look the boundaries up around them.
        high = [m.start() for m in _HIGH.finditer(text)]
        if len(high) * 4 > len(bounds):
            suspects = [
                b for b in bounds if 0 < b < n and (text[b] >= "\u0300" or text[b - 1] >= "\u0300")
            ]
        else:
            suspects = []
            for q in sorted({q for p in high for q in (p, p + 1) if 0 < q < n}):
                i = bisect_left(bounds, q)
                if i < len(bounds) and bounds[i] == q:
                    suspects.append(q)
    cit = _iterator("character", "")
    cit.setText(ustr)
    try:
        drop = set()
        for b in suspects:
            u16 = b + bisect_left(cp_astral, b) if cp_astral else b
            if not cit.isBoundary(u16):
                drop.add(b)
    finally:
        cit.setText(_EMPTY)
    if not drop:
        return bounds
    return [b for b in bounds if b not in drop]


def utf16_to_codepoint_offsets(text: str, utf16_offsets: Iterable[int]) -> list[int]:
    """Convert UTF-16 code-unit offsets into ``text`` to code-point offsets.

    The one place where ICU offsets become Python offsets (together with its
    helper ``_utf16_to_codepoints``, which every function here goes through).
    Astral characters (U+10000 and above) are two UTF-16 code units but one
    code point; every other code point, including a lone surrogate, is one of
    each.  Offsets must lie on code-point boundaries (ICU never reports one
    inside a surrogate pair); an offset inside a pair maps to the start of
    that character.

    Fast path: text without astral characters returns the offsets unchanged
    (one C-speed encoding pass to find out; none for ASCII).  Otherwise O(n)
    to locate the astral characters, then O(log n) per offset.
    """
    offsets = list(utf16_offsets)
    if not offsets or text.isascii():
        return offsets
    if len(text.encode("utf-16-le", "surrogatepass")) >> 1 == len(text):
        return offsets
    return _utf16_to_codepoints(offsets, [m.start() for m in _ASTRAL.finditer(text)])


def _utf16_to_codepoints(offsets: list[int], cp_astral: list[int]) -> list[int]:
    """``cp_astral``: code-point indices of the astral characters, ascending."""
    if not cp_astral:
        return offsets
    # UTF-16 start offset of the k-th astral character = its code-point index + k.
    starts = [c + k for k, c in enumerate(cp_astral)]
    # Each astral character that starts before offset u adds one extra code unit.
    return [u - bisect_left(starts, u) for u in offsets]


def grapheme_boundaries(text: str) -> list[int]:
    """Extended grapheme cluster boundaries (code points), incl. 0 and len(text)."""
    if not text:
        return [0]
    if text.isascii():
        # ASCII has no Extend, ZWJ, SpacingMark, Prepend or Regional_Indicator
        # characters: every code point is a cluster except CR LF (GB3).
        bounds = list(range(len(text) + 1))
        if "\r\n" in text:
            inside = {m.start() + 1 for m in _CRLF.finditer(text)}
            bounds = [i for i in bounds if i not in inside]
        return bounds
    return icu_boundaries("character", "", text)


def word_boundaries(text: str, lang: str | None = None) -> list[int]:
    """Offsets where ICU's word BreakIterator allows a boundary, incl. 0 and len(text).

    Boundaries that would fall inside an extended grapheme cluster are dropped
    (ICU's word rules alone allow a few, e.g. before THAI SARA AM after
    punctuation), so every offset returned is a safe cut.
    """
    if not text:
        return [0]
    return icu_boundaries("word", normalise_lang(lang), text, graphemes_only=True)


def raw_sentence_boundaries(text: str, lang: str | None = None) -> list[int]:
    """ICU's own sentence boundaries (code points), incl. 0 and len(text).

    No corrections; exposed for evaluation and debugging.
    """
    if not text:
        return [0]
    return icu_boundaries("sentence", normalise_lang(lang), text)
