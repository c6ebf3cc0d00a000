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

from .tables import combine_header_rows

Box = tuple[float, float, float, float]
_SLACK = 1.0  # points


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
