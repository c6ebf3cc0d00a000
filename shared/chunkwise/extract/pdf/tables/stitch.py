"""Tables across pages: a table's fragments on consecutive pages joined into one.

A table that ends a page and continues as the first block of the next page
(same column count and column boundaries) is stitched into ONE table with ONE
header row; a repeated header row is dropped, a first row of data is kept as
data. A "continued" note after a fragment and a repeated or "continued"
caption before the next one are no block between them. The stitched table is
rendered where its first fragment is (extract/tables.py: GFM, all formats).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from chunkwise.extract.model import ExtractionReport
from chunkwise.extract.tables import (
    header_line,
    is_continuation_caption,
    is_continuation_note,
    render_gfm,
)

from ..items import Item, PageContent, TableFragment

_WS = re.compile(r"\s+")


def _norm(cells: list[str]) -> list[str]:
    return [_WS.sub(" ", c or "").strip().casefold() for c in cells]


@dataclass
class StitchedTable:
    header: list[str]
    rows: list[list[str]]
    page_start: int
    page_end: int
    caption: str = ""
    fragments: int = 1
    repeated_headers_dropped: int = 0
    x_edges: list[float] = field(default_factory=list)

    @property
    def columns(self) -> int:
        return max([len(self.header)] + [len(r) for r in self.rows])

    def render(self) -> str:
        return render_gfm(self.header, self.rows)

    def header_line(self) -> str:
        return header_line(self.header, self.columns)


def start_table(fragment: TableFragment) -> StitchedTable:
    rows = [list(r) for r in fragment.rows]
    header = rows[0] if rows else [""]
    if fragment.header_rows == 0:
        header = [""] * fragment.columns  # no header row: the caption names the table
    return StitchedTable(
        header=header,
        rows=rows[1:],
        page_start=fragment.page,
        page_end=fragment.page,
        caption=fragment.caption,
        x_edges=list(fragment.x_edges),
    )


def columns_match(a: list[float], b: list[float], tolerance: float = 6.0) -> bool:
    """Same column boundaries (PDF points), when both are known."""
    if not a or not b:
        return True
    if len(a) != len(b):
        return False
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def can_continue(table: StitchedTable, fragment: TableFragment) -> bool:
    """Is `fragment` (first block of the next page) the continuation of `table`?

    Evidence, in order: same number of columns, same column boundaries (when the
    geometry is known), and either a repeated header or a first row of data.
    """
    if fragment.page != table.page_end + 1 or not fragment.rows:
        return False
    if fragment.columns != table.columns:
        return False
    return columns_match(table.x_edges, fragment.x_edges)


def append_fragment(table: StitchedTable, fragment: TableFragment) -> None:
    rows = [list(r) for r in fragment.rows]
    if fragment.header_rows == 0:
        rows = rows[1:]  # the empty stand-in of a table without a header row
    elif rows and _norm(rows[0]) == _norm(table.header):
        rows = rows[1:]
        table.repeated_headers_dropped += 1
    table.rows.extend(rows)
    table.page_end = fragment.page
    table.fragments += 1


def stitch_tables(pages: list[PageContent], report: ExtractionReport) -> dict[int, StitchedTable]:
    """Assemble table fragments; returns id(first fragment item) -> table.

    A table continues on the next page when it is the page's last block (a
    "continued" note after it aside) and the next page starts with a fragment
    of the same columns (a repeated or "continued" caption before it aside),
    whether or not the header row is repeated.
    """
    out: dict[int, StitchedTable] = {}
    open_table: StitchedTable | None = None
    for before, after in itertools.pairwise(pages):
        _reclaim_stranded_header(before, after)
    for page in pages:
        report.tables_found += sum(1 for it in page.items if it.kind == "table")
        if open_table is not None and not _continue_on(page, open_table):
            open_table = None
        if not page.items:
            continue  # the page held only the rest of the open table: it may go on
        last = _last_block(page.items)
        for i, it in enumerate(page.items):
            if it.kind == "table" and it.table is not None:
                table = start_table(it.table)
                out[id(it)] = table
                open_table = table if i == last else None
        if last < 0 or page.items[last].kind != "table":
            open_table = None
    report.tables_stitched = sum(1 for t in out.values() if t.fragments > 1)
    return out


def _last_block(items: list[Item]) -> int:
    """Index of the page's last block that is not a table's "continued" note."""
    i = len(items) - 1
    while i >= 0 and items[i].kind == "para" and is_continuation_note(items[i].text):
        i -= 1
    return i


def _continue_on(page: PageContent, table: StitchedTable) -> bool:
    """Append the page's first table to `table` if it continues it (and drop its caption)."""
    items = page.items
    skip = 0
    if items and items[0].kind == "para" and _continues_caption(items[0].text, table):
        skip = 1
    first = items[skip] if len(items) > skip else None
    if first is None or first.kind != "table" or first.table is None:
        return False
    if not can_continue(table, first.table):
        return False
    append_fragment(table, first.table)
    del items[: skip + 1]
    if not items:
        page.has_text = True  # the page held nothing but the rest of the table
    return True


