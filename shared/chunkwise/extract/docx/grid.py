"""DOCX tables on their layout grid: merged cells filled, header rows combined.

A cell spanning columns gives its text to each column it covers, a vertically
merged cell repeats the value above; every leading row marked to repeat as
header (w:tblHeader) goes into the one header line (`table_grid`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..tables import MAX_TABLE_COLUMNS, combine_header_rows
from .ooxml import int_property, is_on, one_line, w


@dataclass
class _GridRow:
    cells: list[str]  # one entry per grid column, merged cells filled
    repeats_as_header: bool  # w:trPr/w:tblHeader
    single_spanning_cell: bool  # one cell over several columns (a group label row)


def _row_cells(tr: Any) -> Iterator[Any]:
    """The w:tc of a row, also those wrapped in content controls or custom XML."""
    for child in tr.iterchildren():
        if child.tag == w("tc"):
            yield child
        elif child.tag in (w("sdt"), w("customXml")):
            content = child.find(w("sdtContent")) if child.tag == w("sdt") else child
            if content is not None:
                yield from _row_cells(content)


def _table_rows_xml(tbl: Any) -> Iterator[Any]:
    for child in tbl.iterchildren():
        if child.tag == w("tr"):
            yield child
        elif child.tag in (w("sdt"), w("customXml")):
            content = child.find(w("sdtContent")) if child.tag == w("sdt") else child
            if content is not None:
                yield from _table_rows_xml(content)


def _cell_text(tc: Any, parent: Any) -> str:
    """Every paragraph of the cell (nested tables included), one line."""
    from docx.text.paragraph import Paragraph

    parts: list[str] = []
    for p in tc.iter(w("p")):
        if any(a.tag == w("txbxContent") for a in p.iterancestors()):
            continue  # text boxes are stored twice (drawing and VML fallback)
        parts.append(Paragraph(p, parent).text)
    return one_line(" ".join(parts))


def _grid_rows(table: Any) -> list[_GridRow]:
    """The table on its layout grid, every merged cell filled with its value.

    A cell spanning columns (w:gridSpan) gives its text to each column it
    covers; a cell continuing a vertical merge (w:vMerge without "restart")
    takes the value of the cell above. So every row reads alone: "10 GB" is in
    both rows of a storage cell merged over two plans.
    """
    rows: list[_GridRow] = []
    above: list[str] = []
    for tr in _table_rows_xml(table._tbl):
        trpr = tr.find(w("trPr"))
        header = trpr is not None and any(is_on(e) for e in trpr.iterchildren(w("tblHeader")))
        cells = [""] * min(max(0, int_property(trpr, "gridBefore", 0)), MAX_TABLE_COLUMNS)
        tcs = list(_row_cells(tr))
        span = 1
        for tc in tcs:
            if len(cells) >= MAX_TABLE_COLUMNS:
                break
            tcpr = tc.find(w("tcPr"))
            span = max(1, min(int_property(tcpr, "gridSpan", 1), MAX_TABLE_COLUMNS))
            vmerge = tcpr.find(w("vMerge")) if tcpr is not None else None
            col = len(cells)
            if vmerge is not None and vmerge.get(w("val"), "continue") != "restart":
                cells += [above[c] if c < len(above) else "" for c in range(col, col + span)]
            else:
                cells += [_cell_text(tc, table)] * span
        cells = cells[:MAX_TABLE_COLUMNS]
        rows.append(_GridRow(cells, header, len(tcs) == 1 and span > 1))
        above = cells
    return rows


def table_grid(table: Any) -> tuple[list[str], list[list[str]], int] | None:
    """(header, data rows, number of source header rows), or None if empty.

    The header is every leading row marked to repeat as header (w:tblHeader),
    combined column by column into one header line; without such rows it is
    the first row. A row that is one cell across the whole width (a group
    label, or a title as the only header row) is written once, in its first
    column; above further header rows it names every column.
    """
    grid = [r for r in _grid_rows(table) if any(r.cells)]
    if not grid:
        return None
    width = max(len(r.cells) for r in grid)
    marked = 0
    while marked < len(grid) and grid[marked].repeats_as_header:
        marked += 1
    count = max(1, marked)
    lines: list[list[str]] = []
    for i, row in enumerate(grid):
        cells = row.cells + [""] * (width - len(row.cells))
        spans_all = row.single_spanning_cell and len(set(cells)) == 1 and width > 1
        if spans_all and (i >= count or count == 1):
            cells = [cells[0]] + [""] * (width - 1)
        lines.append(cells)
    return combine_header_rows(lines[:count]), lines[count:], count
