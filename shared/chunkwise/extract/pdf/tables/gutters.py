"""Columns from the gutters of text lines, rows from their cells, and what is no table.

The two line-based strategies (`aligned`: tables set by alignment alone or with
horizontal rules only; `banded`: tables whose rows are the bands between
rules) read a run of `Line`s the same way, with this module's public helpers:

- `gutter_columns`: the x ranges between the *gutters* of the lines: x ranges
  that no line's segments cover, while lines have text on both sides (a gutter
  narrower than a cell gap counts where it ends at a known column start);
- `column_of`, `crosses_gutter`, `line_cells`: which column(s) a segment falls
  in, whether a line crosses a gutter (prose, not a row), a line's cells;
- `table_rows`: lines to rows, a line that continues the row above (an empty
  row-label column, a cell ending in a hyphen or comma, wrapped p{} cells)
  joined into it (`join_cell_text`), a rule between two lines parting two rows
  (`rule_across`);
- `is_listing`, `has_ruled_text_head`, `is_list`, `is_contents`: code listings,
  column heads over a rule, lists and tables of contents, which are not tables;
- `AlignedTable`: a table found among the lines, with the lines it took.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from statistics import median

from ..blocks import join_lines
from ..items import TableFragment
from ..lines import CELL_GAP_EM, Line, Segment

# points: a segment (or glyph) starting this close to a column start starts there
START_SLACK = 0.75
# The coverage grid is whole points from floor(x0) to floor(x1): a gap between
# two segments shows up to two points narrower than it is.
_GRID_LOSS = 2.0
_LISTING_SHARE = 0.8  # of the segments in a typewriter font: code, not a table
_PAGE_NUMBER = re.compile(r"^[\divxlc]{1,5}$")
_CONTINUES = ("-", ",")
_WORD_SPACE = 0.3  # em: an interword space
# em: a word's width is estimated from its share of the segment's characters,
# which undercounts letters against the narrower spaces
_FIT_SLACK = 0.5
_LINE_NUMBER = re.compile(r"^\d{1,5}\s*%?$")
_LEADER = re.compile(r"(?:\. ?){4,}")
# A first column of bullets or item numbers is a list, not a table (TeX and
# reportlab set bullets as unmapped glyphs: "(cid:127)").
_LIST_MARK = re.compile(
    r"^(?:[\u2022\u25aa\u25cf\u25e6\u2023\u2043\u2219\u00b7*\u2013-]|\(?\d{1,3}[.)]|\(?[a-z][.)]|\(cid:\d+\))$"
)


@dataclass
class AlignedTable:
    """A table found among a page's lines (by `aligned` or `banded`), with the lines it
    took: they leave the page's text."""

    top: float
    bottom: float
    fragment: TableFragment
    lines: list[Line]
    caption: Line | None = None  # a caption set in the margin beside the table's head
    dropped: int = 0  # lines of the page the table took besides `lines` (the caption's)


def gutter_columns(
    rows: list[Line], starts: list[float] | None = None
) -> list[tuple[float, float]]:
    """(x0, x1) of each column: the x ranges between the gutters of `rows`. A gutter
    narrower than a cell gap counts where it ends at one of the column `starts`."""
    left = min(s.x0 for ln in rows for s in ln.segments)
    right = max(s.x1 for ln in rows for s in ln.segments)
    width = int(right - left) + 2
    cover = [0] * width
    for ln in rows:
        for s in ln.segments:
            for x in range(int(s.x0 - left), min(width, int(s.x1 - left) + 1)):
                cover[x] += 1
    em = median(ln.size for ln in rows) or 10.0
    limit = len(rows) // 8  # a spanning row may cross a gutter
    columns: list[tuple[float, float]] = []
    start: float | None = None
    gap_start: int | None = None
    for x, n in enumerate([*cover, 0]):
        if n > limit:
            if start is None:
                start = left + x
            elif gap_start is not None and (
                x - gap_start >= CELL_GAP_EM * em - _GRID_LOSS
                or (_narrow_gutter(cover[gap_start:x]) and _starts_at(left + x, starts))
            ):
                columns.append((start, left + gap_start))
                start = left + x
            gap_start = None
        elif gap_start is None:
            gap_start = x
    if start is not None:
        columns.append((start, right))
    return columns


