"""The hard cases no pinned source has, written by script into .local/formats/generated/.

    python -m bench.formats.generate [--large]

Generated files prove behaviour (a hidden sheet is left out, a cp1252 export
decodes, a header survives 100,000 rows); the real files measure quality. The
two are reported apart. Their facts (labels/generated.jsonl) follow from the
tables below, by construction; the displayed values of the spreadsheets are
the ones LibreOffice 7.4.7 shows for these number formats in the en-US locale
(a German reader of the sheet would see "1.234,50 €" where the format names no
locale: the labels then accept either form, see ``alternatives``).

Writers: the stdlib (CSV, EPUB, ZIP bombs), openpyxl (XLSX), python-pptx
(PPTX), python-docx (DOCX, only as the source of the ODT), and LibreOffice
(``soffice --convert-to``: ODS, ODP and ODT made from the OOXML files, and the
XLSX with formulas saved again so that it carries cached values, as a real
spreadsheet application writes it). Without ``soffice`` the LibreOffice-made
files are skipped with a message.

``--large`` also writes the 200 MB CSV of the issue's acceptance (not by
default: it takes a minute and 200 MB of disk).
"""

from __future__ import annotations

import argparse
import csv
import io
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Callable
from datetime import date
from pathlib import Path

from .fetch import WORK

OUT = WORK / "generated"
BIG_ROWS = 100_000

# A German price list as Excel's "CSV (Trennzeichen-getrennt)" writes it: cp1252, ";",
# decimal commas, CRLF, and a quoted cell with a line break in it.
PRICE_HEADER = ("Artikelnummer", "Bezeichnung", "Preis (€)", "Menge", "Lieferdatum", "Bemerkung")
PRICE_ROWS = (
    ("A-1001", "Schraube M4 × 20, verzinkt", "0,12", "500", "03.01.2024", ""),
    ("A-1002", "Unterlegscheibe Ø 4,3", "0,03", "1.000", "03.01.2024", "Restposten"),
    ("B-2001", "Kabelbinder schwarz", "4,95", "20", "15.02.2024", "Lieferung\r\nnur werktags"),
    ("B-2002", "Schrumpfschlauch-Sortiment", "12,50", "3", "15.02.2024", "Größe 2–10 mm"),
    ("C-3001", "Lötzinn bleifrei", "18,90", "2", "01.03.2024", "„Sn99Cu1“"),
    ("C-3002", "Entlötlitze 1,5 mm", "3,49", "10", "01.03.2024", ""),
)
# Excel's "Unicode-Text" export: UTF-16 LE with BOM, tab-separated.
STAFF_HEADER = ("Name", "Abteilung", "Standort", "Durchwahl")
STAFF_ROWS = (
    ("Jürgen Weiß", "Einkauf", "Köln", "-214"),
    ("Zoë Ångström", "Qualität", "Malmö", "-377"),
    ("Łukasz Dąbrowski", "Logistik", "Gdańsk", "-102"),
)


def write_csvs(out: Path) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=";", lineterminator="\r\n")
    writer.writerows((PRICE_HEADER, *PRICE_ROWS))
    (out / "de-excel-export.csv").write_bytes(buf.getvalue().encode("cp1252"))
    # The same list as a UTF-8 file with a byte-order mark (Excel's "CSV UTF-8").
    (out / "de-utf8-bom.csv").write_bytes(b"\xef\xbb\xbf" + buf.getvalue().encode("utf-8"))
    buf = io.StringIO()
    csv.writer(buf, delimiter="\t", lineterminator="\r\n").writerows((STAFF_HEADER, *STAFF_ROWS))
    (out / "de-utf16.csv").write_bytes(buf.getvalue().encode("utf-16"))
    write_header_and_space_cases(out)


