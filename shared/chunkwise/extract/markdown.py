"""Markdown is already canonical: passed through with LF newlines.

One adjustment keeps Markdown's meaning under chunkwise's grammar, where a
heading starts a block: an ATX heading directly under a text line (CommonMark
lets it interrupt a paragraph) gets a blank line before it. No character of
the source is changed or escaped; text inside fenced code is left alone.
"""

from __future__ import annotations

import re

from .errors import EmptyDocument
from .text import normalise_newlines

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def extract_markdown(text: str) -> str:
    out = normalise_newlines(text).strip("\n")
    if not out.strip():
        raise EmptyDocument("the Markdown contains only whitespace")
    return separate_headings(out) + "\n"


def separate_headings(text: str) -> str:
    """Put a blank line before each heading that directly follows a text line."""
    lines = text.split("\n")
    out: list[str] = []
    fence: str | None = None
    for line in lines:
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
        elif opening:
            fence = opening.group(1)
        elif _HEADING.match(line) and out and out[-1].strip() and not _HEADING.match(out[-1]):
            out.append("")
        out.append(line)
    return "\n".join(out)


def table_headers(text: str) -> list[str]:
    """Header lines of the GFM tables in a markdown text (in order)."""
    lines = text.split("\n")
    return [
        lines[i - 1]
        for i in range(1, len(lines))
        if "|" in lines[i] and _SEPARATOR.match(lines[i]) and "|" in lines[i - 1]
    ]
