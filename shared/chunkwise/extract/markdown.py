"""Markdown is already canonical: passed through with LF newlines.

One adjustment keeps Markdown's meaning under chunkwise's grammar, where a
heading starts a block: an ATX heading directly under a text line (CommonMark
lets it interrupt a paragraph) gets a blank line before it. No character of
the source is changed or escaped; text inside fenced code is left alone.
"""

from __future__ import annotations

from chunkwise.canonical import FENCE, HEADING_START

from .errors import EmptyDocument
from .text import normalise_newlines


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
        opening = FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
        elif opening:
            fence = opening.group(1)
        elif (
            HEADING_START.match(line)
            and out
            and out[-1].strip()
            and not HEADING_START.match(out[-1])
        ):
            out.append("")
        out.append(line)
    return "\n".join(out)

