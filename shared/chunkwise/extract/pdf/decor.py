"""What an office suite draws that is not text or table structure: overlaid spaces, underlines.

LibreOffice (and Word) write a text portion's boundaries into the PDF: a space
character at the start and end of a link or other formatted portion, drawn on
top of the neighbouring glyph rather than between words. Read as a word break,
it splits "chromium" into "chromiu m". Links are underlined with a stroked
line through the glyphs' descender area: stacked in a table column, those
underlines look like the rules of a table of their own.

Both are recognised from geometry only (pdfplumber's character and edge
dicts), so TeX or DocBook output, which has neither, is unaffected.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any

_OVERLAY = 0.5  # share of a space's width lying over a glyph: drawn on it, not between words
_UNDERLINE_COVER = 0.9  # share of an underline's length that runs under glyphs (and spaces)
_BELOW = 0.25  # how far below a glyph's box (share of its height) an underline may lie
_START = 1.0  # points: an underline starts where its first glyph does


def _visible(char: dict[str, Any]) -> bool:
    return bool(str(char.get("text", "")).strip())


def overlaid_spaces(chars: list[dict[str, Any]]) -> set[int]:
    """ids of the space characters drawn over a glyph of their own line."""
    rows: dict[int, list[tuple[float, float]]] = defaultdict(list)
    for c in chars:
        if _visible(c):
            rows[round(float(c["top"]))].append((float(c["x0"]), float(c["x1"])))
    starts: dict[int, list[float]] = {}
    for key, spans in rows.items():
        spans.sort()
        starts[key] = [s[0] for s in spans]
    drop: set[int] = set()
    for c in chars:
        if c.get("text") != " ":
            continue
        key = round(float(c["top"]))
        line = rows.get(key)
        if line and _over_glyph(float(c["x0"]), float(c["x1"]), line, starts[key]):
            drop.add(id(c))
    return drop


def _over_glyph(
    x0: float, x1: float, spans: list[tuple[float, float]], starts: list[float]
) -> bool:
    width = max(x1 - x0, 0.1)
    at = bisect.bisect_left(starts, x1)  # glyphs starting left of the space's end
    nearest = spans[max(0, at - 3) : at]
    return any(min(x1, g1) - max(x0, g0) > _OVERLAY * width for g0, g1 in nearest)


def underline_keys(chars: list[dict[str, Any]], edges: list[dict[str, Any]]) -> set[int]:
    """ids of the horizontal strokes that underline text: each lies in or just below the
    boxes of one line of glyphs, starts where a glyph starts and runs under glyphs for
    nearly all its length. A table rule starts at the table's edge, before the padding of
    the first cell, and runs under the gaps between the columns."""
    bands: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for c in chars:
        if c.get("text"):
            top, bottom = float(c["top"]), float(c["bottom"])
            for band in range(int(top), int(bottom + _BELOW * (bottom - top)) + 1):
                bands[band].append(c)
    return {
        id(e)
        for e in edges
        if e.get("orientation") == "h" and _underlines(e, bands.get(int(float(e["top"])), []))
    }


def _underlines(edge: dict[str, Any], near: list[dict[str, Any]]) -> bool:
    y, x0, x1 = float(edge["top"]), float(edge["x0"]), float(edge["x1"])
    above = []
    for c in near:
        top, bottom = float(c["top"]), float(c["bottom"])
        if top + 0.5 * (bottom - top) < y <= bottom + _BELOW * (bottom - top):
            above.append((float(c["x0"]), float(c["x1"]), _visible(c)))
    if x1 <= x0 or not any(abs(a - x0) <= _START for a, _, seen in above if seen):
        return False
    covered, reach = 0.0, x0
    for a, b, _ in sorted(above):  # merged: overlaid and duplicate glyphs count once
        a, b = max(a, reach), min(b, x1)
        if b > a:
            covered += b - a
            reach = b
    return covered >= _UNDERLINE_COVER * (x1 - x0)
