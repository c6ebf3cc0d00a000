"""One sheet's visible cells -> a ``# <sheet name>`` section of tables (pure).

Shared by the XLSX and XLS readers, which hand over the visible, formatted
cells (hidden rows and columns already left out, merged cells already filled)
as a `SheetCells`. Here:

- runs of empty rows and of empty columns collapse to one (a stray cell far
  down costs nothing), then the sheet is cut into blocks: at empty rows into
  bands, each band at empty columns into blocks, so two tables side by side or
  one under the other are separate tables;
- a block under a table with the same columns whose first row is data (not a
  header by extract/grids.py's rule) continues that table: an empty row
  inside a long list does not cut it in two;
- a block one column wide is prose (each cell a paragraph: notes, titles);
  every other block is a table with its header rows, title caption and
  generated column names as grids.py decides.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

from chunkwise.canonical import escape_paragraph, page_number

from .context import ReadContext
from .errors import EmptyDocument
from .grids import Grid, continues_table, table_shape, trailing_note_rows
from .model import TableInfo
from .tables import LAYOUT_SPACE, header_line, render_gfm


@dataclass
class SheetCells:
    """A sheet's visible cells: (row, column) -> (text, holds a number)."""

    name: str
    cells: dict[tuple[int, int], tuple[str, bool]] = field(default_factory=dict)
    #: hidden rows and columns: left out without leaving a gap (they are not empty rows)
    hidden_rows: set[int] = field(default_factory=set)
    hidden_columns: set[int] = field(default_factory=set)

    def put(self, row: int, col: int, text: str, numeric: bool) -> None:
        if text.strip():
            self.cells[(row, col)] = (text, numeric)


_MAX_DEPTH = 4


@dataclass
class _Block:
    rows: list[list[str]]
    numeric: list[list[bool]]
    first_col: int
    last_col: int


@dataclass
class SheetText:
    """The section's text and its tables (offsets relative to the section)."""

    text: str
    tables: list[TableInfo]
    rows: int
    columns: int
    notes: list[str] = field(default_factory=list)


def _dense(sheet: SheetCells) -> tuple[list[list[str]], list[list[bool]]]:
    """A grid with runs of empty rows and columns collapsed to one."""
    rows = sorted({r for r, _ in sheet.cells})
    cols = sorted({c for _, c in sheet.cells})
    row_at = _collapsed(rows, sheet.hidden_rows)
    col_at = _collapsed(cols, sheet.hidden_columns)
    height = max(row_at.values(), default=-1) + 1
    width = max(col_at.values(), default=-1) + 1
    texts = [[""] * width for _ in range(height)]
    numeric = [[False] * width for _ in range(height)]
    for (r, c), (text, number) in sheet.cells.items():
        texts[row_at[r]][col_at[c]] = text
        numeric[row_at[r]][col_at[c]] = number
    return texts, numeric


def _collapsed(indexes: list[int], hidden: set[int]) -> dict[int, int]:
    """Used indexes to dense positions, a gap of any size becoming one empty position;
    a gap of hidden indexes only is no gap."""
    out: dict[int, int] = {}
    pos = -1
    previous = None
    ordered = sorted(hidden)
    for i in indexes:
        gap = 0 if previous is None else i - previous - 1
        if gap:
            gap -= bisect_left(ordered, i) - bisect_right(ordered, previous or 0)
        pos += 1 if previous is None or gap <= 0 else 2
        out[i] = pos
        previous = i
    return out


def _runs(flags: list[bool]) -> list[tuple[int, int]]:
    """[start, end) runs of True."""
    out, start = [], None
    for i, flag in enumerate([*flags, False]):
        if flag and start is None:
            start = i
        elif not flag and start is not None:
            out.append((start, i))
            start = None
    return out