def _narrow_gutter(cover: list[int]) -> bool:
    """A gutter narrower than a cell gap is free of every row (no spanning row)."""
    return not any(cover)


def _starts_at(x: float, starts: list[float] | None) -> bool:
    return any(abs(x - s) <= 2 * START_SLACK for s in starts or ())


def column_of(seg: Segment, columns: list[tuple[float, float]]) -> list[int]:
    """Columns a segment covers (more than one: a cell spanning columns)."""
    hit = [i for i, (x0, x1) in enumerate(columns) if seg.x0 < x1 and seg.x1 > x0]
    if hit:
        return hit
    centre = (seg.x0 + seg.x1) / 2
    return [min(range(len(columns)), key=lambda i: abs(centre - sum(columns[i]) / 2))]


def crosses_gutter(ln: Line, columns: list[tuple[float, float]]) -> bool:
    """A segment of the line covers two or more columns: prose (or a spanning cell)."""
    return any(len(column_of(s, columns)) > 1 for s in ln.segments)


def line_cells(ln: Line, columns: list[tuple[float, float]], spread: bool) -> list[str]:
    """The line's text per column; a segment spanning columns goes into each of them
    (`spread`: a header cell names every column it heads) or into its first."""
    cells = [""] * len(columns)
    for seg in ln.segments:
        cols = column_of(seg, columns)
        for c in cols if spread else cols[:1]:
            cells[c] = f"{cells[c]} {seg.text}".strip()
    return cells


def _continues(cells: list[str], prev: list[str] | None) -> bool:
    if prev is None:
        return False
    if not cells[0]:
        filled = sum(1 for c in cells if c)
        return filled == 1 or any(_broken_word(p) for p in prev)
    return _open_end(prev[0]) or any(
        _broken_word(p) and c for p, c in zip(prev[1:], cells[1:], strict=True)
    )


def _open_end(cell: str) -> bool:
    """A first cell that goes on in the next line ("Seiten-", "foo,"): the mark after
    a word. A cell that is only the mark (a glyph table's "," or "-" row), or a
    command ending in it (l2kurz's "\\," for a thin space), is data."""
    return cell.endswith(_CONTINUES) and len(cell) > 1 and cell[-2].isalnum()


def _broken_word(cell: str) -> bool:
    """A cell ending in a word hyphenated at the line end ("Tabellenein-"); a cell that
    is a dash ("-", "--", a table of dashes) or ends in a bare one is data."""
    return len(cell) > 1 and cell.endswith("-") and cell[-2].isalpha()


def join_cell_text(a: str, b: str) -> str:
    """A cell's text and its next line's, joined as a ruled cell's lines are
    (`blocks.join_lines`): a word hyphenated at the line end is whole, and a path wrapped
    at a slash or at its own hyphen ("/usr/lib/x86_64-linux-" + "gnu/") gets no space."""
    if not a:
        return b
    if not b:
        return a
    return join_lines([a, b], in_cell=True)


def table_rows(
    lines: list[Line],
    columns: list[tuple[float, float]],
    rules: list[tuple[float, float, float]] | None = None,
) -> list[list[str]]:
    """The lines as table rows: a line continues the row above when its row-label cell
    is empty, the cell above breaks off (hyphen, comma) or its cells wrap on; a rule
    between two lines (`rules`) always parts two rows."""
    rows: list[list[str]] = []
    for prev, ln in zip([None, *lines], lines, strict=False):
        cells = line_cells(ln, columns, spread=False)
        if prev is not None and rules and rule_across(prev, ln, ln.x0, ln.x1, rules):
            rows.append(cells)  # a rule between two lines parts two rows ("ResetAll")
        elif rows and (_continues(cells, rows[-1]) or _wraps_on(prev, ln, columns)):
            rows[-1] = [join_cell_text(a, b) for a, b in zip(rows[-1], cells, strict=True)]
        else:
            rows.append(cells)
    return rows


