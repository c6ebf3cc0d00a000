"""Tables: GFM rendering, captions and multi-page stitching.

A table in the canonical text is one GFM block: a header line, a separator
line and one line per row, with no blank line inside. Its caption, if any, is
the paragraph directly before it, starting with "Table"/"Tabelle" or written
in bold, which is how the chunker recognises captions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chunkwise.canonical import escape_cell, separator_row, table_row

_WS = re.compile(r"\s+")
# Whitespace runs the canonical text collapses to one space. No-break spaces
# (U+00A0, U+2007, U+202F: "10 000 €", "12 kg") are characters of the text and
# stay; only indexing copies may normalise them.
LAYOUT_SPACE = re.compile(r"[^\S\u00a0\u2007\u202f]+")
_CAPTION_WORD = re.compile(r"^(?:Table|Tabelle|Tab\.)\s", re.IGNORECASE)
_CONTINUED = re.compile(
    r"\((?:continued|cont\.|fortgesetzt|Fortsetzung|Forts\.)\)|\b(?:continued|Fortsetzung)\b",
    re.IGNORECASE,
)

_NOTE = re.compile(
    r"^(?:\(?(?:continued|fortsetzung|forsetzung)\b.{0,30}|"
    r"(?:continued|fortgesetzt) (?:on|auf) (?:the )?(?:next|nächster) (?:page|seite)\W*)$",
    re.IGNORECASE,
)


def clean_cell(value: str | None) -> str:
    """One line per cell: whitespace collapsed, pipes escaped."""
    if value is None:
        return ""
    return escape_cell(LAYOUT_SPACE.sub(" ", value).strip())


def render_gfm(header: list[str], rows: list[list[str]]) -> str:
    """Render a table; every row is padded/truncated to the header's width."""
    width = max([len(header)] + [len(r) for r in rows]) or 1
    head = [clean_cell(c) for c in header] + [""] * (width - len(header))
    lines = [table_row(head), separator_row(width)]
    for row in rows:
        cells = [clean_cell(c) for c in row] + [""] * (width - len(row))
        lines.append(table_row(cells))
    return "\n".join(lines)


HEADER_ROW_JOINER = " / "
# Columns a table row is read up to (Word's own maximum is 63). Spans multiply
# cells; the cap keeps a hostile colspan/gridSpan/gridBefore from turning a
# small file into huge rows. Cells beyond it are dropped.
MAX_TABLE_COLUMNS = 128


def combine_header_rows(rows: list[list[str]]) -> list[str]:
    """One header line from several header rows, column by column.

    GFM (and so the chunker, which repeats one header line on every table
    fragment) has a single header row. A column's name becomes its header cells
    from top to bottom joined with " / " ("Preis pro Nutzer / Monat"); a cell
    merged over several header rows or columns is repeated in each of them, so
    equal neighbours in one column are written once ("Tarif", not
    "Tarif / Tarif").
    """
    width = max((len(r) for r in rows), default=0)
    header: list[str] = []
    for col in range(width):
        parts: list[str] = []
        for row in rows:
            value = LAYOUT_SPACE.sub(" ", row[col] if col < len(row) else "").strip()
            if value and (not parts or parts[-1] != value):
                parts.append(value)
        header.append(HEADER_ROW_JOINER.join(parts))
    return header


def header_line(header: list[str], width: int | None = None) -> str:
    width = width or len(header)
    return table_row([clean_cell(c) for c in header] + [""] * (width - len(header)))


def is_caption(text: str) -> bool:
    return bool(_CAPTION_WORD.match(text.strip()))


def caption_breaks_off(text: str) -> bool:
    """A caption line that goes on in the next line: a trailing comma or hyphen, or a
    parenthesis still open ("Tabelle 20: Pfeile (Vertikale Pfeile ... behandelt,")."""
    text = text.rstrip()
    return is_caption(text) and (text.endswith((",", "-")) or text.count("(") > text.count(")"))


def is_continuation_caption(text: str) -> bool:
    return is_caption(text) and bool(_CONTINUED.search(text))


def is_continuation_note(text: str) -> bool:
    """ "Fortsetzung nächste Seite", "Continued...": a table's note that it goes on overleaf."""
    return bool(_NOTE.match(text.strip()))


def caption_paragraph(text: str) -> str:
    """A caption the chunker recognises: "Table ..." as is, anything else in bold."""
    text = LAYOUT_SPACE.sub(" ", text).strip()
    if not text:
        return ""
    if is_caption(text) or (text.startswith("**") and text.endswith("**")):
        return text
    return f"**{text.replace('*', '')}**"


def _norm(cells: list[str]) -> list[str]:
    return [_WS.sub(" ", c or "").strip().casefold() for c in cells]


@dataclass
class TableFragment:
    """A table as found on one page (first row = header candidate)."""

    rows: list[list[str]]
    page: int
    x_edges: list[float] = field(default_factory=list)  # column boundaries, if known
    caption: str = ""
    header_rows: int = 1  # 0: no header row (rows[0] is an empty stand-in)

    @property
    def columns(self) -> int:
        return max((len(r) for r in self.rows), default=0)


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