def _blocks(
    texts: list[list[str]], numeric: list[list[bool]], left: int = 0, depth: int = 0
) -> list[_Block]:
    """Cut at empty rows into bands, each band at empty columns into blocks, and each
    block again (a shorter table beside a longer one leaves empty rows in its columns)."""
    out = []
    for top, bottom in _runs([any(c.strip() for c in row) for row in texts]):
        band, flags = texts[top:bottom], numeric[top:bottom]
        used = [any(row[c].strip() for row in band) for c in range(len(band[0]))]
        for start, end in _runs(used):
            rows = [row[start:end] for row in band]
            marks = [row[start:end] for row in flags]
            inner = [any(c.strip() for c in row) for row in rows]
            if not all(inner) and depth < _MAX_DEPTH:
                out.extend(_blocks(rows, marks, left + start, depth + 1))
            else:
                out.append(_Block(rows, marks, left + start, left + end))
    return out


def _continues(previous: _Block, block: _Block) -> bool:
    if (previous.first_col, previous.last_col) != (block.first_col, block.last_col):
        return False
    if previous.last_col - previous.first_col < 2:  # one column is prose
        return False
    return continues_table(Grid(previous.rows, previous.numeric), block.rows[0], block.numeric[0])


def _merged_blocks(blocks: list[_Block]) -> list[_Block]:
    out: list[_Block] = []
    for block in blocks:
        if out and _continues(out[-1], block):
            out[-1].rows.extend(block.rows)
            out[-1].numeric.extend(block.numeric)
        else:
            out.append(block)
    return out


def sheet_title(name: str) -> str:
    """A sheet's heading text; a name that reads as a page anchor ("Seite 2") gets
    "(sheet)", so the chunker does not take it for a PDF page."""
    title = LAYOUT_SPACE.sub(" ", name).strip() or "Sheet"
    return f"{title} (sheet)" if page_number(title) is not None else title


def sheet_section(sheet: SheetCells) -> SheetText:
    """``# name`` and the sheet's blocks, with TableInfo offsets into this text."""
    texts, numeric = _dense(sheet)
    parts = [f"# {sheet_title(sheet.name)}"]
    offset = len(parts[0]) + 2
    tables: list[TableInfo] = []
    notes: list[str] = []
    for block in _merged_blocks(_blocks(texts, numeric)):
        width = len(block.rows[0])
        if width == 1:
            block_text = "\n\n".join(
                escape_paragraph(LAYOUT_SPACE.sub(" ", row[0]).strip()) for row in block.rows
            )
        else:
            grid = Grid(block.rows, block.numeric)
            shape = table_shape(grid, width)
            notes.extend(f"sheet {sheet.name!r}, table {len(tables) + 1}: {n}" for n in shape.notes)
            end = len(block.rows) - trailing_note_rows(grid, shape.first_data_row, width)
            body = render_gfm(shape.header, block.rows[shape.first_data_row : end])
            # Notes typed under the table: paragraphs after it, not rows of it.
            after = "".join(
                "\n\n" + escape_paragraph(LAYOUT_SPACE.sub(" ", " ".join(row)).strip())
                for row in block.rows[end:]
            )
            caption = shape.caption + "\n\n" if shape.caption else ""
            tables.append(
                TableInfo(
                    index=len(tables),
                    header=header_line(shape.header, width),
                    header_rows=shape.header_rows,
                    columns=width,
                    rows=end - shape.first_data_row,
                    caption=shape.caption,
                    sheet=sheet.name,
                    start=offset + len(caption),
                    end=offset + len(caption) + len(body),
                )
            )
            block_text = caption + body + after
        parts.append(block_text)
        offset += len(block_text) + 2
    rows = len({r for r, _ in sheet.cells})
    columns = len({c for _, c in sheet.cells})
    return SheetText("\n\n".join(parts), tables, rows, columns, notes)


def assemble(sections: list[SheetText], ctx: ReadContext) -> str:
    """The sections joined; their tables' offsets made absolute in the report."""
    if not any(s.tables or s.rows for s in sections):
        raise EmptyDocument("no visible sheet holds a cell with a value")
    offset = 0
    texts = []
    for section in sections:
        for table in section.tables:
            ctx.report.tables.append(
                table.model_copy(
                    update={
                        "index": len(ctx.report.tables),
                        "start": table.start + offset,
                        "end": table.end + offset,
                    }
                )
            )
        ctx.report.warnings.extend(section.notes)
        texts.append(section.text)
        offset += len(section.text) + 2
    ctx.report.tables_found = len(ctx.report.tables)
    return "\n\n".join(texts) + "\n"
