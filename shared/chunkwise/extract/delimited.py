"""CSV and TSV -> one canonical GFM table, so every row chunk carries the header.

Encoding: the text was decoded by the dispatcher with the strict rule of
extract/text.py (UTF-8 with or without BOM, UTF-16/32 with BOM, and Windows-1252
only when it is certain, as in German Excel exports); the report says which.

Dialect: an Excel ``sep=;`` first line is obeyed. Otherwise `csv.Sniffer`
proposes a delimiter among ``,`` ``;`` tab ``|``, and is taken when its columns
are consistent; else each candidate is scored by how many sample rows have the
modal column count (quoted cells, also over several lines, parsed as such), the
best wins and ties go to ``;`` (the German separator), ``,``, tab, ``|``. A .tsv
is tab-separated unless its content clearly is not. A file none of them splits
consistently whose columns are set apart by spaces is read by them
(`space_columns`): columns aligned at fixed positions (a report printed to a
file: cells may hold single spaces, and an empty cell is blank) split at the
positions blank on every line, else cells separated by runs of spaces
(milog's time sheet, ``{}`` for an empty cell) when every line has as many. Quoting is ``"`` with
doubled quotes, as Excel and LibreOffice write it. A cell's line breaks become
spaces (a table line is one line).

Header: extract/grids.py decides (the first row, several header rows, or none:
then the columns are named ``Column 1..n`` and the report says so); leading
rows with one cell become the caption; empty rows are skipped; columns empty in
every row are dropped (the trailing ``;;;`` of spreadsheet exports).

Limits (ExtractLimits): the text's bytes (``max_text_bytes``, before decoding),
rows, columns, non-empty cells and characters per cell, checked while the rows
are read (a huge file stops at the first row over a limit): a LimitExceeded,
never a truncated table.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from chunkwise.canonical import separator_row, table_row

from .context import ReadContext
from .errors import CorruptDocument, EmptyDocument, LimitExceeded
from .grids import SAMPLE_ROWS, Grid, TableShape, table_shape
from .limits import ExtractLimits
from .model import TableInfo
from .tables import clean_cell
from .text import normalise_newlines

DELIMITERS = (";", ",", "\t", "|")
_LONE_CR = re.compile(r"\r(?!\n)")
_SAMPLE_CHARS = 64 * 1024
_NAMES = {";": "';'", ",": "','", "\t": "tab", "|": "'|'"}


def read_csv(data: bytes, ctx: ReadContext) -> str:
    return _read(ctx, preferred=None)


def read_tsv(data: bytes, ctx: ReadContext) -> str:
    return _read(ctx, preferred="\t")


@dataclass
class _Survey:
    """What one pass over all rows found: the limits held, and the table's extent."""

    rows: int = 0
    width: int = 0
    cells: int = 0
    filled_columns: frozenset[int] = frozenset()
    head: list[list[str]] | None = None


def _read(ctx: ReadContext, preferred: str | None) -> str:
    text = ctx.text or ""
    if _LONE_CR.search(text):  # old Mac line ends (rare): one copy with LF
        text = normalise_newlines(text)
    text, declared = _separator_line(text)
    if not text or text.isspace():  # (strip() would copy a big file once more)
        raise EmptyDocument("the file holds no rows")
    delimiter, how = declared or choose_delimiter(text[:_SAMPLE_CHARS], preferred)
    with _field_limit(ctx.limits):
        survey = _survey(text, delimiter, ctx)
        if survey.rows == 0:
            raise EmptyDocument("the file holds no rows with text")
        columns = sorted(survey.filled_columns)
        head = [_project(row, columns) for row in survey.head or []]
        shape = table_shape(Grid.of_texts(head), len(columns))
        ctx.check_time("csv rows surveyed")
        # Written into one buffer line by line: no list of millions of lines to join.
        buffer = io.StringIO()
        if shape.caption:
            buffer.write(shape.caption + "\n\n")
        for line in _render(text, delimiter, columns, shape):
            buffer.write(line)
            buffer.write("\n")
    ctx.text = None  # the decoded file is not needed any more
    del text
    out = buffer.getvalue()
    del buffer
    start = len(shape.caption) + 2 if shape.caption else 0
    _report(ctx, shape, delimiter, how, survey, start=start, end=len(out) - 1)
    return out


