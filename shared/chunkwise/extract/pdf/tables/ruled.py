"""Ruled tables on a pdfplumber page: rules, frames and shading -> table cells.

`find_ruled_tables` is the strategy: the strokes and filled boxes that bound a
table (`frames`: `outer_borders`, `table_settings`) go to pdfplumber's table
finder; its cells become rows of cell text (`table_cells`: each word in the
cell where it starts, wrapped lines, rows sharing one frame, shaded rows
without inner rules, columns the rules leave out (`subcolumns`), entries of one
cell (`entries`), merged cells (`spans`)); a framed title row is taken off
(`without_title`), row labels left of the rules join as a first column
(`with_row_labels`, `labels`), header cells spread over the columns they head,
and a header block in a frame of its own is joined to the body below it
(`join_header_blocks`). The words put into cells leave the page's text.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from chunkwise.extract.tables import combine_header_rows

from ..blocks import join_lines
from ..items import Item, TableFragment
from ..lines import WORD_GAP_EM
from ..rows import BAND
from .entries import entry_rows
from .frames import outer_borders, table_settings
from .labels import row_labels
from .spans import header_rows, merged_table, split_aligned_spans
from .stitch import columns_match
from .subcolumns import split_unruled

_CELL_INDENT = 8.0  # points: a cell's text starts this close to its column's left edge
_SLIVER = 8.0  # points: a table column this narrow with no text is a gap between panels
_CELL_PADDING = 14.0  # points: TeX's \tabcolsep on both sides of a cell's text
_WORD_SPACE = 0.3  # em: an interword space
MAX_HEADER_ROWS = 4  # a framed block of more rows above a table is a table itself
_HEADER_GAP = 12.0  # points between a header block and its body


@dataclass
class RuledTables:
    """A page's ruled tables, and the page without the words put into their cells."""

    tables: list[Item]
    text_page: Any  # the pdfplumber page the reader reads the text lines from


def find_ruled_tables(page: Any) -> RuledTables:
    """The ruled tables of a pdfplumber page that is ready for reading (hidden
    content left out, symbols and accents restored, rules drawn as images added)."""
    borders = outer_borders(page)
    found = page.find_tables(table_settings(borders) if borders else None)
    page_words = page.extract_words(x_tolerance_ratio=WORD_GAP_EM) if found else []
    items: list[Item] = []
    cells: list[list[Box]] = []
    for table in found:
        used: list[Box] = []
        item = _table_item(page, page_words, table, used)
        if item is not None:
            items.append(item)
            cells.append(used)
    text_page = _without_words(page, cells) if items else page
    return RuledTables(join_header_blocks(items), text_page)


def _table_item(page: Any, page_words: Words, table: Any, used: list[Box]) -> Item | None:
    """One table pdfplumber found, as an item (None: no table); its cells' words go to `used`."""
    extracted, grid = without_title(*table_cells(page_words, table, used), used)
    extracted, grid, edges = with_row_labels(page_words, extracted, grid, used, table)
    if extracted:
        extracted[0] = spread_header(extracted[0])
    rows = merged_table(grid, [[cell_text(c) for c in row] for row in extracted])
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows or max(sum(1 for c in r if c.strip()) for r in rows) < 2:
        # A one-column frame is a shaded code box or a note, not a table:
        # its text stays with the page's lines. Slivers of no text beside it
        # (a code box's fill inside its rules) add no column.
        return None
    _x0, top, _x1, bottom = (float(v) for v in table.bbox)
    top = max(top, min(b[1] for b in grid[0] if b is not None))  # below a title
    frag = TableFragment(rows=rows, page=int(page.page_number), x_edges=edges)
    return Item(kind="table", top=top, bottom=bottom, table=frag)


