"""XLSX and XLSM -> one ``# <sheet>`` section per visible sheet, with openpyxl, streaming.

The container was guarded and verified before (extract/containers.py). The
workbook is opened read-only (rows are streamed from the sheet XML, never a
cell object per cell), with ``data_only``: a formula cell gives the value the
spreadsheet last calculated and stored, never the formula; macros (the XLSM's
vbaProject.bin) are never loaded, let alone run; external links are dropped;
XML is parsed by openpyxl through defusedxml (no entity expansion).

Per visible worksheet, in workbook order: hidden and very hidden sheets, hidden
rows and hidden columns are left out and listed in the report's warnings and
`sheets`; chart sheets are reported, not read. Cell values are shown as the
sheet formats them (extract/numfmt.py, separators from `workbook_locale`);
merged cells are filled (every cell of the range shows the top-left value), so
each row reads alone; the cells then go to extract/sheets.py (blocks, header
rows, tables). Charts and pictures on a sheet are counted from its drawing part
and reported (count and sheet), not silently dropped.

The one streaming parser openpyxl has, ``WorkSheetParser``, is used directly:
it yields each row with its attributes (hidden) after the column attributes,
and the merged ranges come at the end of the same pass. openpyxl is pinned.
"""

from __future__ import annotations

import io
import re
import warnings
from dataclasses import dataclass
from functools import cache
from typing import Any

from .context import ReadContext
from .errors import CorruptDocument, ExtractionError, LimitExceeded
from .grids import looks_numeric
from .model import SheetInfo
from .numfmt import NumberLocale, format_value, workbook_locale
from .sheets import SheetCells, SheetText, assemble, sheet_section

_TRUE = ("1", "true")
_DRAWING_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing"
_CHART = re.compile(rb"<(?:\w+:)?chart\b[^>]*\br:id=|<c:chart\b")
_PICTURE = re.compile(rb"<(?:\w+:)?pic>|<(?:\w+:)?pic\s")
_RELATIONSHIP = re.compile(rb"<(?:\w+:)?Relationship\b[^>]*>")
_TYPE = re.compile(rb'\bType="([^"]+)"')
_TARGET = re.compile(rb'\bTarget="([^"]+)"')


@dataclass(frozen=True)
class _Sheet:
    """A sheet as the workbook lists it: name, state, part, and whether it is a chart."""

    title: str
    state: str
    path: str
    chart: bool


def read_xlsx(data: bytes, ctx: ReadContext) -> str:
    reader = _open(data)
    workbook = reader.wb
    locale = workbook_locale(list(getattr(workbook, "_number_formats", [])))
    sheets = _sheets(reader)
    if len(sheets) > ctx.limits.max_sheets:
        raise LimitExceeded("max_sheets", ctx.limits.max_sheets, len(sheets), "sheets")
    sections: list[SheetText] = []
    cells_read = 0
    for sheet in sheets:
        info, section, cells = _read_sheet(reader, sheet, locale, ctx, cells_read)
        cells_read += cells
        ctx.report.sheets.append(info)
        if section is not None:
            sections.append(section)
    if locale.name == "de":
        ctx.report.warnings.append(
            "numbers shown with German separators (1.234,50): the workbook's formats say German"
        )
    return assemble(sections, ctx)


def _open(data: bytes) -> Any:
    """openpyxl's reader up to the styles: manifest, shared strings, workbook, number
    formats. Its read-only worksheets are not built: each scans a sheet without a
    <dimension> element once just to size it."""
    from openpyxl.reader.excel import ExcelReader
    from openpyxl.styles.stylesheet import apply_stylesheet

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # openpyxl warns about unsupported extensions
            reader = ExcelReader(io.BytesIO(data), read_only=True, data_only=True, keep_links=False)
            reader.read_manifest()
            reader.read_strings()
            reader.read_workbook()
            apply_stylesheet(reader.archive, reader.wb)
    except ExtractionError:
        raise
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        raise CorruptDocument(f"XLSX workbook could not be read: {reason}") from None
    return reader


def _sheets(reader: Any) -> list[_Sheet]:
    try:
        return [
            _Sheet(
                str(sheet.name),
                str(sheet.state or "visible"),
                str(rel.target),
                "chartsheet" in str(rel.Type),
            )
            for sheet, rel in reader.parser.find_sheets()
            if rel.target in reader.valid_files
        ]
    except Exception as exc:
        raise CorruptDocument(f"XLSX sheet list could not be read: {exc}") from None


