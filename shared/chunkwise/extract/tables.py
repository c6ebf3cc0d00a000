"""Tables of every format: GFM rendering, header rows and captions.

A table in the canonical text is one GFM block: a header line, a separator
line and one line per row, with no blank line inside. Its caption, if any, is
the paragraph directly before it, starting with "Table"/"Tabelle" or written
in bold, which is how the chunker recognises captions. The DOCX, HTML and PDF
readers all render their tables here; how PDF tables are found and stitched
across pages is in pdf/tables/.
"""

from __future__ import annotations

import re

from chunkwise.canonical import escape_cell, separator_row, table_row

from .model import TableInfo

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


def table_infos(text: str, headers: list[str]) -> list[TableInfo]:
    """TableInfo for each GFM table of a non-paged text, located by its header."""
    infos: list[TableInfo] = []
    pos = 0
    for i, header in enumerate(headers):
        start = text.find(header + "\n", pos)
        if start < 0:
            continue
        end = text.find("\n\n", start)
        end = len(text.rstrip("\n")) if end < 0 else end
        block = text[start:end].split("\n")
        infos.append(
            TableInfo(
                index=i,
                header=header,
                columns=max(1, header.count(" | ") + 1),
                rows=max(0, len(block) - 2),
                start=start,
                end=end,
            )
        )
        pos = end
    return infos
