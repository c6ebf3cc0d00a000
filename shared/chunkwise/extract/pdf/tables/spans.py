"""Merged cells of a ruled PDF table: filled, and a header of several rows made one line.

pdfplumber gives a merged cell once, at its top-left grid position, and None
at the positions it covers. Office suites draw merged cells (Writer's and
Word's "merge cells", a DOCX `gridSpan`/`vMerge`) exactly so. The PDF then gets
what DOCX and HTML tables get (samdocs/extraction.md, DOCX details):

- a cell spanning rows is written in every row it covers (each row reads
  alone: "Pumpen" on every pump's row); a data cell spanning columns is
  written once, as HTML's colspan is (ruled TeX tables with coloured panels
  give grids of many narrow columns, where filling would repeat a word a
  dozen times);
- a header of several rows (a first row with a cell over several columns whose
  cells reach further down than the first row, "Preis pro Nutzer" over
  "Monat | Jahr", "Tarif" over both rows) becomes one header line, column by
  column ("Preis pro Nutzer / Monat").
"""

from __future__ import annotations

from typing import Any

from chunkwise.extract.tables import combine_header_rows

Box = tuple[float, float, float, float]
_SLACK = 1.0  # points
_LINE_SLACK = 2.0  # points: tops of one text line


def _column_starts(grid: list[list[Box | None]]) -> list[float | None]:
    width = max((len(row) for row in grid), default=0)
    starts: list[float | None] = []
    for c in range(width):
        xs = [box[0] for row in grid if c < len(row) for box in (row[c],) if box is not None]
        starts.append(min(xs) if xs else None)
    return starts


def _source(
    grid: list[list[Box | None]], r: int, c: int, starts: list[float | None], across: bool = True
) -> tuple[int, int] | None:
    """The grid position of the merged cell covering the empty position (r, c): the cell
    to its left if that reaches over the column's start, else the cell above if that
    reaches down over the row's top."""
    row = grid[r]
    left = next((k for k in range(c - 1, -1, -1) if row[k] is not None), None)
    column = starts[c] if c < len(starts) else None
    if left is not None and column is not None:
        box = row[left]
        if box is not None and box[2] > column + _SLACK:
            return (r, left) if across else None
    tops = [b[1] for b in row if b is not None]
    for k in range(r - 1, -1, -1):
        above = grid[k][c] if c < len(grid[k]) else None
        if above is not None:
            return (k, c) if not tops or above[3] > min(tops) + _SLACK else None
    return None


def fill_merged(
    grid: list[list[Box | None]], texts: list[list[str]], header: int = 1
) -> list[list[str]]:
    """Texts with the positions a merged cell covers holding its text: downwards in every
    row, across only in the `header` rows (which become one header line)."""
    out = [list(row) for row in texts]
    starts = _column_starts(grid)
    for r, row in enumerate(grid):
        for c, box in enumerate(row):
            if box is None and c < len(out[r]):
                source = _source(grid, r, c, starts, across=r < header)
                if source is not None:
                    out[r][c] = out[source[0]][source[1]]
    return out


def header_rows(grid: list[list[Box | None]]) -> int:
    """Rows of the header: the first row, and the rows its cells reach down over when one
    of its cells spans columns (a group header over sub-columns)."""
    if len(grid) < 3:
        return 1
    starts = _column_starts(grid)
    first = grid[0]
    if not any(b is None and _source(grid, 0, c, starts) for c, b in enumerate(first)):
        return 1
    bottom = max(b[3] for b in first if b is not None)
    count = 1
    for row in grid[1:]:
        tops = [b[1] for b in row if b is not None]
        if not tops or min(tops) >= bottom - _SLACK:
            break
        count += 1
    return count if count < len(grid) else 1


def merged_table(grid: list[list[Box | None]], texts: list[list[str]]) -> list[list[str]]:
    """The table's rows with merged cells filled and its header rows made one line."""
    n = header_rows(grid)
    filled = fill_merged(grid, texts, n if n > 1 else 0)
    if n == 1:
        return filled
    return [combine_header_rows(filled[:n]), *filled[n:]]


def _middle(word: dict[str, Any]) -> float:
    return (float(word["top"]) + float(word["bottom"])) / 2


def _row_span(row: list[Box | None], skip: int) -> tuple[float, float] | None:
    """The row's top and bottom by its cells other than column `skip`."""
    boxes = [b for k, b in enumerate(row) if b is not None and k != skip]
    # The lowest top and the highest bottom: another cell beside may span rows too.
    return (max(b[1] for b in boxes), min(b[3] for b in boxes)) if boxes else None


def _inside(word: dict[str, Any], box: Box) -> bool:
    return box[0] - 1 <= float(word["x0"]) < box[2] - 1 and box[1] <= _middle(word) < box[3]


def _line_tops(words: list[dict[str, Any]]) -> list[float]:
    tops: list[float] = []
    for w in sorted(words, key=lambda w: float(w["top"])):
        if not tops or float(w["top"]) - tops[-1] > _LINE_SLACK:
            tops.append(float(w["top"]))
    return tops


def _aligned_spans(
    grid: list[list[Box | None]], r: int, c: int, words: list[dict[str, Any]]
) -> list[tuple[int, float, float]] | None:
    """The rows (index, top, bottom) a cell spanning rows breaks into, one text line in
    each row whose label cell (first column) has text of its own; None if it is a
    merged cell (one label, a row label, or lines that do not keep to the rows)."""
    box = grid[r][c]
    if box is None or c == 0:  # a row label over several rows is a merged cell
        return None
    tops = _line_tops([w for w in words if _inside(w, box)])
    spans: list[tuple[int, float, float]] = []
    for k in range(r, len(grid)):
        span = _row_span(grid[k], c)
        if span is None or span[0] < box[1] - _SLACK or span[1] > box[3] + _SLACK:
            if k == r:
                return None
            break
        if k > r and grid[k][c] is not None:
            break
        label = grid[k][0]  # the row's own label cell says it is a row
        if label is not None and any(_inside(w, label) for w in words):
            spans.append((k, *span))
    if len(tops) < 2 or len(tops) != len(spans) or spans[0][0] != r:
        return None
    if any(not top_ <= t < bottom for t, (_k, top_, bottom) in zip(tops, spans, strict=True)):
        return None
    return spans


def split_aligned_spans(grid: list[list[Box | None]], words: list[dict[str, Any]]) -> None:
    """Cells that pdfplumber merged over rows only because no rule parts them (hhline's
    `~`: no rule under a column), split in place into one cell per row: the cell holds
    one line of text in each row that has text in its other columns, on that row's
    line. A merged cell (one label over several rows, or a paragraph) stays whole."""
    for r, row in enumerate(grid):
        for c, box in enumerate(row):
            if box is None or len(grid) - r < 2:
                continue
            spans = _aligned_spans(grid, r, c, words)
            for k, top, bottom in spans or []:
                grid[k][c] = (box[0], top, box[2], bottom)