def _read_sheet(
    reader: Any, sheet: _Sheet, locale: NumberLocale, ctx: ReadContext, cells_read: int
) -> tuple[SheetInfo, SheetText | None, int]:
    name = sheet.title
    charts, images = _drawings(ctx, sheet.path)
    state = sheet.state
    if sheet.chart:
        ctx.report.warnings.append(f"chart sheet {name!r} is a chart: reported, not read")
        charts = max(charts, 1)
        return SheetInfo(name=name, state=state, read=False, charts=charts), None, 0
    if state != "visible":
        ctx.report.warnings.append(f"{state} sheet {name!r} left out")
        return SheetInfo(name=name, state=state, read=False, charts=charts, images=images), None, 0
    cells, hidden_rows, hidden_cols = _stream_cells(reader, sheet, locale, ctx, cells_read)
    if hidden_rows or hidden_cols:
        ctx.report.warnings.append(
            f"sheet {name!r}: {hidden_rows} hidden row(s) and {hidden_cols} hidden column(s) "
            "left out"
        )
    if charts or images:
        ctx.report.warnings.append(
            f"sheet {name!r}: {charts} chart(s) and {images} picture(s) not read"
        )
    section = sheet_section(cells)
    info = SheetInfo(
        name=name,
        read=True,
        rows=section.rows,
        columns=section.columns,
        tables=len(section.tables),
        hidden_rows=hidden_rows,
        hidden_columns=hidden_cols,
        charts=charts,
        images=images,
    )
    return info, section, len(cells.cells)


class _Styles:
    """Number-format code per cell style id, looked up once per id."""

    def __init__(self, workbook: Any) -> None:
        from openpyxl.styles.numbers import BUILTIN_FORMATS, BUILTIN_FORMATS_MAX_SIZE

        self._styles = workbook._cell_styles
        self._custom = workbook._number_formats
        self._builtin = BUILTIN_FORMATS
        self._offset = BUILTIN_FORMATS_MAX_SIZE
        self._codes: dict[int, str] = {}

    def code(self, style_id: int) -> str:
        if style_id not in self._codes:
            code = "General"
            if 0 <= style_id < len(self._styles):
                fmt = self._styles[style_id].numFmtId
                if fmt < self._offset:
                    code = self._builtin.get(fmt, "General")
                elif fmt - self._offset < len(self._custom):
                    code = self._custom[fmt - self._offset]
            self._codes[style_id] = code
        return self._codes[style_id]


def _hidden_spans(column_dimensions: dict[str, dict[str, str]]) -> list[tuple[int, int]]:
    spans = []
    for attrs in column_dimensions.values():
        if str(attrs.get("hidden", "")).lower() in _TRUE:
            spans.append((int(attrs.get("min", 0)), int(attrs.get("max", attrs.get("min", 0)))))
    return spans


def _stream_cells(
    reader: Any, sheet: _Sheet, locale: NumberLocale, ctx: ReadContext, cells_read: int
) -> tuple[SheetCells, int, int]:
    limits = ctx.limits
    workbook = reader.wb
    styles = _Styles(workbook)
    out = SheetCells(sheet.title)
    values: dict[tuple[int, int], tuple[Any, int, str]] = {}
    hidden_rows = 0
    hidden_filled: set[int] = set()
    with reader.archive.open(sheet.path) as source:
        parser = _parser_class()(
            source,
            reader.shared_strings,
            data_only=True,
            epoch=workbook.epoch,
            date_formats=workbook._date_formats,
            timedelta_formats=workbook._timedelta_formats,
        )
        hidden_cols: list[tuple[int, int]] | None = None
        try:
            for count, (row, cells) in enumerate(parser.parse(), start=1):
                if hidden_cols is None:
                    hidden_cols = _hidden_spans(parser.column_dimensions)
                attrs = parser.row_dimensions.get(str(row), {})
                if str(attrs.get("hidden", "")).lower() in _TRUE:
                    hidden_rows += any(c["value"] is not None for c in cells)
                    out.hidden_rows.add(row)
                    continue
                _check_row(row, count, limits, ctx)
                for cell in cells:
                    if cell["value"] is None:
                        continue
                    if _in_spans(cell["column"], hidden_cols):
                        hidden_filled.add(cell["column"])
                        continue
                    key = (row, cell["column"])
                    values[key] = (cell["value"], cell["style_id"], cell["data_type"])
                if len(values) + cells_read > limits.max_cells:
                    raise LimitExceeded("max_cells", limits.max_cells, len(values) + cells_read)
        except ExtractionError:
            raise
        except Exception as exc:
            raise CorruptDocument(
                f"sheet {sheet.title!r} could not be read: {type(exc).__name__}: {exc}"
            ) from None
        merged = parser.merged_cells
    spans = hidden_cols or []
    _fill_merged(values, merged, spans)
    last = max((c for _, c in values), default=0)
    out.hidden_columns = {c for a, b in spans for c in range(a, min(b, last) + 1)}
    _put_formatted(out, values, styles, locale, limits.max_cell_chars)
    if parser.uncached:
        ctx.report.warnings.append(
            f"sheet {sheet.title!r}: {parser.uncached} formula cell(s) without a stored result "
            "(the file was written by a program that does not calculate): shown empty"
        )
    return out, hidden_rows, len(hidden_filled)


