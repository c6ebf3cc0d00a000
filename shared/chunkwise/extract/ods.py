"""ODS -> one ``# <sheet>`` section per visible sheet, streaming content.xml with lxml.

The same treatment as XLSX (extract/xlsx.py), from the OpenDocument parts:

- a sheet hidden by its table style (``table:display="false"``; XLSX's
  veryHidden becomes this too) is left out and reported; rows and columns with
  ``table:visibility`` collapse or filter are left out and counted;
- a cell shows what the spreadsheet displayed: its ``text:p`` (LibreOffice
  writes the formatted value and a formula's cached result there), else its
  ``office:*value``; it holds a number when its value type is float,
  percentage, currency, date or time;
- repeated rows and columns (``number-rows-repeated``,
  ``number-columns-repeated``) are counted, not materialised, when empty (a
  sheet ends with 1,048,576 repeated empty rows), and written out, against
  ``max_table_rows`` and ``max_cells``, when not;
- a cell spanning rows or columns gives its value to every covered cell, so
  each row reads alone;
- charts and pictures on a sheet (in ``table:shapes`` or a cell) are counted;
- the visible cells then go to extract/sheets.py (blocks, header rows,
  several tables per sheet), as XLSX's do.

content.xml is read with ``iterparse`` (the safe parser settings of
extract/odf.py) and each row is dropped once read, so a long sheet costs its
cells, not its XML tree.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from .context import ReadContext
from .errors import CorruptDocument, ExtractionError, LimitExceeded
from .limits import ExtractLimits
from .model import SheetInfo
from .odf import (
    DRAW,
    OFFICE,
    STYLE,
    TABLE,
    TABLE_TABLE,
    P,
    check_not_encrypted,
    inline_text,
    is_chart,
    object_types,
    q,
)
from .sheets import SheetCells, SheetText, assemble, sheet_section

_ROW, _COLUMN = q(TABLE, "table-row"), q(TABLE, "table-column")
_CELL, _COVERED = q(TABLE, "table-cell"), q(TABLE, "covered-table-cell")
_FRAME, _SPREADSHEET = q(DRAW, "frame"), q(OFFICE, "spreadsheet")
_AUTOMATIC = q(OFFICE, "automatic-styles")
_HIDDEN = ("collapse", "filter")
_NUMERIC = frozenset({"float", "percentage", "currency", "date", "time"})
_VALUES = ("value", "date-value", "time-value", "boolean-value", "string-value")
#: Hidden empty rows remembered (so they are no gap between tables); more are
#: a repeated tail that stands between nothing.
_HIDDEN_ROWS_KEPT = 10_000
_ODS_COLUMNS = 1 << 14  # LibreOffice's 16,384 columns: a repeat past them is no cell


@dataclass
class _Span:
    top: int
    bottom: int
    left: int
    right: int
    value: tuple[str, bool]


@dataclass
class _Sheet:
    """The sheet being read: its cells, what is hidden, where the next row goes."""

    cells: SheetCells
    hidden: bool
    limits: ExtractLimits
    row: int = 0
    column: int = 0  # next column index while table:table-column elements are read
    hidden_columns: set[int] = field(default_factory=set)
    spans: list[_Span] = field(default_factory=list)
    rows_read: int = 0
    hidden_rows: int = 0
    hidden_filled: set[int] = field(default_factory=set)
    charts: int = 0
    images: int = 0

    def add_column(self, element: Any) -> None:
        repeat = _repeat(element, "number-columns-repeated", _ODS_COLUMNS)
        if element.get(q(TABLE, "visibility")) in _HIDDEN:
            self.hidden_columns.update(range(self.column, min(self.column + repeat, _ODS_COLUMNS)))
        self.column += repeat

    def add_row(self, element: Any, cells_before: int) -> None:
        repeat = _repeat(element, "number-rows-repeated", 1 << 21)
        hidden = element.get(q(TABLE, "visibility")) in _HIDDEN
        values = self._row_values(element)
        if hidden or not values:  # an empty or hidden row is counted, never written out
            self.hidden_rows += repeat if hidden and values else 0
            if hidden and len(self.cells.hidden_rows) < _HIDDEN_ROWS_KEPT:
                self.cells.hidden_rows.update(range(self.row, self.row + min(repeat, 1000)))
            self.row += repeat
            return
        for k in range(repeat):
            r = self.row + k
            self.rows_read += 1
            if self.rows_read > self.limits.max_table_rows:
                raise LimitExceeded(
                    "max_table_rows",
                    self.limits.max_table_rows,
                    self.rows_read,
                    "rows of one sheet",
                )
            for col, (text, numeric) in values.items():
                self.cells.put(r, col, text, numeric)
            if len(self.cells.cells) + cells_before > self.limits.max_cells:
                raise LimitExceeded(
                    "max_cells", self.limits.max_cells, len(self.cells.cells) + cells_before
                )
        self.row += repeat

    def _row_values(self, element: Any) -> dict[int, tuple[str, bool]]:
        """The visible cells of one row by column, spans and repeats resolved."""
        out: dict[int, tuple[str, bool]] = {}
        self.spans = [s for s in self.spans if s.bottom >= self.row]
        col = 0
        for cell in element:
            if cell.tag not in (_CELL, _COVERED):
                continue
            repeat = _repeat(cell, "number-columns-repeated", _ODS_COLUMNS)
            value = _cell_value(cell, self.limits) if cell.tag == _CELL else None
            if cell.tag == _CELL and value is not None:
                self._span(cell, col, value)
            if value is not None or self.spans:
                self._put(out, range(col, min(col + repeat, _ODS_COLUMNS)), value)
            col += repeat
        return out

    def _put(
        self, out: dict[int, tuple[str, bool]], columns: range, value: tuple[str, bool] | None
    ) -> None:
        for c in columns:
            found = value or self._covered(c)
            if found is None:
                continue
            if c in self.hidden_columns:
                self.hidden_filled.add(c)
                continue
            out[c] = found
            if len(out) > self.limits.max_table_columns:
                raise LimitExceeded(
                    "max_table_columns", self.limits.max_table_columns, len(out), "sheet columns"
                )

    def _span(self, cell: Any, col: int, value: tuple[str, bool]) -> None:
        down = _repeat(cell, "number-rows-spanned", self.limits.max_table_rows)
        across = _repeat(cell, "number-columns-spanned", self.limits.max_table_columns)
        if down > 1 or across > 1:
            self.spans.append(_Span(self.row, self.row + down - 1, col, col + across - 1, value))

    def _covered(self, col: int) -> tuple[str, bool] | None:
        for span in self.spans:
            if span.top <= self.row <= span.bottom and span.left <= col <= span.right:
                return span.value
        return None


def _repeat(element: Any, name: str, cap: int) -> int:
    try:
        return max(1, min(int(element.get(q(TABLE, name)) or "1"), cap))
    except ValueError:
        return 1


def _cell_value(cell: Any, limits: ExtractLimits) -> tuple[str, bool] | None:
    """(displayed text, holds a number) of a cell, None when empty."""
    kind = cell.get(q(OFFICE, "value-type"))
    paragraphs = [inline_text(p) for p in cell if p.tag == P]
    text = "\n".join(paragraphs).strip()
    if not text and kind:
        text = next((cell.get(q(OFFICE, n)) for n in _VALUES if cell.get(q(OFFICE, n))), "") or ""
    if not text.strip():
        return None
    if len(text) > limits.max_cell_chars:
        raise LimitExceeded("max_cell_chars", limits.max_cell_chars, len(text))
    return text, kind in _NUMERIC


def _hidden_table_styles(styles: Any) -> set[str]:
    out = set()
    for style in styles.iter(q(STYLE, "style")):
        props = style.find(q(STYLE, "table-properties"))
        if props is not None and props.get(q(TABLE, "display")) == "false":
            out.add(style.get(q(STYLE, "name"), ""))
    return out


@dataclass
class _Reader:
    ctx: ReadContext
    objects: dict[str, str]
    hidden_styles: set[str] = field(default_factory=set)
    sheet: _Sheet | None = None
    element: Any = None  # the sheet's table:table
    sections: list[SheetText] = field(default_factory=list)
    cells_read: int = 0
    sheets: int = 0

    def start(self, element: Any) -> None:
        if element.tag == TABLE_TABLE and element.getparent().tag == _SPREADSHEET:
            self.sheets += 1
            if self.sheets > self.ctx.limits.max_sheets:
                raise LimitExceeded("max_sheets", self.ctx.limits.max_sheets, self.sheets, "sheets")
            name = element.get(q(TABLE, "name")) or f"Sheet{self.sheets}"
            hidden = element.get(q(TABLE, "style-name")) in self.hidden_styles
            self.sheet = _Sheet(SheetCells(name), hidden, self.ctx.limits)
            self.element = element

    def end(self, element: Any) -> None:
        tag = element.tag
        sheet = self.sheet
        if tag == _AUTOMATIC:
            self.hidden_styles = _hidden_table_styles(element)
        elif sheet is None:
            return
        elif element is self.element:
            self._finish(sheet)
            _drop(element)
        elif tag == _ROW and _table_of(element) is self.element:
            if not sheet.hidden:  # a hidden sheet's rows are dropped unread
                sheet.add_row(element, self.cells_read)
            if sheet.rows_read and sheet.rows_read % 20_000 == 0:
                self.ctx.check_time(f"sheet row {sheet.row}")
            _drop(element)
        elif tag == _COLUMN and _table_of(element) is self.element:
            sheet.add_column(element)
        elif tag == _FRAME and _table_of(element) is self.element and not sheet.hidden:
            self._frame(sheet, element)

    def _frame(self, sheet: _Sheet, frame: Any) -> None:
        if any(a.tag == _FRAME for a in frame.iterancestors()):
            return
        if is_chart(frame, self.objects):
            sheet.charts += 1
        else:
            sheet.images += 1

    def _finish(self, sheet: _Sheet) -> None:
        name = sheet.cells.name
        self.sheet, self.element = None, None
        if sheet.hidden:
            self.ctx.report.warnings.append(f"hidden sheet {name!r} left out")
            self.ctx.report.sheets.append(SheetInfo(name=name, state="hidden", read=False))
            return
        self.ctx.report.sheets.append(self._report(sheet))
        self.cells_read += len(sheet.cells.cells)

    def _report(self, sheet: _Sheet) -> SheetInfo:
        name = sheet.cells.name
        if sheet.hidden_rows or sheet.hidden_filled:
            self.ctx.report.warnings.append(
                f"sheet {name!r}: {sheet.hidden_rows} hidden row(s) and "
                f"{len(sheet.hidden_filled)} hidden column(s) left out"
            )
        if sheet.charts or sheet.images:
            self.ctx.report.warnings.append(
                f"sheet {name!r}: {sheet.charts} chart(s) and {sheet.images} picture(s) not read"
            )
        sheet.cells.hidden_columns = set(sheet.hidden_columns)
        section = sheet_section(sheet.cells)
        self.sections.append(section)
        return SheetInfo(
            name=name,
            read=True,
            rows=section.rows,
            columns=section.columns,
            tables=len(section.tables),
            hidden_rows=sheet.hidden_rows,
            hidden_columns=len(sheet.hidden_filled),
            charts=sheet.charts,
            images=sheet.images,
        )


def _table_of(element: Any) -> Any:
    for ancestor in element.iterancestors(TABLE_TABLE):
        return ancestor
    return None


def _drop(element: Any) -> None:
    """Free what has been read: the element's content and its earlier siblings."""
    element.clear(keep_tail=True)
    parent = element.getparent()
    while parent is not None and element.getprevious() is not None:
        del parent[0]


def read_ods(data: bytes, ctx: ReadContext) -> str:
    container = ctx.container
    if container is None:  # pragma: no cover - the dispatcher always opens the ZIP
        raise CorruptDocument("ODS reader called without its container")
    check_not_encrypted(container, "ODS")
    if not container.has("content.xml"):
        raise CorruptDocument("ODS has no content.xml")
    reader = _Reader(ctx, object_types(container))
    events = etree.iterparse(
        io.BytesIO(container.read("content.xml")),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        huge_tree=False,
        load_dtd=False,
    )
    try:
        for event, element in events:
            if event == "start":
                reader.start(element)
            else:
                reader.end(element)
    except ExtractionError:
        raise
    except etree.XMLSyntaxError as exc:
        raise CorruptDocument(f"ODS content.xml is not well-formed XML: {exc}") from None
    return assemble(reader.sections, ctx)