def _separator_line(text: str) -> tuple[str, tuple[str, str] | None]:
    """Excel's ``sep=;`` hint line: the delimiter, and the text without that line."""
    first, _, rest = text.partition("\n")
    marker = first.strip().lower()
    if marker.startswith("sep=") and len(marker) == 5:
        return rest, (first.strip()[4], "declared by a sep= line")
    return text, None


def _lines(text: str) -> Iterator[str]:
    """The text's lines with their line ends, as csv wants them (a quoted cell may
    span several). Sliced one by one: io.StringIO would hold a copy of the whole
    file at four bytes a character."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start : end + 1]
        start = end + 1
    if start < len(text):
        yield text[start:]


SPACES = " "  # cells separated by runs of spaces
_FIXED = "fixed:"  # columns at fixed positions: "fixed:12,30" cuts before 12 and 30
_RUN = re.compile(r"[ \t]+")


def _rows(text: str, delimiter: str) -> Iterator[list[str]]:
    if delimiter == SPACES:
        return (_RUN.split(line.strip()) for line in _lines(text))
    if delimiter.startswith(_FIXED):
        cuts = [int(c) for c in delimiter[len(_FIXED) :].split(",")]
        return (_cut(line.rstrip("\r\n"), cuts) for line in _lines(text))
    return csv.reader(_lines(text), delimiter=delimiter, quotechar='"')


def _cut(line: str, cuts: list[int]) -> list[str]:
    if not line.strip():
        return []
    bounds = [0, *cuts, max(len(line), cuts[-1])]
    return [line[a:b].strip() for a, b in itertools.pairwise(bounds)]


def space_columns(sample: str, complete: bool) -> tuple[str, float]:
    """(delimiter, consistency) for a file whose columns are set apart by spaces: fixed
    positions blank on every line (``fixed:…``), else runs of spaces (`SPACES`); ("", 0)
    when neither gives two columns."""
    lines = [line.rstrip("\r\n").expandtabs() for line in _lines(sample)]
    if not complete and len(lines) > 1:
        lines = lines[:-1]
    lines = [line for line in lines if line.strip()][: SAMPLE_ROWS * 4]
    if len(lines) < 3 or any('"' in line for line in lines):
        return "", 0.0
    width = max(len(line) for line in lines)
    blank = [all(i >= len(line) or line[i] == " " for line in lines) for i in range(width)]
    cuts = [
        i
        for i in range(1, width)
        if not blank[i] and blank[i - 1] and i - 2 >= 0 and blank[i - 2]  # a gap of 2+
    ]
    if cuts:
        return _FIXED + ",".join(str(c) for c in cuts), 1.0
    widths = [len(_RUN.split(line.strip())) for line in lines]
    modal = max(set(widths), key=lambda w: (widths.count(w), w))
    if modal < 2:
        return "", 0.0
    return SPACES, widths.count(modal) / len(widths)


def _consistency(sample: str, delimiter: str, complete: bool) -> float:
    """Share of sample rows with the modal column count (0 for one column); a first
    row (the header, which holds no decimal commas) of another width halves it."""
    try:
        rows = [r for r in _rows(sample, delimiter) if len(r) > 1 or any(c.strip() for c in r)]
    except csv.Error:
        return 0.0
    if not complete and len(rows) > 1:
        rows = rows[:-1]  # the sample may end inside a row
    widths = [len(r) for r in rows[: SAMPLE_ROWS * 4]]
    if not widths:
        return 0.0
    modal = max(set(widths), key=lambda w: (widths.count(w), w))
    if modal < 2:
        return 0.0
    share = widths.count(modal) / len(widths)
    return share if widths[0] == modal else share / 2


def choose_delimiter(sample: str, preferred: str | None = None) -> tuple[str, str]:
    """(delimiter, how it was found) for a sample of the file's start.

    Ranked by consistency, ties in the order of `DELIMITERS` (a German file whose
    decimal commas happen to line up still splits at ``;``). csv.Sniffer's answer
    is taken when it ranks as well as the best; alone it is too easily misled.
    """
    complete = len(sample) < _SAMPLE_CHARS
    scores = {d: round(_consistency(sample, d, complete), 2) for d in DELIMITERS}
    if preferred is not None and scores[preferred] >= 0.9:
        return preferred, "by the file's type"
    best = max(DELIMITERS, key=lambda d: (scores[d], -DELIMITERS.index(d)))
    if scores[best] < 0.9:
        spaces, consistency = space_columns(sample, complete)
        if spaces and consistency >= 0.9 and consistency > scores[best]:
            how = "columns aligned at fixed positions" if spaces != SPACES else "consistent"
            return spaces, how
    if scores[best] == 0.0:
        return preferred or ",", "one column: no delimiter found"
    try:
        sniffed = csv.Sniffer().sniff(sample[:16384], delimiters="".join(DELIMITERS)).delimiter
    except csv.Error:
        sniffed = ""
    if sniffed == best:
        return best, "sniffed, consistent"
    return best, "by column-count consistency"


@contextmanager
def _field_limit(limits: ExtractLimits) -> Iterator[None]:
    """csv checks the cell size while it parses (an unclosed quote stops early)."""
    previous = csv.field_size_limit(limits.max_cell_chars)
    try:
        yield
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise LimitExceeded(
                "max_cell_chars",
                limits.max_cell_chars,
                limits.max_cell_chars + 1,
                "a cell is longer than the limit (or a quote is never closed)",
            ) from None
        raise CorruptDocument(f"not readable as CSV: {exc}") from None
    finally:
        csv.field_size_limit(previous)


def _survey(text: str, delimiter: str, ctx: ReadContext) -> _Survey:
    limits = ctx.limits
    survey = _Survey(head=[])
    filled: set[int] = set()
    for row in _rows(text, delimiter):
        marks = [i for i, c in enumerate(row) if c.strip()]
        if not marks:
            continue
        survey.rows += 1
        survey.cells += len(marks)
        survey.width = max(survey.width, len(row))
        filled.update(marks)
        if survey.rows > limits.max_table_rows:
            raise LimitExceeded("max_table_rows", limits.max_table_rows, survey.rows, "CSV rows")
        if survey.width > limits.max_table_columns:
            raise LimitExceeded(
                "max_table_columns", limits.max_table_columns, survey.width, "CSV columns"
            )
        if survey.cells > limits.max_cells:
            raise LimitExceeded("max_cells", limits.max_cells, survey.cells, "CSV cells")
        if survey.head is not None and len(survey.head) < SAMPLE_ROWS + 8:
            survey.head.append(row)
        if survey.rows % 50_000 == 0:
            ctx.check_time("csv rows")
    survey.filled_columns = frozenset(filled)
    return survey


def _project(row: list[str], columns: list[int]) -> list[str]:
    return [row[c] if c < len(row) else "" for c in columns]


def _render(text: str, delimiter: str, columns: list[int], shape: TableShape) -> Iterator[str]:
    width = len(columns)
    yield table_row([clean_cell(c) for c in shape.header])
    yield separator_row(width)
    seen = 0
    for row in _rows(text, delimiter):
        if not any(c.strip() for c in row):
            continue
        seen += 1
        if seen > shape.first_data_row:
            yield table_row([clean_cell(c) for c in _project(row, columns)])


def _report(
    ctx: ReadContext,
    shape: TableShape,
    delimiter: str,
    how: str,
    survey: _Survey,
    *,
    start: int,
    end: int,
) -> None:
    report = ctx.report
    header = f"{shape.header_rows} row(s)"
    if shape.header_rows == 0:
        header = "none (columns named Column 1..n)"
    name = _NAMES.get(delimiter, repr(delimiter))
    if delimiter == SPACES:
        name = "runs of spaces"
    elif delimiter.startswith(_FIXED):
        name = "spaces (fixed-width columns)"
    report.dialect = f"delimiter {name} ({how}), quote '\"', header: {header}"
    report.warnings.extend(shape.notes)
    report.tables = [
        TableInfo(
            index=0,
            header=table_row([clean_cell(c) for c in shape.header]),
            header_rows=shape.header_rows,
            columns=len(shape.header),
            rows=survey.rows - shape.first_data_row,
            caption=shape.caption,
            start=start,
            end=end,
        )
    ]
    report.tables_found = 1