def _put_formatted(
    out: SheetCells,
    values: dict[tuple[int, int], tuple[Any, int, str]],
    styles: _Styles,
    locale: NumberLocale,
    max_chars: int,
) -> None:
    """Each value as its cell's format shows it; numbers (also stored as text) marked."""
    for (row, col), (value, style_id, data_type) in values.items():
        text = format_value(value, styles.code(style_id), locale)
        if len(text) > max_chars:
            raise LimitExceeded("max_cell_chars", max_chars, len(text))
        typed = data_type in ("n", "d") and not isinstance(value, bool)
        out.put(row, col, text, typed or (isinstance(value, str) and looks_numeric(value)))


@cache
def _parser_class() -> Any:
    """openpyxl's streaming sheet parser, counting formula cells that have no stored
    result (data_only gives None for them: nothing to show, so say why)."""
    from openpyxl.worksheet._reader import FORMULA_TAG, WorkSheetParser

    class CountingParser(WorkSheetParser):  # type: ignore[misc]
        uncached = 0

        def parse_cell(self, element: Any) -> Any:
            cell = super().parse_cell(element)
            if cell["value"] is None and element.find(FORMULA_TAG) is not None:
                self.uncached += 1
            return cell

    return CountingParser


def _check_row(row: int, count: int, limits: Any, ctx: ReadContext) -> None:
    if count > limits.max_table_rows:
        raise LimitExceeded("max_table_rows", limits.max_table_rows, count, "rows of one sheet")
    if count % 20_000 == 0:
        ctx.check_time(f"sheet row {row}")


def _in_spans(col: int, spans: list[tuple[int, int]] | None) -> bool:
    return bool(spans) and any(a <= col <= b for a, b in spans or [])


def _fill_merged(
    values: dict[tuple[int, int], tuple[Any, int, str]], merged: Any, hidden: list[tuple[int, int]]
) -> None:
    """Every visible cell of a merged range takes the range's top-left value."""
    if merged is None:
        return
    from openpyxl.worksheet.cell_range import CellRange

    rows = {r for r, _ in values}
    for item in getattr(merged, "mergeCell", []):
        bounds = CellRange(item.ref).bounds  # min_col, min_row, max_col, max_row
        min_col, min_row, max_col, max_row = bounds
        top = values.get((min_row, min_col))
        if top is None:
            continue
        for r in range(min_row, max_row + 1):
            if r not in rows:
                continue  # a hidden or empty row stays as it is
            for c in range(min_col, max_col + 1):
                if not _in_spans(c, hidden):
                    values[(r, c)] = top


def _drawings(ctx: ReadContext, path: str) -> tuple[int, int]:
    """(charts, pictures) anchored on a sheet, counted in its drawing parts."""
    container = ctx.container
    if container is None or not path:
        return 0, 0
    folder, _, leaf = str(path).rpartition("/")
    rels_path = f"{folder}/_rels/{leaf}.rels"
    if not container.has(rels_path):
        return 0, 0
    rels = container.read(rels_path, cap=1 << 20)
    charts = images = 0
    for relationship in _RELATIONSHIP.findall(rels):
        kind, target = _TYPE.search(relationship), _TARGET.search(relationship)
        if kind is None or target is None or kind.group(1) != _DRAWING_REL.encode():
            continue
        part = _resolve(folder, target.group(1).decode("utf-8", "replace"))
        if container.has(part):
            xml = container.read(part)
            charts += len(_CHART.findall(xml))
            images += len(_PICTURE.findall(xml))
    return charts, images


def _resolve(folder: str, target: str) -> str:
    if target.startswith("/"):
        return target.lstrip("/")
    parts = folder.split("/")
    for piece in target.split("/"):
        if piece == "..":
            parts = parts[:-1]
        elif piece and piece != ".":
            parts.append(piece)
    return "/".join(parts)