def _wraps_on(prev: Line | None, ln: Line, columns: list[tuple[float, float]]) -> bool:
    """`ln` holds the next lines of wrapped cells of `prev` (p{} columns of prose): its
    row-label column is empty, and in every column it fills, the cell above has
    several words and the first word of `ln` there would not have fitted after them
    (the line was broken because the column was full). A row of one-word cells
    under a row label ("family" / "series") is a row of its own."""
    if prev is None or not ln.segments:
        return False
    for seg in ln.segments:
        col = column_of(seg, columns)[0]
        above = [s for s in prev.segments if column_of(s, columns)[0] == col]
        if col == 0 or not above or len(above[-1].text.split()) < 2:
            return False
        first = seg.text.split()[0]
        width = (seg.x1 - seg.x0) * len(first) / max(len(seg.text), 1)
        room = columns[col][1] - above[-1].x1 - _WORD_SPACE * ln.size
        if width < room - _FIT_SLACK * ln.size:
            return False
    return True


def rule_across(
    above: Line, below: Line, left: float, right: float, rules: list[tuple[float, float, float]]
) -> bool:
    """A rule covering 80 % of [left, right] lies between the two lines."""
    return any(
        above.bottom - 1 <= y <= below.top + 1
        and min(x1, right) - max(x0, left) >= 0.8 * (right - left)
        for y, x0, x1 in rules
    )


def is_listing(lines: list[Line], rules: list[tuple[float, float, float]] | None = None) -> bool:
    """Code or program output: (nearly) every segment in a typewriter font, line numbers
    aside (documented TeX sources number their code lines). A table of commands has a
    column of descriptions in the text font, or column heads in it over a rule (a
    table of option names, commands and values: all typewriter below the heads)."""
    if has_ruled_text_head(lines, rules or []):
        return False
    numbered = sum(1 for ln in lines if _LINE_NUMBER.match(ln.segments[0].text))
    segments = [s for ln in lines for s in ln.segments if not _LINE_NUMBER.match(s.text)]
    mono = sum(1 for s in segments if s.mono)
    if 2 * numbered >= len(lines) and 2 * mono >= len(segments):
        return True  # numbered code lines between lines of their commentary
    return mono >= _LISTING_SHARE * len(segments)


def has_ruled_text_head(lines: list[Line], rules: list[tuple[float, float, float]]) -> bool:
    """The first line is column heads: two or more segments, none in a typewriter font,
    with a rule (whole or one piece per head) between it and the next line. Code has no
    such heads."""
    if len(lines) < 2 or len(lines[0].segments) < 2:
        return False
    head, below = lines[0], lines[1]
    if any(s.mono for s in head.segments):
        return False
    return any(head.bottom - 1 <= y <= below.top + 1 for y, _x0, _x1 in rules)


def is_list(rows: list[list[str]]) -> bool:
    """A first column of bullets or item numbers only: a list, not a table."""
    marks = [r[0] for r in rows if r[0]]
    return bool(marks) and all(_LIST_MARK.match(m) for m in marks)


def is_contents(rows: list[list[str]]) -> bool:
    """A table of contents (or of tables): dot leaders, or a last column of page numbers."""
    leaders = sum(1 for r in rows if any(_LEADER.search(c) for c in r))
    if 2 * leaders >= len(rows):
        return True
    last = [r[-1] for r in rows if r[-1]]
    return len(rows[0]) == 2 and bool(last) and all(_PAGE_NUMBER.match(c) for c in last)