def write_header_and_space_cases(out: Path) -> None:
    """#25's held-out classes, with content of their own: numbers as header labels (one
    year over decimals, years running back), cells set apart by spaces (single spaces and
    ``{}`` for an empty cell; fixed-width columns with spaces in cells), numeric labels."""
    (out / "en-one-year-header.csv").write_text(
        "Rank,Country,2005\n1,Norway,0.968\n2,Iceland,0.968\n3,Australia,0.962\n"
        "4,Ireland,0.959\n5,Sweden,0.956\n6,Canada,0.961\n7,Japan,0.953\n",
        encoding="utf-8",
    )
    (out / "de-jahre-rueckwaerts.csv").write_text(
        "Posten;2023;2022;2021\nUmsatz (Mio. €);12,4;11,9;10,2\nMitarbeitende;1.204;1.150;1.098\n"
        "Standorte;14;13;13\nEigenkapitalquote;38,5 %;36,1 %;35,0 %\n",
        encoding="utf-8",
    )
    (out / "de-zeiten-leerzeichen.csv").write_text(
        "tag beginn ende pause dauer notiz\n2 7:45 16:15 0:45 7:45 {}\n"
        "3 8:00 12:30 0:00 4:30 Zahnarzt\n4 {} {} {} 0:00 Feiertag\n"
        "5 8:10 17:40 1:00 8:30 Workshop\n8 {} {} {} 0:00 Urlaub\n9 7:55 16:05 0:30 7:40 {}\n",
        encoding="utf-8",
    )
    (out / "en-fixed-width.tsv").write_text(
        "Station          Region         Rainfall   Unit\n"
        "Fort William     Highland          212.5   mm\n"
        "Loch Ness South  Highland           98.0   mm\n"
        "Oban             Argyll                      \n"
        "St Andrews       Fife               41.25  mm\n",
        encoding="utf-8",
    )


def write_large_csv(out: Path, target_bytes: int = 200 * 1024 * 1024) -> None:
    """A 200 MB German export (the size bound of the issue): rows until the size is reached."""
    path = out / "de-large-200mb.csv"
    with path.open("w", encoding="cp1252", newline="") as fh:
        writer = csv.writer(fh, delimiter=";", lineterminator="\r\n")
        writer.writerow(("Nr", "Kunde", "Ort", "Betrag (€)", "Datum"))
        n = 0
        while fh.tell() < target_bytes:
            n += 1
            writer.writerow((n, f"Kunde {n:07d}", "München", f"{n % 9973},{n % 100:02d}",
                             f"{1 + n % 28:02d}.{1 + n % 12:02d}.2024"))  # fmt: skip


def write_two_row_header(out: Path) -> None:
    """Quarterly figures under a header of two rows: the year groups merged over the quarters."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Umsatz"
    ws.append(["Region", "2023", None, "2024", None])
    ws.append([None, "H1", "H2", "H1", "H2"])
    ws.merge_cells("B1:C1")
    ws.merge_cells("D1:E1")
    ws.merge_cells("A1:A2")
    for row in (("Nord", 120, 135, 150, 170), ("Süd", 98, 104, 111, 125), ("West", 77, 80, 91, 96)):
        ws.append(list(row))
    wb.save(out / "xlsx-two-row-header.xlsx")


def write_merged(out: Path) -> None:
    """A row label merged down over the rows it labels, and a value merged across columns."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Lager"
    ws.append(["Standort", "Artikel", "Bestand", "Mindestbestand"])
    ws.append(["Hamburg", "Palette", 40, 10])
    ws.append([None, "Gitterbox", 12, 5])
    ws.append([None, "Kleinladungsträger", 300, 100])
    ws.append(["Leipzig", "Palette", 25, 10])
    ws.append([None, "Gitterbox", "ausverkauft", None])
    ws.merge_cells("A2:A4")
    ws.merge_cells("A5:A6")
    ws.merge_cells("C6:D6")
    wb.save(out / "xlsx-merged-cells.xlsx")


