"""XLSX / XLSM / XLS: sheets as sections, formats as shown, merged cells, header rows,
hidden parts left out and reported, several tables per sheet, limits."""

from __future__ import annotations

import datetime
import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chunkwise import chunk_text
from chunkwise.extract import (
    CorruptDocument,
    DocFormat,
    EmptyDocument,
    ExtractLimits,
    LimitExceeded,
    extract,
)
from chunkwise.models.counter import HFTokenCounter

openpyxl = pytest.importorskip("openpyxl")
DATA = Path(__file__).resolve().parents[1] / "data"


def workbook(build: Callable[[Any], None]) -> bytes:
    wb = openpyxl.Workbook()
    build(wb)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def lines(data: bytes, name: str = "book.xlsx") -> list[str]:
    return extract(data, filename=name).text.splitlines()


def test_every_visible_sheet_is_a_section_titled_with_its_name() -> None:
    def build(wb: Any) -> None:
        wb.active.title = "Übersicht"
        wb.active.append(["Name", "Wert"])
        wb.active.append(["a", 1])
        second = wb.create_sheet("Details 2024")
        second.append(["Kennzahl", "Wert"])
        second.append(["b", 2])

    result = extract(workbook(build), filename="b.xlsx")
    assert result.report.format is DocFormat.XLSX
    assert [ln for ln in result.text.splitlines() if ln.startswith("#")] == [
        "# Übersicht",
        "# Details 2024",
    ]
    assert [t.sheet for t in result.report.tables] == ["Übersicht", "Details 2024"]
    assert [s.name for s in result.report.sheets] == ["Übersicht", "Details 2024"]
    assert "openpyxl" in result.report.libraries


def test_values_shown_as_the_sheet_formats_them() -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Posten", "Betrag", "Anteil", "Datum", "Menge"])
        ws.append(["Pumpe", 1234.5, 0.125, datetime.datetime(2024, 3, 1), 1500])
        ws["B2"].number_format = "#,##0.00 [$€-407]"
        ws["C2"].number_format = "0.0%"
        ws["D2"].number_format = "dd.mm.yyyy"
        ws["E2"].number_format = "#,##0"

    assert lines(workbook(build))[-1] == "| Pumpe | 1.234,50 € | 12,5% | 01.03.2024 | 1.500 |"


def test_english_workbook_keeps_english_separators() -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Item", "Price", "Share", "Date"])
        ws.append(["Pump", 1234.5, 0.125, datetime.datetime(2024, 3, 1)])
        ws["B2"].number_format = "[$$-409]#,##0.00"
        ws["C2"].number_format = "0.00%"
        ws["D2"].number_format = "yyyy-mm-dd"

    assert lines(workbook(build))[-1] == "| Pump | $1,234.50 | 12.50% | 2024-03-01 |"


def test_cached_formula_values_not_formulas() -> None:
    """openpyxl writes no cached values; a real office file has them (LibreOffice's .xls)."""
    data = workbook(lambda wb: wb.active.append(["a", "b", "=A1&B1"]))
    result = extract(data, filename="f.xlsx")
    assert "=A1" not in result.text
    assert any("1 formula cell(s) without a stored result" in w for w in result.report.warnings)
    xls = extract((DATA / "preise_de.libreoffice.xls").read_bytes(), filename="p.xls")
    assert xls.report.format is DocFormat.XLS


def test_merged_cells_fill_every_row_and_two_row_header() -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Kategorie", "Artikel", "Preis", None])
        ws.append([None, None, "netto", "brutto"])
        ws.append(["Pumpen", "KP-40", 100, 119])
        ws.append([None, "KP-60", 200, 238])
        for ref in ("C1:D1", "A1:A2", "B1:B2", "A3:A4"):
            ws.merge_cells(ref)

    result = extract(workbook(build), filename="m.xlsx")
    assert result.text.splitlines()[2:] == [
        "| Kategorie | Artikel | Preis / netto | Preis / brutto |",
        "| --- | --- | --- | --- |",
        "| Pumpen | KP-40 | 100 | 119 |",
        "| Pumpen | KP-60 | 200 | 238 |",
    ]
    assert result.report.tables[0].header_rows == 2


