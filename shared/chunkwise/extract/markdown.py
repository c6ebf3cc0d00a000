"""Markdown is already canonical: passed through with LF newlines."""

from __future__ import annotations

import re

from .errors import EmptyDocument
from .text import normalise_newlines

_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def extract_markdown(text: str) -> str:
    out = normalise_newlines(text).strip("\n")
    if not out.strip():
        raise EmptyDocument("the Markdown contains only whitespace")
    return out + "\n"


def table_headers(text: str) -> list[str]:
    """Header lines of the GFM tables in a markdown text (in order)."""
    lines = text.split("\n")
    return [
        lines[i - 1]
        for i in range(1, len(lines))
        if "|" in lines[i] and _SEPARATOR.match(lines[i]) and "|" in lines[i - 1]
    ]