def write_hidden(out: Path) -> None:
    """Hidden rows and columns on a visible sheet, a hidden and a very hidden sheet."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Preise"
    ws.append(["Produkt", "Einkaufspreis intern", "Verkaufspreis"])
    ws.append(["Tischlampe", 11.2, 29.9])
    ws.append(["Stehlampe Geheimprojekt", 40.0, 99.0])
    ws.append(["Leselampe", 8.5, 19.9])
    ws.column_dimensions["B"].hidden = True
    ws.row_dimensions[3].hidden = True
    hidden = wb.create_sheet("Kalkulation")
    hidden.append(["Marge", "vertraulich: 62 Prozent"])
    hidden.sheet_state = "hidden"
    very = wb.create_sheet("Makrodaten")
    very.append(["Schlüssel", "streng geheim: Zugangscode 4711"])
    very.sheet_state = "veryHidden"
    wb.save(out / "xlsx-hidden.xlsx")


def write_two_tables(out: Path) -> None:
    """Two tables on one sheet, apart by empty rows and columns, each with its own header."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Übersicht"
    ws["A1"] = "Mitarbeitende je Standort"
    staff = (("Standort", "Anzahl"), ("Berlin", 42), ("Dresden", 17))
    fleet = (("Fahrzeug", "Kennzeichen", "Baujahr"), ("Transporter", "B-CW 123", 2019),
             ("Kombi", "DD-CW 77", 2021))  # fmt: skip
    for top, left, table in ((3, 1, staff), (9, 5, fleet)):
        for r, row in enumerate(table, start=top):
            for c, value in enumerate(row, start=left):
                ws.cell(r, c, value)
    wb.save(out / "xlsx-two-tables.xlsx")