def test_hidden_sheet_row_and_column_left_out_and_reported() -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.title = "Liste"
        ws.append(["Name", "Preis", "Einkauf"])
        ws.append(["sichtbar", 10, 5])
        ws.append(["versteckt", 20, 8])
        ws.append(["auch sichtbar", 30, 9])
        ws.row_dimensions[3].hidden = True
        ws.column_dimensions["C"].hidden = True
        for name, state in (("Geheim", "hidden"), ("Ganz geheim", "veryHidden")):
            sheet = wb.create_sheet(name)
            sheet["A1"] = f"{name} Inhalt"
            sheet.sheet_state = state

    result = extract(workbook(build), filename="h.xlsx")
    text = result.text
    assert "versteckt" not in text and "Einkauf" not in text and "Geheim" not in text
    assert text.splitlines()[2:] == [
        "| Name | Preis |",
        "| --- | --- |",
        "| sichtbar | 10 |",
        "| auch sichtbar | 30 |",
    ]
    warnings = " ".join(result.report.warnings)
    assert "hidden sheet 'Geheim'" in warnings and "veryHidden sheet 'Ganz geheim'" in warnings
    assert "1 hidden row(s) and 1 hidden column(s)" in warnings
    liste, geheim, ganz = result.report.sheets
    assert (liste.read, liste.hidden_rows, liste.hidden_columns) == (True, 1, 1)
    assert (geheim.read, geheim.state, ganz.state) == (False, "hidden", "veryHidden")


def test_two_tables_on_one_sheet_and_a_note() -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Artikel", "Preis", None, "Region", "Umsatz"])
        ws.append(["A", 1, None, "Nord", 100])
        ws.append(["B", 2, None, "Süd", 200])
        ws.append([])
        ws.append([])
        ws.append(["Stand: März 2024"])
        ws.append([])
        ws.append(["Lager", "Bestand"])
        ws.append(["Stuttgart", 40])

    result = extract(workbook(build), filename="t.xlsx")
    assert [t.header for t in result.report.tables] == [
        "| Artikel | Preis |",
        "| Region | Umsatz |",
        "| Lager | Bestand |",
    ]
    assert "\n\nStand: März 2024\n\n" in result.text
    for table in result.report.tables:
        assert result.text[table.start : table.end].startswith(table.header)


def test_an_empty_row_inside_a_list_does_not_cut_it() -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Artikel", "Preis"])
        ws.append(["A", 1])
        ws.append([])
        ws.append(["B", 2])

    result = extract(workbook(build), filename="t.xlsx")
    assert len(result.report.tables) == 1 and result.report.tables[0].rows == 2


def test_charts_and_images_are_reported() -> None:
    from openpyxl.chart import BarChart, Reference

    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Monat", "Umsatz"])
        ws.append(["Jan", 5])
        chart = BarChart()
        chart.add_data(Reference(ws, min_col=2, min_row=1, max_row=2))
        ws.add_chart(chart, "D2")
        wb.create_chartsheet("Diagramm").add_chart(BarChart())

    result = extract(workbook(build), filename="c.xlsx")
    sheet, chartsheet = result.report.sheets
    assert sheet.charts == 1 and not chartsheet.read and chartsheet.charts == 1
    assert any("1 chart(s)" in w for w in result.report.warnings)


def test_xlsm_is_read_without_its_macros() -> None:
    data = workbook(lambda wb: (wb.active.append(["a", "b"]), wb.active.append(["x", 1])))
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for info in src.infolist():
            content = src.read(info)
            if info.filename == "[Content_Types].xml":
                content = content.replace(
                    b"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
                    b"application/vnd.ms-excel.sheet.macroEnabled.main+xml",
                )
            zf.writestr(info, content)
        zf.writestr("xl/vbaProject.bin", b"Attribute VB_Name = \"Auto_Open\"")
    result = extract(out.getvalue(), filename="m.xlsm")
    assert result.report.format is DocFormat.XLSM
    assert "| x | 1 |" in result.text and "Auto_Open" not in result.text


def test_legacy_xls_reads_like_its_xlsx() -> None:
    xlsx = extract((DATA / "preise_de.xlsx").read_bytes(), filename="preise_de.xlsx")
    xls = extract((DATA / "preise_de.libreoffice.xls").read_bytes(), filename="p.xls")
    assert xls.report.format is DocFormat.XLS and "xlrd" in xls.report.libraries
    assert xls.text == xlsx.text
    assert "Interner Posten" not in xls.text and "Kalkulation" not in xls.text


