"""Legacy XLS (Excel 97-2003, BIFF) -> the same sections as XLSX, with xlrd.

xlrd 2 reads only .xls, and reads it well: with ``formatting_info`` it gives
each cell's format code (shown through extract/numfmt.py, as for XLSX), the
sheets' visibility, hidden rows and columns and merged ranges; cached formula
results are what it returns (it never evaluates). Sheets are loaded one at a
time (``on_demand``). xlrd does not read charts or pictures; an encrypted
workbook is an EncryptedDocument. Layout (blocks, header rows) is
extract/sheets.py's, as for XLSX.
"""

from __future__ import annotations

from typing import Any

from .context import ReadContext
from .errors import CorruptDocument, EncryptedDocument, ExtractionError, LimitExceeded
from .grids import looks_numeric
from .model import SheetInfo
from .numfmt import NumberLocale, format_value, workbook_locale
from .sheets import SheetCells, SheetText, assemble, sheet_section

_STATES = {0: "visible", 1: "hidden", 2: "veryHidden"}


def read_xls(data: bytes, ctx: ReadContext) -> str:
    book = _open(data)
    try:
        codes = [str(f.format_str) for f in book.format_map.values() if f.format_str]
        locale = workbook_locale(codes)
        if book.nsheets > ctx.limits.max_sheets:
            raise LimitExceeded("max_sheets", ctx.limits.max_sheets, book.nsheets, "sheets")
        sections: list[SheetText] = []
        cells_read = 0
        for index in range(book.nsheets):
            info, section, cells = _read_sheet(book, index, locale, ctx, cells_read)
            ctx.report.sheets.append(info)
            cells_read += cells
            if section is not None:
                sections.append(section)
        if locale.name == "de":
            ctx.report.warnings.append(
                "numbers shown with German separators (1.234,50): the workbook's formats say German"
            )
        return assemble(sections, ctx)
    finally:
        book.release_resources()


def _open(data: bytes) -> Any:
    import xlrd

    try:
        return xlrd.open_workbook(
            file_contents=data, formatting_info=True, on_demand=True, ragged_rows=True
        )
    except xlrd.XLRDError as exc:
        if "encrypt" in str(exc).lower():
            raise EncryptedDocument(
                "the XLS workbook is password-protected; remove the password and upload again"
            ) from None
        raise CorruptDocument(f"XLS workbook could not be read: {exc}") from None
    except Exception as exc:  # xlrd raises plain errors for broken files
        reason = f"{type(exc).__name__}: {exc}"
        raise CorruptDocument(f"XLS workbook could not be read: {reason}") from None


def _read_sheet(
    book: Any, index: int, locale: NumberLocale, ctx: ReadContext, cells_read: int
) -> tuple[SheetInfo, SheetText | None, int]:
    sheet = book.sheet_by_index(index)
    try:
        name = str(sheet.name)
        state = _STATES.get(sheet.visibility, "hidden")
        if state != "visible":
            ctx.report.warnings.append(f"{state} sheet {name!r} left out")
            return SheetInfo(name=name, state=state, read=False), None, 0
        cells, hidden_rows, hidden_cols = _cells(book, sheet, locale, ctx, cells_read)
    except ExtractionError:
        raise
    except Exception as exc:
        raise CorruptDocument(f"XLS sheet could not be read: {type(exc).__name__}: {exc}") from None
    finally:
        book.unload_sheet(index)
    if hidden_rows or hidden_cols:
        ctx.report.warnings.append(
            f"sheet {name!r}: {hidden_rows} hidden row(s) and {hidden_cols} hidden column(s) "
            "left out"
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
    )
    return info, section, len(cells.cells)


def _value(book: Any, cell: Any) -> Any:
    import xlrd

    if cell.ctype == xlrd.XL_CELL_DATE:
        try:
            return xlrd.xldate.xldate_as_datetime(cell.value, book.datemode)
        except (ValueError, OverflowError):
            return cell.value
    if cell.ctype == xlrd.XL_CELL_BOOLEAN:
        return bool(cell.value)
    if cell.ctype == xlrd.XL_CELL_ERROR:
        return xlrd.error_text_from_code.get(cell.value, "#ERROR")
    if cell.ctype in (xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
        return None
    return cell.value


def _code(book: Any, xf_index: int) -> str:
    try:
        return str(book.format_map[book.xf_list[xf_index].format_key].format_str)
    except (IndexError, KeyError):
        return "General"


def _cells(
    book: Any, sheet: Any, locale: NumberLocale, ctx: ReadContext, cells_read: int
) -> tuple[SheetCells, int, int]:
    import xlrd

    limits = ctx.limits
    if sheet.nrows > limits.max_table_rows:
        raise LimitExceeded("max_table_rows", limits.max_table_rows, sheet.nrows, "rows of a sheet")
    hidden_rows = {r for r, info in sheet.rowinfo_map.items() if info.hidden}
    hidden_cols = {c for c, info in sheet.colinfo_map.items() if info.hidden}
    values: dict[tuple[int, int], tuple[Any, int, bool]] = {}
    for r in range(sheet.nrows):
        if r in hidden_rows:
            continue
        for c, cell in enumerate(sheet.row(r)):
            value = _value(book, cell)
            if value is None or c in hidden_cols:
                continue
            numeric = cell.ctype in (xlrd.XL_CELL_NUMBER, xlrd.XL_CELL_DATE)
            values[(r, c)] = (value, cell.xf_index, numeric)
        if len(values) + cells_read > limits.max_cells:
            raise LimitExceeded("max_cells", limits.max_cells, len(values) + cells_read)
        if r % 20_000 == 0:
            ctx.check_time(f"sheet row {r}")
    for rlo, rhi, clo, chi in sheet.merged_cells:
        top = values.get((rlo, clo))
        for r in range(rlo, rhi):
            for c in range(clo, chi):
                if top is not None and r not in hidden_rows and c not in hidden_cols:
                    values[(r, c)] = top
    out = SheetCells(str(sheet.name), hidden_rows=hidden_rows, hidden_columns=hidden_cols)
    for (r, c), (value, xf_index, numeric) in values.items():
        text = format_value(value, _code(book, xf_index), locale)
        if len(text) > limits.max_cell_chars:
            raise LimitExceeded("max_cell_chars", limits.max_cell_chars, len(text))
        out.put(r, c, text, numeric or (isinstance(value, str) and looks_numeric(value)))
    filled_rows = sum(1 for r in hidden_rows if r < sheet.nrows and sheet.row_len(r))
    return out, filled_rows, len(hidden_cols)
