"""Columns a ruled table leaves unruled: split at the blank strips every row shares.

A frame may rule only some of its columns (psnfss' font table: `|l|llll|`, a
rule after the package name and none between the four font columns). The
table finder then sees one wide column holding four; in it, every row
leaves the same strips blank, at least two column separations
(`\\tabcolsep` on each side) wide, and the first row has a column head on
each side of every strip.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

Box = tuple[float, float, float, float]
Words = list[dict[str, Any]]

MIN_STRIP = 10.0  # points: TeX puts \tabcolsep (6 pt) on both sides; less for rounding
_SLIVER = 6.0  # points: thinner than any line of text
_MIN_ROWS = 3  # rows with words: fewer tell no column apart from a phrase's spaces


def _in_box(word: dict[str, Any], box: Box) -> bool:
    middle = (float(word["top"]) + float(word["bottom"])) / 2
    return box[0] - 1 <= float(word["x0"]) < box[2] - 1 and box[1] <= middle < box[3]


def _strips(spans: list[tuple[float, float]]) -> list[float]:
    """The middles of the blank strips at least MIN_STRIP wide between the spans."""
    cuts: list[float] = []
    reach = None
    for x0, x1 in sorted(spans):
        if reach is not None and x0 - reach >= MIN_STRIP:
            cuts.append((reach + x0) / 2)
        reach = x1 if reach is None else max(reach, x1)
    return cuts


def _column_cuts(boxes: list[Box], words: Words) -> list[float]:
    """Where the column of these boxes (one per row, first row first) splits."""
    per_row = [[w for w in words if _in_box(w, box)] for box in boxes]
    if sum(1 for row in per_row if row) < _MIN_ROWS or not per_row[0]:
        return []
    spans = [(float(w["x0"]), float(w["x1"])) for row in per_row for w in row]
    cuts = _strips(spans)
    bounds = [boxes[0][0], *cuts, boxes[0][2]]
    heads = [float(w["x0"]) for w in per_row[0]]
    if all(any(a <= x < b for x in heads) for a, b in pairwise(bounds)):
        return cuts
    return []


def split_unruled(grid: list[list[Box | None]], words: Words) -> list[list[Box | None]]:
    """The grid with each column of one width in every row split at its shared strips."""
    width = len(grid[0]) if grid else 0
    if not grid or any(len(row) != width for row in grid):
        return grid
    out: list[list[Box | None]] = [[] for _ in grid]
    for c in range(width):
        column = [row[c] for row in grid]
        kept = [b for b in column if b is not None and not _blank_sliver(b, words)]
        first = kept[0] if kept else None
        regular = first is not None and all(
            b is not None
            and (
                _blank_sliver(b, words) or (abs(b[0] - first[0]) <= 1 and abs(b[2] - first[2]) <= 1)
            )
            for b in column
        )
        cuts = _column_cuts(kept, words) if regular else []
        for r, box in enumerate(column):
            if box is None or not cuts:
                out[r].append(box)
                continue
            inner = [x for x in cuts if box[0] < x < box[2]]  # a sliver may be narrower
            xs = [box[0], *inner, box[2]]
            out[r].extend((a, box[1], b, box[3]) for a, b in pairwise(xs))
            out[r].extend([None] * (len(cuts) - len(inner)))
    return out


def _blank_sliver(box: Box, words: Words) -> bool:
    """A row thinner than a line of text with no words: the gap between the two
    rules of a double rule (`\\hline\\hline`, hhline's "=="), which may span
    the whole frame where the rows below are split into columns. It neither
    decides whether the column is one width in every row nor holds a head."""
    return box[3] - box[1] <= _SLIVER and not any(_in_box(w, box) for w in words)
