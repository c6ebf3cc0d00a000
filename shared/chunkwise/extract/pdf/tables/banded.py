"""Tables whose rows are the bands between horizontal rules, with no column rules.

DocBook (dblatex) sets tables with a rule under every row and no vertical
rules; LaTeX summary tables (longtable's, booktabs groups) put rules between
groups of rows. A cell of such a table wraps over several lines and its row
label sits vertically centred beside them, on a line of its own: read line by
line, the label and each line of its description are separate rows. Here the
rules decide the rows: the lines between two rules are one row when one of
them holds a row label (the label's column), and a row per line otherwise (a
group of one-line rows between two rules). Columns come from the gutters of
the lines, as for whitespace-aligned tables (`gutters`).

Not tables: stacks of fewer than three bands (booktabs' top, mid and bottom
rule alone: `aligned` reads those), listings, lists and contents.
"""

from __future__ import annotations

import itertools

from ..items import TableFragment
from ..lines import Line
from .frames import Rule
from .gutters import (
    AlignedTable,
    crosses_gutter,
    gutter_columns,
    is_contents,
    is_list,
    is_listing,
    join_cell_text,
    line_cells,
    table_rows,
)

_MIN_BANDS = 3  # bands of lines between rules: a header and two rows at least
_ROW_REACH = 60.0  # points: the farthest two rules of one table can be apart
_SAME_EDGE = 3.0  # points: the rules of one table start and end together


def _rule_rows(rules: list[Rule]) -> list[Rule]:
    """One (y, x0, x1) per height: a rule drawn cell by cell (DocBook) is one rule."""
    out: list[list[float]] = []
    for y, x0, x1 in sorted(rules):
        if out and y - out[-1][0] <= 1.0 and x0 <= out[-1][2] + 1.0:
            out[-1][2] = max(out[-1][2], x1)
            out[-1][1] = min(out[-1][1], x0)
        else:
            out.append([y, x0, x1])
    return [(r[0], r[1], r[2]) for r in out]


def _stacks(rules: list[Rule]) -> list[list[Rule]]:
    """Runs of rules with the same ends, each less than _ROW_REACH below the last."""
    stacks: list[list[Rule]] = []
    for rule in _rule_rows(rules):
        last = stacks[-1][-1] if stacks else None
        if (
            last is not None
            and rule[0] - last[0] <= _ROW_REACH
            and abs(rule[1] - last[1]) <= _SAME_EDGE
            and abs(rule[2] - last[2]) <= _SAME_EDGE
        ):
            stacks[-1].append(rule)
        else:
            stacks.append([rule])
    return [s for s in stacks if len(s) > _MIN_BANDS]


def _bands(lines: list[Line], stack: list[Rule]) -> list[list[Line]]:
    ys = [y for y, _x0, _x1 in stack]
    bands: list[list[Line]] = [[] for _ in ys[1:]]
    for ln in lines:
        middle = (ln.top + ln.bottom) / 2
        for k, (upper, lower) in enumerate(itertools.pairwise(ys)):
            if upper < middle < lower:
                bands[k].append(ln)
    return [b for b in bands if b]


def _band_rows(band: list[Line], columns: list[tuple[float, float]]) -> list[list[str]]:
    """One row when a single line of the band has a row label, else a row per line."""
    per_line = [line_cells(ln, columns, spread=False) for ln in band]
    if sum(1 for cells in per_line if cells[0]) > 1:
        return table_rows(band, columns)
    row = [""] * len(columns)
    for cells in per_line:
        row = [join_cell_text(a, b) for a, b in zip(row, cells, strict=True)]
    return [row]


def _banded_table(lines: list[Line], stack: list[Rule], page: int) -> AlignedTable | None:
    x0, x1 = stack[0][1], stack[0][2]
    inside = [ln for ln in lines if ln.x0 >= x0 - 2 and ln.x1 <= x1 + 2]
    bands = _bands(inside, stack)
    if len(bands) < _MIN_BANDS:
        return None
    kept = [ln for band in bands for ln in band]
    multi = [ln for ln in kept if len(ln.segments) >= 2]
    if len(multi) < 2 or is_listing(kept):
        return None
    columns = gutter_columns(multi)
    if len(columns) < 2 or any(crosses_gutter(ln, columns) for band in bands[1:] for ln in band):
        return None  # prose between two code boxes crosses the "gutter"
    header = _band_rows(bands[0], columns)
    body = [row for band in bands[1:] for row in _band_rows(band, columns)]
    if len(header) != 1 or is_contents(body) or is_list(body):
        return None
    frag = TableFragment(rows=[header[0], *body], page=page, header_rows=1)
    return AlignedTable(kept[0].top, kept[-1].bottom, frag, kept)


def find_banded_tables(
    lines: list[Line], page: int, rules: list[Rule]
) -> tuple[list[Line], list[AlignedTable]]:
    """Split a page's lines into the lines that stay and the tables ruled by row bands."""
    tables: list[AlignedTable] = []
    for stack in _stacks(rules):
        found = _banded_table(lines, stack, page)
        if found is not None:
            tables.append(found)
            taken = {id(ln) for ln in found.lines}
            lines = [ln for ln in lines if id(ln) not in taken]
    return lines, tables
