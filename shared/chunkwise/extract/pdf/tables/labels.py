"""Row labels set beside a ruled table's frame, left of it, one on each body row.

Some layouts draw the frame round the cells only and set the rows' names in the
column beside it: the Europass CV classes' language grid ("Französisch", "Deutsch"
right-aligned against the CV's label column, the CEFR levels in the frame), forms
with a label column outside the boxes. Read as prose, the names end up in a paragraph
after the table and no row of it says which language it rates. When every body row
has words beside the frame, ending close to its left edge, they become the table's
first column (the words beside the header rows, if any, its head).
"""

from __future__ import annotations

import itertools
from typing import Any

from .spans import Box

Words = list[dict[str, Any]]

_REACH = 40.0  # points: a label ends at most this far left of the frame
_MIN_ROWS = 2  # body rows, each with a label
_MAX_WORDS = 5  # in one row's label
_SLACK = 1.0  # points


def _band(row: list[Box | None]) -> tuple[float, float] | None:
    """The row's vertical extent: a cell reaching down over later rows ends with the row."""
    boxes = [b for b in row if b is not None]
    if not boxes:
        return None
    return min(b[1] for b in boxes), min(b[3] for b in boxes)


def _beside(words: Words, left: float, top: float, bottom: float) -> Words:
    return [
        w
        for w in words
        if float(w["x1"]) <= left + _SLACK
        and top <= (float(w["top"]) + float(w["bottom"])) / 2 < bottom
    ]


def _a_name(words: Words) -> bool:
    """A row's label is a name on one line, not the lines of a paragraph set beside it."""
    tops = [float(w["top"]) for w in words]
    return len(words) <= _MAX_WORDS and max(tops) - min(tops) <= 2 * _SLACK


def row_labels(
    words: Words, grid: list[list[Box | None]], header: int
) -> tuple[list[Words], list[Box | None]] | None:
    """Per grid row the words of its label beside the frame and the label's box (the
    header rows' label once, in the first header row, its box over all of them), or
    None when the rows have no labels there: a body row without one, fewer than two
    body rows, a label ending farther than `_REACH` from the frame, or rows that share
    a band (one frame read as several rows), or a body row's label that is more than a
    name on one line (text set beside the table)."""
    bands = [_band(row) for row in grid]
    boxes = [b for row in grid for b in row if b is not None]
    if len(grid) - header < _MIN_ROWS or not boxes or any(b is None for b in bands):
        return None
    left = min(b[0] for b in boxes)
    tops = [band[0] for band in bands if band is not None]
    if any(b - a < _SLACK for a, b in itertools.pairwise(tops)):
        return None
    near = [w for w in words if float(w["x1"]) <= left + _SLACK]
    spans = [(tops[0], tops[header] if header < len(tops) else tops[0])]
    spans += [band for band in bands[header:] if band is not None]
    found = [_beside(near, left, top, bottom) for top, bottom in spans]
    if not all(found[1:]) or not all(_a_name(f) for f in found[1:]):
        return None
    if any(left - max(float(w["x1"]) for w in f) > _REACH for f in found if f):
        return None
    labels: list[Words] = [found[0], *([[]] * (header - 1)), *found[1:]]
    out_boxes: list[Box | None] = [(left - _REACH, spans[0][0], left, spans[0][1])]
    out_boxes += [None] * (header - 1)
    out_boxes += [(left - _REACH, top, left, bottom) for top, bottom in spans[1:]]
    return labels, out_boxes