def _continues_caption(text: str, table: StitchedTable) -> bool:
    same = bool(table.caption) and _WS.sub(" ", text).strip() == _WS.sub(" ", table.caption).strip()
    return same or is_continuation_caption(text)


def _reclaim_stranded_header(before: PageContent, after: PageContent) -> None:
    """A header row left alone at the foot of `before`, its rows on `after`, put back.

    A generator that breaks a table after its header row (ReportLab does unless told to
    repeat it) leaves one line at the page foot that no strategy takes for a table (one
    line is no table), so it ends the page's last paragraph, and the next page's table
    takes its first row of data for the header. That line is the header when it is the
    last line of the page's last block and its segments (runs of glyphs apart by more
    than a word space) are one per column of the table that opens the next page, inside
    its frame and, where the column boundaries are known, each in its own column. It
    leaves the paragraph and becomes the table's first row; the table's own first row is
    data again.
    """
    if before.number + 1 != after.number or not before.items or not after.items:
        return
    first = after.items[0]
    fragment = first.table
    if first.kind != "table" or fragment is None or fragment.header_rows != 1 or not fragment.rows:
        return
    last_i = _last_block(before.items)
    if last_i != len(before.items) - 1 or last_i < 0:
        return  # a "continued" note after it: the table went on, nothing was stranded
    last = before.items[last_i]
    if last.kind == "table" or not last.lines:
        return
    line = last.lines[-1]
    cells = [seg.text.strip() for seg in line.segments]
    if len(cells) != fragment.columns or fragment.columns < 2 or not all(cells):
        return
    if not _in_columns([(seg.x0, seg.x1) for seg in line.segments], fragment.x_edges):
        return
    if _norm(cells) == _norm(fragment.rows[0]):
        return  # the header is repeated on the next page: only a stray copy here
    if len(last.lines) == 1:
        del before.items[last_i]
    elif last.text.endswith(line.text):
        last.lines.pop()
        last.text = last.text[: -len(line.text)].rstrip()
    else:
        return  # the line's text is not where it can be cut out of the block: leave it
    fragment.rows.insert(0, cells)


def _in_columns(
    spans: list[tuple[float, float]], edges: list[float], tolerance: float = 6.0
) -> bool:
    """Each span inside the table's frame and, with every column boundary known, its own column."""
    if len(edges) < 2:
        return False  # no geometry: one line of words is no evidence of a header
    left, right = edges[0] - tolerance, edges[-1] + tolerance
    if not all(left <= x0 and x1 <= right for x0, x1 in spans):
        return False
    if len(edges) != len(spans) + 1:
        return True
    return all(
        edges[i] - tolerance <= x0 and x1 <= edges[i + 1] + tolerance
        for i, (x0, x1) in enumerate(spans)
    )