def write_formats(out: Path) -> None:
    """Percent, currency, date and thousands formats, and formulas (cached by LibreOffice)."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Formate"
    ws.append(["Posten", "Betrag", "Anteil", "Fällig am", "Stück"])
    rows = (("Miete", 1234.5, 0.15, date(2024, 3, 1), 1200),
            ("Strom", 89.99, 0.125, date(2024, 3, 15), 35000),
            ("Wasser", 45.0, 0.05, date(2024, 4, 2), 7))  # fmt: skip
    for i, (name, amount, share, due, count) in enumerate(rows, start=2):
        ws.append([name, amount, share, due, count])
        ws[f"B{i}"].number_format = '#,##0.00 "€"'
        ws[f"C{i}"].number_format = "0.0%" if share * 1000 % 10 else "0%"
        ws[f"D{i}"].number_format = "dd.mm.yyyy"
        ws[f"E{i}"].number_format = "#,##0"
    ws.append(["Summe", "=SUM(B2:B4)", "=SUM(C2:C4)", None, "=SUM(E2:E4)"])
    ws["B5"].number_format = '#,##0.00 "€"'
    ws["C5"].number_format = "0.0%"
    ws["E5"].number_format = "#,##0"
    wb.save(out / "xlsx-formats-source.xlsx")


def write_big_sheet(out: Path) -> None:
    """100,000 rows (write-only mode): late rows must still carry the header."""
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("Bestellungen")
    ws.append(["Bestellnummer", "Kunde", "Ort", "Betrag"])
    for n in range(1, BIG_ROWS + 1):
        ws.append([f"B{n:06d}", f"Kunde {n % 5000:04d}", ("Bonn", "Kiel", "Ulm")[n % 3], n % 997])
    wb.save(out / "xlsx-100k-rows.xlsx")


DECK_TABLE = (("Kennzahl", "2023", "2024"), ("Umsatz (Mio. €)", "12,4", "14,1"),
              ("Mitarbeitende", "88", "97"), ("Standorte", "3", "4"))  # fmt: skip


def write_deck(out: Path) -> None:
    """Title, a table, grouped text boxes, speaker notes, a hidden slide, an untitled slide."""
    from pptx import Presentation
    from pptx.util import Inches

    prs = Presentation()
    title = prs.slides.add_slide(prs.slide_layouts[0])
    title.shapes.title.text = "Jahresbericht 2024"
    title.placeholders[1].text = "Vorstandssitzung am 14. März 2025"
    table_slide = prs.slides.add_slide(prs.slide_layouts[5])
    table_slide.shapes.title.text = "Kennzahlen im Vergleich"
    frame = table_slide.shapes.add_table(4, 3, Inches(1), Inches(2), Inches(8), Inches(3))
    for r, row in enumerate(DECK_TABLE):
        for c, value in enumerate(row):
            frame.table.cell(r, c).text = value
    table_slide.notes_slide.notes_text_frame.text = (
        "Hinweis für die Vortragende: den Anstieg der Mitarbeitendenzahl erläutern."
    )
    grouped = prs.slides.add_slide(prs.slide_layouts[5])
    grouped.shapes.title.text = "Organisation"
    group = grouped.shapes.add_group_shape()
    for i, text in enumerate(("Vertrieb Nord und Süd", "Produktion in Leipzig", "Einkauf zentral")):
        box = group.shapes.add_textbox(Inches(1 + 3 * i), Inches(3), Inches(2.5), Inches(1))
        box.text_frame.text = text
    hidden = prs.slides.add_slide(prs.slide_layouts[1])
    hidden.shapes.title.text = "Interne Planung"
    hidden.placeholders[1].text = "Diese Folie ist ausgeblendet und darf nicht erscheinen."
    hidden._element.set("show", "0")  # python-pptx has no API for hidden slides
    untitled = prs.slides.add_slide(prs.slide_layouts[6])
    box = untitled.shapes.add_textbox(Inches(1), Inches(1), Inches(8), Inches(1))
    box.text_frame.text = "Vielen Dank für Ihre Aufmerksamkeit!"
    prs.save(str(out / "deck-de.pptx"))


def write_docx(out: Path) -> None:
    """The source of the generated ODT: headings, a list, a table with a header row."""
    import docx

    document = docx.Document()
    document.add_heading("Betriebsanleitung Kaffeemaschine", level=1)
    document.add_paragraph("Lesen Sie diese Anleitung vor der ersten Inbetriebnahme vollständig.")
    document.add_heading("Sicherheitshinweise", level=2)
    for item in ("Nur an geerdeten Steckdosen betreiben.", "Nicht in Wasser tauchen."):
        document.add_paragraph(item, style="List Bullet")
    document.add_heading("Technische Daten", level=2)
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Merkmal", "Wert"
    for key, value in (("Leistung", "1.450 W"), ("Wassertank", "1,2 l"), ("Gewicht", "3,8 kg")):
        cells = table.add_row().cells
        cells[0].text, cells[1].text = key, value
    document.save(str(out / "odt-source.docx"))


CHAPTERS = (
    ("kap2.xhtml", "Kapitel 2: Die Reise", "Am zweiten Tag erreichten sie die Küste bei Husum."),
    ("kap1.xhtml", "Kapitel 1: Der Aufbruch", "Früh am Morgen verließ die Familie das Dorf."),
)
SPINE = ("kap1.xhtml", "kap2.xhtml")  # the manifest lists them the other way round


def write_epub(out: Path) -> None:
    """EPUB 3: spine order unlike manifest order, a nav document outside the spine, a table."""
    container = (
        '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:'
        'xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" '
        'media-type="application/oebps-package+xml"/></rootfiles></container>'
    )
    manifest = "".join(
        f'<item id="{name[:-6]}" href="{name}" media-type="application/xhtml+xml"/>'
        for name, _, _ in CHAPTERS
    )
    opf = (
        '<?xml version="1.0" encoding="utf-8"?><package xmlns="http://www.idpf.org/2007/opf" '
        'version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        '<dc:identifier id="id">urn:uuid:chunkwise-generated-1</dc:identifier>'
        "<dc:title>Die Reise an die Küste</dc:title><dc:language>de</dc:language>"
        '<meta property="dcterms:modified">2024-01-01T00:00:00Z</meta></metadata><manifest>'
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>'
        f"{manifest}</manifest><spine>"
        + "".join(f'<itemref idref="{name[:-6]}"/>' for name in SPINE)
        + "</spine></package>"
    )
    files = {
        "META-INF/container.xml": container,
        "OEBPS/content.opf": opf,
        "OEBPS/nav.xhtml": _xhtml(
            "Inhalt",
            '<nav epub:type="toc"><h1>Inhaltsverzeichnis der Reise</h1><ol>'
            '<li><a href="kap1.xhtml">Der Aufbruch</a></li>'
            '<li><a href="kap2.xhtml">Die Reise</a></li></ol></nav>',
        ),
    }
    for name, heading, text in CHAPTERS:
        body = f"<h1>{heading}</h1><p>{text}</p>"
        if name == "kap2.xhtml":
            body += (
                "<table><tr><th>Etappe</th><th>Strecke</th></tr>"
                "<tr><td>Hamburg – Itzehoe</td><td>62 km</td></tr>"
                "<tr><td>Itzehoe – Husum</td><td>71 km</td></tr></table>"
            )
        files[f"OEBPS/{name}"] = _xhtml(heading, body)
    with zipfile.ZipFile(out / "epub-de.epub", "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")  # stored, first
        for name, text in files.items():
            zf.writestr(name, text, compress_type=zipfile.ZIP_DEFLATED)


def _xhtml(title: str, body: str) -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml" '
        f'xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="de"><head><title>{title}</title>'
        f"</head><body>{body}</body></html>"
    )


# Each container format with one member that inflates to 1 GiB of zeros (about 1 MB packed).
BOMB_MEMBERS = {
    "bomb.xlsx": ("[Content_Types].xml", "xl/worksheets/sheet1.xml"),
    "bomb.pptx": ("[Content_Types].xml", "ppt/slides/slide1.xml"),
    "bomb.docx": ("[Content_Types].xml", "word/document.xml"),
    "bomb.odt": ("mimetype", "content.xml"),
    "bomb.ods": ("mimetype", "content.xml"),
    "bomb.odp": ("mimetype", "content.xml"),
    "bomb.epub": ("mimetype", "OEBPS/chapter.xhtml"),
}
_MIMETYPES = {
    ".odt": "application/vnd.oasis.opendocument.text",
    ".ods": "application/vnd.oasis.opendocument.spreadsheet",
    ".odp": "application/vnd.oasis.opendocument.presentation",
    ".epub": "application/epub+zip",
}


def write_bombs(out: Path, inflated: int = 1 << 30) -> None:
    chunk = b"\0" * (1 << 20)
    for name, (first, member) in BOMB_MEMBERS.items():
        suffix = Path(name).suffix
        with zipfile.ZipFile(out / name, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
            if first == "mimetype":
                zf.writestr(zipfile.ZipInfo("mimetype"), _MIMETYPES[suffix])
            else:
                zf.writestr(first, '<?xml version="1.0"?><Types/>')
            with zf.open(member, "w", force_zip64=True) as fh:
                for _ in range(inflated // len(chunk)):
                    fh.write(chunk)


def libreoffice_copies(out: Path) -> None:
    """ODS, ODP and ODT made by LibreOffice from the OOXML files, and the formats workbook
    saved again by it (cached formula values)."""
    soffice = shutil.which("soffice")
    if soffice is None:
        print("[formats] no soffice (Debian: libreoffice-*-nogui): ODF cases skipped")
        return
    jobs = (
        ("xlsx-formats-source.xlsx", "xlsx", "xlsx-formats.xlsx"),
        ("xlsx-merged-cells.xlsx", "ods", "ods-merged-cells.ods"),
        ("xlsx-hidden.xlsx", "ods", "ods-hidden.ods"),
        ("deck-de.pptx", "odp", "deck-de.odp"),
        ("odt-source.docx", "odt", "odt-de.odt"),
    )
    with tempfile.TemporaryDirectory() as tmp:
        for source, fmt, target in jobs:
            subprocess.run(
                [soffice, f"-env:UserInstallation=file://{tmp}/profile", "--headless",
                 "--convert-to", fmt, "--outdir", tmp, str(out / source)],
                capture_output=True, check=True, timeout=300,
            )  # fmt: skip
            shutil.move(str(Path(tmp) / f"{Path(source).stem}.{fmt}"), out / target)


WRITERS: tuple[Callable[[Path], None], ...] = (
    write_csvs, write_two_row_header, write_merged, write_hidden, write_two_tables,
    write_formats, write_big_sheet, write_deck, write_docx, write_epub, write_bombs,
    libreoffice_copies,
)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.formats.generate")
    parser.add_argument("--large", action="store_true", help="also the 200 MB CSV")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for writer in WRITERS:
        writer(OUT)
    if args.large:
        write_large_csv(OUT)
    print(f"[formats] generated files in {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
