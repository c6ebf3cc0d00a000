"""Rows of a ruled table cell told apart by the space between its entries.

A table ruled around groups of rows (mdwtab's parameter table: one frame for
`\\tabextrasep`, `\\arrayextrasep`, `\\smarrayextrasep` and their descriptions)
puts several rows in one cell of the grid. Where each description wraps over
a different number of lines, rows cannot be read line by line; what tells
them apart is the row separation TeX adds between rows (`\\extrarowsep`,
`\\tabextrasep`), wider than the line pitch inside a paragraph. A label set
vertically centred on its paragraph, or on its first line, lies within its
entry's height either way.
"""

from __future__ import annotations

from itertools import pairwise
from statistics import median
from typing import Any

Words = list[dict[str, Any]]

_SAME_LINE = 2.0  # points: words of one line share their bottom within this
_ENTRY_GAP = 1.1  # a pitch this much above the row's tightest starts a new entry


def _lines(words: Words) -> list[Words]:
    lines: list[Words] = []
    for word in sorted(words, key=lambda w: (float(w["bottom"]), float(w["x0"]))):
        if lines and abs(_bottom(lines[-1]) - float(word["bottom"])) <= _SAME_LINE:
            lines[-1].append(word)
        else:
            lines.append([word])
    return lines


def _bottom(line: Words) -> float:
    return float(median(float(w["bottom"]) for w in line))


def _entries(lines: list[Words], pitch: float) -> list[Words]:
    """The lines joined into entries, a new one after each gap wider than the pitch."""
    entries: list[Words] = [list(lines[0])]
    for above, below in pairwise(lines):
        if _bottom(below) - _bottom(above) > _ENTRY_GAP * pitch:
            entries.append([])
        entries[-1].extend(below)
    return entries


def _span(words: Words) -> tuple[float, float]:
    return min(float(w["top"]) for w in words), max(float(w["bottom"]) for w in words)


def entry_rows(cells: list[Words | None]) -> list[list[Words | None]] | None:
    """The cells split into rows at the wider gaps between entries, or None where that
    does not hold: every filled cell must have the same number (two or more) of
    entries, entry k of each cell overlapping entry k of the others in height."""
    lines_of = {i: _lines(c) for i, c in enumerate(cells) if c}
    pitches = [_bottom(b) - _bottom(a) for lines in lines_of.values() for a, b in pairwise(lines)]
    if len(lines_of) < 2 or not pitches or min(pitches) <= 0:
        return None
    entries = {i: _entries(lines, min(pitches)) for i, lines in lines_of.items()}
    counts = {len(e) for e in entries.values()}
    if len(counts) != 1 or counts == {1}:
        return None
    rows: list[list[Words | None]] = []
    for k in range(counts.pop()):
        spans = [_span(e[k]) for e in entries.values()]
        if max(top for top, _b in spans) > min(bottom for _t, bottom in spans):
            return None
        row: list[Words | None] = [[] if c is not None else None for c in cells]
        for i, found in entries.items():
            row[i] = found[k]
        rows.append(row)
    return rows
