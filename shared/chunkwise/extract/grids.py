"""Rows of cells to one canonical table: header rows, titles, empty columns (pure).

Shared by the CSV/TSV reader and the spreadsheet readers. A grid is a list of
rows of cell texts (already formatted) with, per cell, whether it holds a
number (a number, date, percentage, amount: what a header cell is not).

Header rows: the first row is the header unless it holds a number in a column
whose data are numbers (then the table has none, and its columns are named
``Column 1..n``), or, in a table of text only, its cells repeat. Up to
`MAX_HEADER_ROWS` leading rows are header rows when every one of them is text
where the data are numbers and each row above the last one is a group row: a
label over several columns, written once with empty cells after it (CSV) or
repeated by a merge (spreadsheets). Several header rows become the one header
line, column by column, joined with " / " (`tables.combine_header_rows`, as
for DOCX and HTML), so every row chunk carries all of it.

Years as labels: a header row may name years ("2023", merged over "H1 | H2", or
"Kennzahl | 2022 | 2023"), which look like numbers. Years in a leading row are
labels when the columns below do not hold years, the row's years run left to
right without going back, and there are two different ones, or the row is a group
row over a text row (the sub-headings). More generally a leading row's numbers are
labels when each is a whole number of another form than every number below it in
its column ("2005" over "0.953", "2019 | 2020" over "1,234", "100" over "12.5 %";
`number_form`), the row holds a text cell or two different such numbers, and none
of them repeats: a data row has the form of the rows below it.

A title: leading rows with one text over a table of three or more columns, in
one cell or merged across the whole table ("Preisliste 2024" above the header),
become the table's caption. Notes: sparse rows of text above a row that names
every column once (over numeric data) join the caption when they cannot be
header rows over it: more rows than a header has (`MAX_HEADER_ROWS`), or a row
that is no group label (a label with empty or repeated cells after it).
A second header row: a row right under the header with a text in every column
of numbers only (two at least), none repeated ("(in grams)", "EUR"), is a header
row too, also over a table of one data row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .tables import caption_paragraph, combine_header_rows

MAX_HEADER_ROWS = 3
MAX_TITLE_ROWS = 3
#: Sparse rows of notes looked through above a header that names every column.
MAX_NOTE_ROWS = 6
#: Rows below the header candidates that decide which columns hold numbers.
SAMPLE_ROWS = 50
_NUMBER = re.compile(
    r"[-+(]?\s*(?:[$€£¥]|EUR|USD|CHF)?\s*[-+]?"
    r"(?:\d{1,3}(?:[.,'\u00a0\u202f ]\d{3})+|\d+)(?:[.,]\d+)?"
    r"(?:[eE][-+]?\d+)?\s*(?:%|‰|[$€£¥]|EUR|USD|CHF|[a-zA-Zµ]{1,3})?\)?"
)
_DATE = re.compile(r"\d{1,4}[./-]\d{1,2}[./-]\d{1,4}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?")
_TIME = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")
_YEAR = re.compile(r"(?:1[89]|2[01])\d\d")


def looks_numeric(text: str) -> bool:
    """A number, amount, percentage, date or time as people write them in a table cell."""
    text = text.strip()
    if not text or not any(ch.isdigit() for ch in text):
        return False
    return bool(_NUMBER.fullmatch(text) or _DATE.fullmatch(text) or _TIME.fullmatch(text))


@dataclass
class Grid:
    """Cell texts by row, and which cells hold numbers."""

    rows: list[list[str]]
    numeric: list[list[bool]]

    @classmethod
    def of_texts(cls, rows: list[list[str]]) -> Grid:
        return cls(rows, [[looks_numeric(c) for c in row] for row in rows])


@dataclass
class TableShape:
    """How a grid reads as a table: its caption, header line and where data start."""

    header: list[str]
    header_rows: int  # source rows in the header line; 0: names generated
    first_data_row: int
    caption: str = ""
    notes: list[str] = field(default_factory=list)


def _numeric_columns(grid: Grid, start: int, share: float = 0.6) -> set[int]:
    counts: dict[int, list[int]] = {}
    end = start + SAMPLE_ROWS
    for row, flags in zip(grid.rows[start:end], grid.numeric[start:end], strict=True):
        for col, (cell, number) in enumerate(zip(row, flags, strict=True)):
            if cell.strip():
                seen = counts.setdefault(col, [0, 0])
                seen[0] += number
                seen[1] += 1
    return {col for col, (numbers, filled) in counts.items() if numbers >= share * filled}


def _is_text_row(row: list[str], flags: list[bool], numeric_cols: set[int]) -> bool:
    filled = [i for i, c in enumerate(row) if c.strip()]
    return bool(filled) and not any(flags[i] for i in filled if i in numeric_cols)


def _year(text: str) -> int | None:
    text = text.strip()
    return int(text) if _YEAR.fullmatch(text) else None


def _year_columns(grid: Grid, start: int) -> set[int]:
    """Columns whose sample data are years (a "Jahr" column): a year there is data."""
    counts: dict[int, list[int]] = {}
    for row in grid.rows[start : start + SAMPLE_ROWS]:
        for col, cell in enumerate(row):
            if cell.strip():
                seen = counts.setdefault(col, [0, 0])
                seen[0] += _year(cell) is not None
                seen[1] += 1
    return {col for col, (years, filled) in counts.items() if years >= 0.6 * filled}


def _is_year_label_row(grid: Grid, index: int, numeric_cols: set[int]) -> bool:
    """A header row whose numbers are years naming the columns (see the module doc)."""
    row, flags = grid.rows[index], grid.numeric[index]
    year_cols = _year_columns(grid, index + 1)
    years = []
    for col, (cell, number) in enumerate(zip(row, flags, strict=True)):
        if not cell.strip() or not number or col not in numeric_cols:
            continue
        year = _year(cell)
        if year is None or col in year_cols:
            return False
        years.append(year)
    if not years or years != sorted(years):
        return False
    if len(set(years)) >= 2:
        return True
    below = index + 1
    return (
        below < len(grid.rows) - 1
        and _is_group_row(row)
        and _is_text_row(grid.rows[below], grid.numeric[below], numeric_cols)
    )


_INTEGER = re.compile(r"[-+]?\d+")
_THOUSANDS = re.compile(r"[-+]?\d{1,3}(?:[.,'\u00a0\u202f ]\d{3})+")
_DECIMAL = re.compile(r"[-+]?\d*[.,](\d+)")


def number_form(text: str) -> str:
    """The written form of a number cell, to tell a label from data: "int4" for 2019,
    "dec3" for 0.953, "thousands" for 1,234, "percent", "date", "time", else "other"."""
    text = text.strip()
    if _INTEGER.fullmatch(text):
        return f"int{len(text.lstrip('+-'))}"
    if text.endswith(("%", "‰")):
        return "percent"
    if _DATE.fullmatch(text):
        return "date"
    if _TIME.fullmatch(text):
        return "time"
    if _THOUSANDS.fullmatch(text):
        return "thousands"
    decimal = _DECIMAL.fullmatch(text)
    if decimal:
        return f"dec{len(decimal.group(1))}"
    return "other"


def _is_form_label_row(grid: Grid, index: int, numeric_cols: set[int]) -> bool:
    """A leading row whose numbers are whole numbers of a form no number below them in
    their column has (see the module doc): labels, not data."""
    row, flags = grid.rows[index], grid.numeric[index]
    below_rows = grid.rows[index + 1 : index + 1 + SAMPLE_ROWS]
    below_flags = grid.numeric[index + 1 : index + 1 + SAMPLE_ROWS]
    labels: list[str] = []
    texts = 0
    for col, (cell, number) in enumerate(zip(row, flags, strict=True)):
        if not cell.strip():
            continue
        if not number or col not in numeric_cols:
            texts += 1
            continue
        form = number_form(cell)
        if not form.startswith("int"):
            return False
        forms = [
            number_form(r[col])
            for r, f in zip(below_rows, below_flags, strict=True)
            if col < len(r) and r[col].strip() and f[col]
        ]
        if len(forms) < 2 or form in forms:
            return False
        labels.append(cell.strip())
    if not labels or len(set(labels)) != len(labels):
        return False
    return texts > 0 or len(labels) >= 2


def _is_header_row(grid: Grid, index: int, numeric_cols: set[int]) -> bool:
    row, flags = grid.rows[index], grid.numeric[index]
    return (
        _is_text_row(row, flags, numeric_cols)
        or _is_year_label_row(grid, index, numeric_cols)
        or _is_form_label_row(grid, index, numeric_cols)
    )


def _is_group_row(row: list[str]) -> bool:
    """A header row over sub-headings: a label spans columns, written once or repeated."""
    cells = [c.strip() for c in row]
    for i in range(1, len(cells)):
        if cells[i - 1] and (not cells[i] or cells[i] == cells[i - 1]):
            return True
    return False


def _title_rows(grid: Grid, width: int) -> int:
    """Leading rows that hold one text: in one cell, or merged across the table."""
    if width < 3:
        return 0
    n = 0
    while n < min(MAX_TITLE_ROWS, len(grid.rows) - 1):
        cells = zip(grid.rows[n], grid.numeric[n], strict=True)
        filled = [(c.strip(), f) for c, f in cells if c.strip()]
        if not filled or any(f for _, f in filled) or len({c for c, _ in filled}) != 1:
            break
        if len(filled) not in (1, width):
            break
        n += 1
    return n


def _is_subheading_row(grid: Grid, index: int) -> bool:
    """A row under the header that names the columns once more (units, notes in
    parentheses): text with letters in every column whose rows below hold numbers,
    no cell repeated. A data row has a number, or nothing, in at least one of them."""
    # Columns of numbers only, two of them at least: one column of mostly numbers
    # is also what a name/value list holds, whose next pair would read as units.
    numeric_cols = _numeric_columns(grid, index + 1, share=1.0)
    row = grid.rows[index]
    if len(numeric_cols) < 2:
        return False
    for col in numeric_cols:
        cell = row[col].strip() if col < len(row) else ""
        if not cell or grid.numeric[index][col] or not any(ch.isalpha() for ch in cell):
            return False
    filled = [c.strip() for c in row if c.strip()]
    return len(set(filled)) == len(filled)


def _is_full_header_row(grid: Grid, index: int, width: int) -> bool:
    """A row that names every column, each name once, in text over numeric data."""
    row = grid.rows[index]
    filled = [c.strip() for c in row if c.strip()]
    if len(filled) != width or len(set(filled)) != width or index + 1 >= len(grid.rows):
        return False
    numeric_cols = _numeric_columns(grid, index + 1)
    return bool(numeric_cols) and _is_text_row(row, grid.numeric[index], numeric_cols)


def _note_rows(grid: Grid, start: int, width: int) -> int:
    """Leading rows of notes above the header (see the module doc): sparse text rows
    over a row that names every column, when they cannot be header rows above it:
    more of them than a header has, or one that is no group label over columns."""
    for index in range(start, min(start + MAX_NOTE_ROWS + 1, len(grid.rows) - 1)):
        above = grid.rows[start:index]
        if index == start and _is_full_header_row(grid, index, width):
            return 0  # the table starts with its header
        if any(n for flags in grid.numeric[start:index] for n in flags):
            return 0
        if any(len({c.strip() for c in row if c.strip()}) >= width for row in above):
            return 0  # a row above names every column too: no sparse note
        if not _is_full_header_row(grid, index, width):
            continue  # the first row naming every column once is the candidate
        stacked = index - start + 1
        if stacked > MAX_HEADER_ROWS or not all(_is_group_row(row) for row in above):
            return index - start
        return 0
    return 0


def _header_count(grid: Grid, start: int) -> int:
    rows = grid.rows
    # The numeric columns as the data show them: a second header row over a short table
    # (one or two data rows) would otherwise outweigh the numbers below it.
    numeric_cols: set[int] = set()
    for k in range(1, MAX_HEADER_ROWS + 1):
        if start + k < len(rows):
            numeric_cols |= _numeric_columns(grid, start + k)
    if not _is_header_row(grid, start, numeric_cols):
        return 0
    if not numeric_cols:
        filled = [c.strip() for c in rows[start] if c.strip()]
        return 1 if len(set(filled)) == len(filled) else 0
    count = 1
    while (
        count < MAX_HEADER_ROWS
        and start + count < len(rows) - 1
        and (
            (
                _is_group_row(rows[start + count - 1])
                and _is_header_row(grid, start + count, numeric_cols)
            )
            or _is_subheading_row(grid, start + count)
        )
    ):
        count += 1
    return count


def continues_table(table: Grid, row: list[str], flags: list[bool]) -> bool:
    """Is ``row`` (after an empty row) more data of ``table``: a number where the
    table's last rows hold numbers, not a new header?"""
    numeric_cols = _numeric_columns(table, max(1, len(table.rows) - SAMPLE_ROWS))  # no header
    return bool(numeric_cols) and not _is_text_row(row, flags, numeric_cols)


