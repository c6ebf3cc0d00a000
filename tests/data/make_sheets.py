"""Generate the spreadsheet and CSV samples in tests/data/ (committed output).

    .venv/bin/python tests/data/make_sheets.py [--libreoffice]

  preise_de.xlsx               openpyxl: a German price list with a title, a two-row header
                               of merged cells, currency/percent/date formats, a hidden row
                               and column, a second table on the same sheet, a chart, a
                               notes sheet and a hidden sheet
  preisliste_de.csv            a German Excel-style CSV export: Windows-1252, ';', CRLF, a
                               quoted multi-line cell, 60 rows
  ersatzteile_de.xlsx          openpyxl: a German spare-parts list of 160 rows under a title
                               and one header row (amounts as '#,##0.00 "€"'), several
                               chunks long: `make demo` asks about a row of a later chunk
                               (GD-4711) and shows that its hit carries the header
  preise_de.libreoffice.xls    preise_de.xlsx saved as Excel 97-2003 by LibreOffice (real
                               office output; only with --libreoffice, needs `soffice`)

The workbook's cells and properties are fixed; openpyxl stamps the ZIP entries
with the time of writing, so the bytes (not the content) change on every run.
"""

from __future__ import annotations

import argparse
import datetime
import io
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent
_FIXED = datetime.datetime(2024, 3, 1, 12, 0, 0)
_KINDS = ("Kreiselpumpe", "Absperrventil", "Feinfilter", "Flachdichtung")


def workbook_bytes() -> bytes:
    from openpyxl import Workbook
    from openpyxl.chart import BarChart, Reference

    wb = Workbook()
    wb.properties.created = wb.properties.modified = _FIXED
    ws = wb.active
    ws.title = "Preise 2024"
    ws.append(["Preisliste Frühjahr 2024"])
    ws.append([])
    ws.append(["Artikel", "Preis", None, "Rabatt", "Gültig ab"])
    ws.append([None, "netto", "brutto", None, None])
    for ref in ("B3:C3", "A3:A4", "D3:D4", "E3:E4"):
        ws.merge_cells(ref)
    rows = [
        ("Kreiselpumpe KP-40", 1234.5, 1469.06, 0.125, datetime.datetime(2024, 3, 1)),
        ("Feinfilter FF-2", 12, 14.28, 0.05, datetime.datetime(2024, 4, 15)),
        ("Interner Posten", 1, 1.19, 0, datetime.datetime(2024, 1, 1)),
        ("Absperrventil AV-1", 89.9, 106.98, 0, datetime.datetime(2024, 5, 2)),
    ]
    for row in rows:
        ws.append(list(row))
    for cells in ws.iter_rows(min_row=5, max_row=8):
        cells[1].number_format = '#,##0.00 "€"'
        cells[2].number_format = "#,##0.00\\ [$€-407]"
        cells[3].number_format = "0.0%"
        cells[4].number_format = "dd.mm.yyyy"
    ws.row_dimensions[7].hidden = True
    ws["G3"], ws["G5"] = "Einkauf intern", 800
    ws.column_dimensions["G"].hidden = True
    ws["A11"], ws["B11"] = "Region", "Umsatz"
    for i, (region, value) in enumerate((("Nord", 120_500), ("Süd", 98_250.5)), start=12):
        ws.cell(i, 1, region)
        ws.cell(i, 2, value).number_format = "#,##0.00 €"
    chart = BarChart()
    chart.add_data(Reference(ws, min_col=2, min_row=11, max_row=13))
    ws.add_chart(chart, "J2")
    notes = wb.create_sheet("Hinweise")
    notes["A1"] = "Alle Preise verstehen sich ab Lager Stuttgart."
    notes["A3"] = "Rabatte gelten nicht für Sonderanfertigungen."
    hidden = wb.create_sheet("Kalkulation")
    hidden["A1"] = "Marge"
    hidden.sheet_state = "hidden"
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def price_list_csv(rows: int = 60) -> bytes:
    rnd = random.Random(2024)
    lines = ["Artikelnummer;Bezeichnung;Kategorie;Preis netto;Preis brutto;Lieferzeit"]
    for i in range(rows):
        net = rnd.randint(500, 250_000) / 100
        kind = _KINDS[i % 4]
        name = f'"{kind} {i}\r\nAusführung {"ABCD"[i % 4]}"' if i == 7 else f"{kind} {i}"
        price = f"{net:,.2f}".replace(",", " ").replace(".", ",").replace(" ", ".")
        gross = f"{net * 1.19:,.2f}".replace(",", " ").replace(".", ",").replace(" ", ".")
        lines.append(f"A-{10_000 + i};{name};{kind}n;{price} €;{gross} €;{i % 9 + 1} Tage")
    return ("\r\n".join(lines) + "\r\n").encode("cp1252")


PARTS_HEADER = ("Teilenummer", "Bezeichnung", "Passend für", "Preis netto", "Lieferzeit",
                "Lagerort")  # fmt: skip
_PARTS = ("Gleitringdichtung", "Laufrad", "Wellenhülse", "Kugellager", "O-Ring-Satz",
          "Kupplungsstern", "Lagerdeckel", "Filtereinsatz")  # fmt: skip
#: The row `make demo` asks about: well past the first chunk of the table.
DEMO_ROW = ("GD-4711", "Gleitringdichtung SiC/SiC, verstärkt", "KP-80", 248.9,
            "12 Arbeitstage", "Halle 3, Regal 14")  # fmt: skip


def parts_list_xlsx(rows: int = 160, demo_at: int = 121) -> bytes:
    from openpyxl import Workbook

    wb = Workbook()
    wb.properties.created = wb.properties.modified = _FIXED
    ws = wb.active
    ws.title = "Ersatzteile"
    ws.append(["Ersatzteilliste Kreiselpumpen 2026"])
    ws.append(list(PARTS_HEADER))
    rnd = random.Random(2026)
    for i in range(rows):
        if i == demo_at:
            row: tuple[object, ...] = DEMO_ROW
        else:
            part = _PARTS[i % len(_PARTS)]
            row = (f"{part[:2].upper()}-{1000 + i * 7}", f"{part} Typ {i % 12 + 1}",
                   f"KP-{(20, 40, 60, 80)[i % 4]}", rnd.randint(300, 60_000) / 100,
                   f"{rnd.randint(1, 15)} Arbeitstage",
                   f"Halle {i % 4 + 1}, Regal {i % 30 + 1}")  # fmt: skip
        ws.append(list(row))
        ws.cell(row=ws.max_row, column=4).number_format = '#,##0.00 "€"'
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def libreoffice_xls(source: Path, target: Path) -> None:
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        raise SystemExit("soffice not found: apt-get install libreoffice-calc-nogui")
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [soffice, "--headless", "--convert-to", "xls", "--outdir", out, str(source)],
            check=True,
            capture_output=True,
            timeout=300,
        )
        shutil.move(str(Path(out) / (source.stem + ".xls")), target)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--libreoffice", action="store_true", help="also write the .xls sample")
    args = ap.parse_args()
    (DATA / "preise_de.xlsx").write_bytes(workbook_bytes())
    (DATA / "preisliste_de.csv").write_bytes(price_list_csv())
    (DATA / "ersatzteile_de.xlsx").write_bytes(parts_list_xlsx())
    if args.libreoffice:
        libreoffice_xls(DATA / "preise_de.xlsx", DATA / "preise_de.libreoffice.xls")


if __name__ == "__main__":
    main()