def _without_words(page: Any, cells: list[list[Box]]) -> Any:
    """The page without the characters of the words put into cells."""
    taken = by_band([box for used in cells for box in used])

    def keep(obj: dict[str, Any]) -> bool:
        # Only the words put into cells leave the prose: text inside a table's
        # box but in no cell (a line between two stacked frames) stays. A word
        # that runs on past the table's box leaves whole (debian-reference-de
        # p94: "...revision_architektur.deb" in its cell, "ektur.deb" in the prose).
        if obj.get("object_type") != "char":
            return True
        band = int((float(obj["top"]) + float(obj["bottom"])) / 2) // BAND
        return not inside(obj, taken.get(band, []))

    return page.filter(keep)


def inside(obj: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    cx = (float(obj["x0"]) + float(obj["x1"])) / 2
    cy = (float(obj["top"]) + float(obj["bottom"])) / 2
    return any(x0 - 1 <= cx <= x1 + 1 and t - 1 <= cy <= b + 1 for x0, t, x1, b in boxes)


def _x_edges(table: Any) -> list[float]:
    xs: set[float] = set()
    for cell in table.cells:
        xs.add(round(float(cell[0]), 0))
        xs.add(round(float(cell[2]), 0))
    return sorted(xs)


def table_cells(
    page_words: list[dict[str, Any]], table: Any, taken: list[tuple[float, float, float, float]]
) -> tuple[list[list[str | None]], list[list[Box | None]]]:
    """Cell texts, each word in the cell where it starts, and the cells' boxes.

    pdfplumber's own `extract` puts every character in the cell holding its
    centre: a word that overflows its column ("apt-get/apt-cache" in a narrow
    column) is cut, "apt-ge" left and "t/apt-cache" in the next cell. The
    boxes of the words used are added to `taken`: only they leave the prose.
    """
    x0, top, x1, bottom = (float(v) for v in table.bbox)
    words = [
        w
        for w in page_words
        if x0 - 1 <= float(w["x0"]) <= x1 + 1 and top - 1 <= float(w["top"]) <= bottom + 1
    ]
    grid = [[_box(b) if b is not None else None for b in row.cells] for row in table.rows]
    edges = _x_edges(table)
    if len(edges) - 1 > max((len(r) for r in grid), default=0) and _uncovered(words, grid):
        grid = _edge_grid(grid, edges)
    grid = split_unruled([_unshaded_row(row, edges, words) for row in grid], words)
    split_aligned_spans(grid, words)
    out: list[list[str | None]] = []
    boxes: list[list[Box | None]] = []
    for row in grid:
        cells: list[Words | None] = []
        for bbox in row:
            if bbox is None:
                cells.append(None)
                continue
            cx0, ctop, cx1, cbottom = bbox
            inside = [
                w
                for w in words
                if cx0 - 1 <= float(w["x0"]) < cx1 - 1
                and ctop <= (float(w["top"]) + float(w["bottom"])) / 2 < cbottom
            ]
            taken.extend(_box((w["x0"], w["top"], w["x1"], w["bottom"])) for w in inside)
            cells.append(inside)
        for part in _aligned_rows(cells, row):
            out.append([_words_to_lines(c) if c is not None else None for c in part])
            boxes.append(list(row))  # the rows a frame holds share its cells' boxes
    return out, boxes


Words = list[dict[str, Any]]


def without_title(
    texts: list[list[str | None]], grid: list[list[Box | None]], used: list[Box]
) -> tuple[list[list[str | None]], list[list[Box | None]]]:
    """The table without a title bar over its column heads ("A long table example":
    it stays text, the paragraph above the table that names it; its words leave
    `used`) and without columns that hold no text in any row (the slivers between
    colortbl's coloured panels: they made a header reach down over the whole body)."""
    titles = _title_rows(grid, texts)
    for r in titles:
        title = next(b for b in grid[r] if b is not None)
        used[:] = [w for w in used if not _inside_box(w, title)]
    texts = [row for r, row in enumerate(texts) if r not in titles]
    grid = [row for r, row in enumerate(grid) if r not in titles]
    width = max((len(row) for row in grid), default=0)
    keep = [c for c in range(width) if not _sliver(grid, texts, c)]
    if len(keep) == width or len(grid) <= MAX_HEADER_ROWS:
        # A frame of a few rows may be the header block of the table below it,
        # joined to it column by column (`join_header_blocks`): it keeps its grid.
        return texts, grid
    return (
        [[row[c] for c in keep if c < len(row)] for row in texts],
        [[row[c] for c in keep if c < len(row)] for row in grid],
    )


def _sliver(grid: list[list[Box | None]], texts: list[list[str | None]], c: int) -> bool:
    """Column c is a gap between panels: its own cells are all narrower than _SLIVER
    and empty (positions a spanning cell covers are None and say nothing)."""
    own = [row[c] for row in grid if c < len(row) and row[c] is not None]
    empty = all(not (row[c] or "").strip() for row in texts if c < len(row))
    return bool(own) and empty and all(b[2] - b[0] < _SLIVER for b in own if b is not None)


def _title_rows(grid: list[list[Box | None]], texts: list[list[str | None]]) -> list[int]:
    """The title bars of the table: the first row if it is one cell across the whole
    table, with text, above a row of two or more column heads, and no row below it
    but the last is one such cell (array's "Unchanged options" ... "New options" name
    groups of rows; a last "Continued..." or "The End" is a footer) unless that row
    is followed by the same column heads again: tables of the same columns stacked in
    one frame, each under its own title (mdwtab's "Column types" over "Other modifier
    characters"), whose titles all leave the table."""
    if len(grid) < 3 or len(grid[0]) < 2 or not _across(grid, 0):
        return []
    boxes = [b for b in grid[0] if b is not None]
    if not (texts[0][grid[0].index(boxes[0])] or "").strip():
        return []
    if sum(1 for cell in texts[1] if cell and cell.strip()) < 2:
        return []
    inner = [r for r in range(1, len(grid) - 1) if _across(grid, r)]
    if any(texts[r + 1] != texts[1] for r in inner):
        return []
    return [0, *inner]


def _across(grid: list[list[Box | None]], r: int) -> bool:
    """Row r is one cell across the whole table."""
    boxes = [b for b in grid[r] if b is not None]
    if len(boxes) != 1:
        return False
    left = min(b[0] for row in grid for b in row if b is not None)
    right = max(b[2] for row in grid for b in row if b is not None)
    return boxes[0][0] <= left + 1 and boxes[0][2] >= right - 1


def _inside_box(word: Box, box: Box) -> bool:
    centre_x, centre_y = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
    return box[0] <= centre_x <= box[2] and box[1] <= centre_y <= box[3]


def _word_lines(words: Words) -> list[Words]:
    lines: list[Words] = []
    for w in sorted(words, key=lambda w: (float(w["top"]), float(w["x0"]))):
        if lines and abs(float(lines[-1][0]["top"]) - float(w["top"])) <= 2:
            lines[-1].append(w)
        else:
            lines.append([w])
    return lines


def _wrapped(lines: list[Words], box: Box) -> bool:
    """A cell's text wraps: a line of several words after which the first word of the
    next line would not have fitted (the cell, less its padding, was full), or a
    line ending in a hyphen. Short one-line entries ("Left adjusted column." over
    "Centered adjusted column.") leave room; one-word entries ("p{width}" over
    "@{decl.}") are entries of their own however narrow the column."""
    width = box[2] - box[0] - _CELL_PADDING
    for line, following in itertools.pairwise(lines):
        if str(line[-1]["text"]).endswith("-"):
            return True
        used = max(float(w["x1"]) for w in line) - min(float(w["x0"]) for w in line)
        first = min(following, key=lambda w: float(w["x0"]))
        needed = float(first["x1"]) - float(first["x0"]) + _WORD_SPACE * _font_size(first)
        if len(line) >= 2 and used + needed >= width and not _entry_ends(line, following):
            return True
    return False


_ENTRY_END = re.compile(r"[.!?:;*)]$")


def _entry_ends(line: Words, following: Words) -> bool:
    """The line ends a sentence and the next starts a new one with a capital: entries of
    their own ("...or equation (array)." over "Centred text..."), which a column as wide
    as its widest entry makes look as full as a wrapped line."""
    first = str(min(following, key=lambda w: float(w["x0"]))["text"])
    return bool(_ENTRY_END.search(str(line[-1]["text"]))) and first[:1].isupper()


def _font_size(word: dict[str, Any]) -> float:
    return float(word.get("bottom", 0.0)) - float(word.get("top", 0.0)) or 10.0


def _aligned_rows(cells: list[Words | None], boxes: list[Box | None]) -> list[list[Words | None]]:
    """A ruled row that holds several rows of the table: rules drawn only around a
    group of rows (array's "Unchanged options": five options in one frame). Each
    line is a row when every filled cell has the same number of lines, on the same
    baselines, and none of them wraps; a cell of several lines beside a one-line
    label, or a wrapped paragraph, keeps the row whole."""
    split = [(i, _word_lines(c)) for i, c in enumerate(cells) if c]
    counts = {len(lines) for _i, lines in split}
    if len(split) < 2 or counts == {1}:
        return [cells]
    if len(counts) != 1:  # descriptions of different lengths: rows apart by their spacing
        return entry_rows(cells) or [cells]
    for i, lines in split:
        box = boxes[i]
        if box is None or _wrapped(lines, box):
            return [cells]
    for k in range(counts.pop()):
        tops = [float(lines[k][0]["top"]) for _i, lines in split]
        if max(tops) - min(tops) > 2:
            return [cells]
    rows: list[list[Words | None]] = []
    for k in range(len(split[0][1])):
        row: list[Words | None] = [[] if c is not None else None for c in cells]
        for i, lines in split:
            row[i] = lines[k]
        rows.append(row)
    return rows


Box = tuple[float, float, float, float]


def _uncovered(words: list[dict[str, Any]], grid: list[list[Box | None]]) -> bool:
    """Words of the table's box in none of its cells (a column whose panel is missing)."""
    boxes = [b for row in grid for b in row if b is not None]
    return any(not inside(w, boxes) for w in words)


def _unshaded_row(row: list[Box | None], edges: list[float], words: Words) -> list[Box | None]:
    """A row that came out as one cell across the table although its text sits in the
    columns: tables shaded every other row (xcolor's \rowcolors) have column edges only
    in the shaded rows, and pdfplumber merges each white row into one cell. The row is
    cut at the column edges when every column holds words and no word runs over an
    edge; with two columns, the first column's first word must also start at its left
    edge (a row label: a centred title over the table may leave a gap at the edge)."""
    boxes = [b for b in row if b is not None]
    if len(boxes) != 1 or len(edges) < 3 or len(row) != len(edges) - 1:
        return row
    x0, top, x1, bottom = boxes[0]
    if x0 > edges[0] + 1 or x1 < edges[-1] - 1:
        return row
    inside = [w for w in words if top <= (float(w["top"]) + float(w["bottom"])) / 2 < bottom]
    if any(float(w["x0"]) < e < float(w["x1"]) for w in inside for e in edges[1:-1]):
        return row
    for k, (a, b) in enumerate(pairwise(edges)):
        starts = [float(w["x0"]) for w in inside if a - 1 <= float(w["x0"]) < b - 1]
        if not starts or (k == 0 and len(edges) == 3 and min(starts) - a > _CELL_INDENT):
            return row
    return [(a, top, b, bottom) for a, b in pairwise(edges)]


def _edge_grid(grid: list[list[Box | None]], edges: list[float]) -> list[list[Box | None]]:
    """Rows cut at every column boundary of the table (colortbl draws a column's frame
    only where its panel is coloured: pdfplumber then sees two columns on one page and
    three on the next)."""
    out: list[list[Box | None]] = []
    for row in grid:
        present = [b for b in row if b is not None]
        if not present:
            out.append(list(row))
            continue
        top = min(b[1] for b in present)
        bottom = max(b[3] for b in present)
        out.append([(a, top, b, bottom) for a, b in pairwise(edges)])
    return out


def _words_to_lines(words: Words) -> str:
    ordered = (sorted(line, key=lambda w: float(w["x0"])) for line in _word_lines(words))
    return "\n".join(" ".join(str(w["text"]) for w in line) for line in ordered)


def spread_header(row: list[str | None]) -> list[str | None]:
    """A header cell spanning columns names each column it covers (pdfplumber gives
    the covered cells as None): tabularx's "Multicolumn entry!" over the row labels
    and the first data column. A header that is one cell across the table (a title)
    stays in the first column."""
    if sum(1 for c in row if c is not None) < 2:
        return row
    out: list[str | None] = []
    for cell in row:
        out.append(cell if cell is not None or not out else out[-1])
    return out


def cell_text(cell: str | None) -> str:
    """A cell's lines joined like a paragraph's: a word hyphenated at the line end is whole."""
    if not cell:
        return ""
    return join_lines((part.strip() for part in cell.split("\n") if part.strip()), in_cell=True)


def by_band(
    boxes: list[tuple[float, float, float, float]],
) -> dict[int, list[tuple[float, float, float, float]]]:
    """Boxes by horizontal band of BAND points: a character is tested only against its band's."""
    bands: dict[int, list[tuple[float, float, float, float]]] = {}
    for box in boxes:
        for band in range(int(box[1] - 1) // BAND, int(box[3] + 1) // BAND + 1):
            bands.setdefault(band, []).append(box)
    return bands


def _box(bbox: Any) -> tuple[float, float, float, float]:
    x0, top, x1, bottom = (float(v) for v in bbox)
    return x0, top, x1, bottom


def with_row_labels(
    page_words: Words,
    texts: list[list[str | None]],
    grid: list[list[Box | None]],
    used: list[Box],
    table: Any,
) -> tuple[list[list[str | None]], list[list[Box | None]], list[float]]:
    """The table with the row labels set beside its frame as its first column
    (`labels`; their words leave `used`), and its column edges."""
    edges = _x_edges(table)
    labelled = row_labels(page_words, grid, header_rows(grid)) if texts else None
    if labelled is None or len(labelled[0]) != len(texts):
        return texts, grid, edges
    words, boxes = labelled
    used.extend(_box((w["x0"], w["top"], w["x1"], w["bottom"])) for part in words for w in part)
    texts = [
        [_words_to_lines(part) if box is not None else None, *row]
        for part, box, row in zip(words, boxes, texts, strict=True)
    ]
    grid = [[box, *row] for box, row in zip(boxes, grid, strict=True)]
    left = next(b[0] for b in boxes if b is not None)
    return texts, grid, [left, *edges] if edges else edges


def join_header_blocks(items: list[Item]) -> list[Item]:
    """A table whose header rows are a frame of their own directly above its body is one table.

    colortbl's and longtable's examples set the header rows in their own
    coloured or ruled block: found alone, the body's first data row would
    become the header and the real header a table without data.
    """
    out: list[Item] = []
    for item in sorted(items, key=lambda it: it.top):
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.table is not None
            and item.table is not None
            and len(prev.table.rows) <= MAX_HEADER_ROWS
            and prev.table.columns == item.table.columns
            and -1 <= item.top - prev.bottom <= _HEADER_GAP
            # Same column boundaries, or frames that touch (a coloured header
            # wider than its body).
            and (
                columns_match(prev.table.x_edges, item.table.x_edges) or item.top - prev.bottom <= 1
            )
        ):
            prev.table = header_block_joined(prev.table, item.table)
            prev.bottom = item.bottom
            continue
        out.append(item)
    return out


def header_block_joined(header: TableFragment, body: TableFragment) -> TableFragment:
    """A block of header rows drawn as its own frame, joined to the body below it.

    The header rows become the one header line as DOCX/HTML header rows do
    (`combine_header_rows`: "die ersten beiden Spalten / p-type"); the body's
    rows are data.
    """
    width = max(header.columns, body.columns)
    rows = [row + [""] * (width - len(row)) for row in header.rows]
    return TableFragment(
        rows=[combine_header_rows(rows), *body.rows],
        page=body.page,
        x_edges=list(body.x_edges),
        caption=header.caption or body.caption,
    )
