"""Table rows of a chunk as self-describing lines, for row-level BM25 (pure).

A question about a table cell names a row (``Starter``, ``Ridge Trail Shoe``)
and a column (``Jahrespreis``, ``list price``). Scored as one bag of words, a
table chunk matches the column through its header and the row through one
cell among dozens of numbers, so a short prose paragraph that merely talks
about the columns ("the annual price per user ...") can outrank it. Indexing
every row once more, on its own and with its column names
(``Tarif: Starter; Monatspreis: 6 €; Jahrespreis: 60 €; ...``), lets the search
ask "is there one row that matches the question?" (an index-only ``rows``
nested field, scored by its best row, added to the BM25 of architecture.md, "Search").

Rows are read from the chunk itself: markdown table rows under a header that
is either in the body (``| a | b |`` followed by a ``|---|`` line) or the
chunk's repeated ``table_header`` (a continuation fragment), and linearised
rows (``Name: X | Price: 5``) as they are. Pipe lines with no known header
(e.g. a baseline chunk that starts mid-table) are not turned into rows: their
cells could not be named.
"""

from __future__ import annotations

from chunkwise.canonical import CELL_SPLIT, LINEAR_ROW, is_separator, unescape_cell

ROW_CELL_SEPARATOR = "; "


def split_cells(line: str) -> list[str]:
    """Cells of one markdown table line (outer pipes optional, cells stripped).

    GFM lets a cell hold a literal pipe escaped as ``\\|``: it does not split.
    """
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return [unescape_cell(c.strip()) for c in CELL_SPLIT.split(s)]


def header_cells(table_header: str) -> list[str] | None:
    """Column names from a chunk's ``table_header`` (header row + separator), if any."""
    lines = [ln for ln in table_header.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):
        if (
            "|" in ln
            and not is_separator(ln)
            and i + 1 < len(lines)
            and is_separator(lines[i + 1])
        ):
            return split_cells(ln)
    return None


def name_cells(header: list[str], cells: list[str]) -> str:
    """``header: cell`` pairs of one row; empty cells are left out, extra cells kept."""
    parts = []
    for i, cell in enumerate(cells):
        if not cell:
            continue
        name = header[i] if i < len(header) else ""
        parts.append(f"{name}: {cell}" if name else cell)
    return ROW_CELL_SEPARATOR.join(parts)


def table_rows(body: str, table_header: str = "") -> list[str]:
    """Every table row of ``body`` as one line naming its cells by their column."""
    header = header_cells(table_header) if table_header else None
    lines = body.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if not line.strip() or is_separator(line):
            continue
        if "|" not in line:
            continue  # prose, caption: ends nothing, a fragment may carry both
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if is_separator(nxt):
            header = split_cells(line)  # a (new) table starts here
            continue
        # Outer pipes are optional in GFM ("Starter | 6 | 60"); under a known
        # header such a line is a row, unless it reads as a linearised row.
        if header is not None and (line.lstrip().startswith("|") or not LINEAR_ROW.match(line)):
            row = name_cells(header, split_cells(line))
            if row:
                out.append(row)
        elif LINEAR_ROW.match(line):
            out.append(line.strip())
    return out