def test_the_sample_reads_as_expected() -> None:
    result = extract((DATA / "preise_de.xlsx").read_bytes(), filename="preise_de.xlsx")
    assert "| Kreiselpumpe KP-40 | 1.234,50 € | 1.469,06 € | 12,5% | 01.03.2024 |" in result.text
    assert "| Süd | 98.250,50 € |" in result.text
    assert "# Hinweise\n\nAlle Preise verstehen sich ab Lager Stuttgart." in result.text


@pytest.mark.parametrize(
    "limits,limit",
    [
        (ExtractLimits(max_table_rows=50), "max_table_rows"),
        (ExtractLimits(max_cells=100), "max_cells"),
        (ExtractLimits(max_sheets=1), "max_sheets"),
        (ExtractLimits(max_cell_chars=5), "max_cell_chars"),
    ],
)
def test_limits(limits: ExtractLimits, limit: str) -> None:
    def build(wb: Any) -> None:
        for i in range(80):
            wb.active.append([f"row {i}", i, i * 2])
        wb.create_sheet("zwei")["A1"] = "x"

    with pytest.raises(LimitExceeded) as e:
        extract(workbook(build), filename="l.xlsx", limits=limits)
    assert e.value.limit == limit


def test_an_empty_workbook_is_empty() -> None:
    with pytest.raises(EmptyDocument):
        extract(workbook(lambda wb: None), filename="e.xlsx")


def test_a_broken_workbook_is_corrupt() -> None:
    data = zipfile.ZipFile(io.BytesIO(workbook(lambda wb: wb.active.append(["a"]))))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for info in data.infolist():
            broken = info.filename.startswith("xl/worksheets/")
            zf.writestr(info, b"<worksheet><sheetData><row" if broken else data.read(info))
    with pytest.raises(CorruptDocument):
        extract(out.getvalue(), filename="b.xlsx")


def test_every_row_chunk_of_a_long_sheet_carries_its_header(counter: HFTokenCounter) -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Artikelnummer", "Bezeichnung", "Preis"])
        for i in range(600):
            ws.append([f"A-{i}", f"Artikel {i}", i * 1.5])

    result = extract(workbook(build), filename="lang.xlsx")
    chunks = chunk_text(result.text, lang="auto", counter=counter)
    assert len(chunks) > 5
    assert all(c.table_header.startswith("| Artikelnummer | Bezeichnung | Preis |") for c in chunks)


def test_a_sheet_named_like_a_page_is_not_a_page_anchor() -> None:
    from chunkwise.canonical import page_anchors

    def build(wb: Any) -> None:
        wb.active.title = "Seite 2"
        wb.active.append(["a", "b"])
        wb.active.append(["x", 1])

    result = extract(workbook(build), filename="s.xlsx")
    assert result.text.startswith("# Seite 2 (sheet)\n")
    assert page_anchors(result.text) == []


def test_time_budget_is_checked_while_rows_are_read() -> None:
    def build(wb: Any) -> None:
        for i in range(25_000):
            wb.active.append([f"r{i}", i])

    with pytest.raises(LimitExceeded) as e:
        extract(workbook(build), filename="t.xlsx", limits=ExtractLimits(max_seconds=1e-6))
    assert e.value.limit == "max_seconds"


def test_a_shorter_table_beside_a_longer_one_has_no_empty_rows() -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Monat", "Umsatz", None, "Region", "Anteil"])
        ws.append(["Jan", 1, None, "Nord", 0.5])
        for month, value in (("Feb", 2), ("Mär", 3), ("Apr", -4)):
            ws.append([month, value])

    result = extract(workbook(build), filename="t.xlsx")
    assert "|  |  |" not in result.text
    assert [t.rows for t in result.report.tables] == [4, 1]
    assert "| Apr | -4 |" in result.text  # General shows one minus sign


def test_a_title_merged_across_the_table_is_its_caption() -> None:
    def build(wb: Any) -> None:
        ws = wb.active
        ws.append(["Leseliste"])
        ws.merge_cells("A1:C1")
        ws.append(["#", "Titel", "Jahr"])
        ws.append(["1", "Der Hund der Baskervilles", "1902"])  # numbers stored as text
        ws.append(["2", "Eine kurze Geschichte der Zeit", "1988"])

    result = extract(workbook(build), filename="t.xlsx")
    assert "**Leseliste**\n\n| # | Titel | Jahr |\n" in result.text
    assert result.report.tables[0].caption == "**Leseliste**"