def _fill_group_labels(rows: list[list[str]]) -> list[list[str]]:
    """A label written once over several columns, repeated into the empty cells after it
    (where a lower header row names a sub-column), as a merge would."""
    filled = [list(r) for r in rows]
    for r, row in enumerate(filled[:-1]):
        below = filled[r + 1 :]
        for c in range(1, len(row)):
            if not row[c].strip() and any(c < len(b) and b[c].strip() for b in below):
                row[c] = row[c - 1]
    return filled


def table_shape(grid: Grid, width: int) -> TableShape:
    """Caption, header line and first data row of a grid ``width`` columns wide."""
    titles = _title_rows(grid, width)
    caption = " ".join(next(c.strip() for c in grid.rows[i] if c.strip()) for i in range(titles))
    notes = _note_rows(grid, titles, width) if titles < len(grid.rows) else 0
    if notes:
        # The notes read on, row by row, as the caption's words (they are not cells).
        words = []
        for row in grid.rows[titles : titles + notes]:
            cells = [c.strip() for c in row if c.strip()]
            # A merged note is repeated across its cells: once is what it says.
            words += [c for i, c in enumerate(cells) if i == 0 or c != cells[i - 1]]
        caption = " ".join([caption, *words]).strip()
        titles += notes
    count = _header_count(grid, titles) if titles < len(grid.rows) else 0
    if count == 0:
        header = [f"Column {i}" for i in range(1, width + 1)]
        return TableShape(header, 0, titles, caption_paragraph(caption) if caption else "",
                          ["no header row found: the columns are named Column 1..n"])  # fmt: skip
    rows = [row + [""] * (width - len(row)) for row in grid.rows[titles : titles + count]]
    header = combine_header_rows(_fill_group_labels(rows)) if count > 1 else rows[0]
    return TableShape(header, count, titles + count, caption_paragraph(caption) if caption else "")


def trailing_note_rows(grid: Grid, first_data_row: int, width: int) -> int:
    """Rows at the end of a table that are notes, not data (a spreadsheet's remarks
    typed right under its table): sparse rows (at most half the columns) with no number
    at all, under a table whose data hold numbers. A totals row has its number."""
    numeric_cols = _numeric_columns(grid, first_data_row)
    if not numeric_cols:
        return 0
    n = 0
    for index in range(len(grid.rows) - 1, first_data_row, -1):
        row, flags = grid.rows[index], grid.numeric[index]
        filled = sum(1 for c in row if c.strip())
        if any(flags) or filled == 0 or filled * 2 > width:
            break
        n += 1
    return n
