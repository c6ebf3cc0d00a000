"""Small pure helpers over spans of the input text."""

from __future__ import annotations

import re
import unicodedata

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: Longest heading kept in a chunk's `heading_path` (retrieval context, not cited
#: text): the field is a keyword, and one term over 32 KB would reject the whole
#: document; a real heading is far shorter.
MAX_HEADING_CHARS = 256
_HEADING_ELLIPSIS = "…"
# Characters BERT's normaliser treats as whitespace (Python's isspace() is wider).
_BERT_SPACE = frozenset(" \t\n\r")


def indexable(text: str) -> str:
    """A copy safe for the tokenizer: lone surrogates become U+FFFD."""
    if _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span so it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _is_split_char(ch: str) -> bool:
    """A character at which a BERT pre-tokenizer always splits: space or punctuation."""
    if ch in _BERT_SPACE:
        return True
    category = unicodedata.category(ch)
    return (
        category == "Zs"
        or category.startswith("P")
        or (ch.isascii() and not ch.isalnum() and ch.isprintable())
    )


def additive_join(text: str, left_end: int, right_start: int) -> bool:
    """True if tokens(left + gap + right) == tokens(left) + tokens(right) for BERT."""
    gap = text[left_end:right_start]
    if gap and any(_is_split_char(ch) for ch in gap) and all(ch.isspace() for ch in gap):
        return True
    if gap:
        return False
    return _is_split_char(text[left_end - 1]) or _is_split_char(text[right_start])


def cap_heading(title: str, limit: int = MAX_HEADING_CHARS) -> str:
    """``title`` cut to at most ``limit`` code points, at a space if one is near the
    end, never inside a combining sequence, marked with an ellipsis."""
    if len(title) <= limit:
        return title
    cut = limit - len(_HEADING_ELLIPSIS)
    space = title.rfind(" ", cut - 32, cut + 1)
    if space > 0:
        cut = space
    while cut > 0 and unicodedata.combining(title[cut]):
        cut -= 1  # keep a base letter with its marks
    return title[:cut].rstrip() + _HEADING_ELLIPSIS
