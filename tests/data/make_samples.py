"""Generate the extraction sample documents in tests/data/ (committed output).

    .venv/bin/python tests/data/make_samples.py

Needs the dev-only generators reportlab (PDF), python-docx (DOCX) and Pillow
(the scanned-like page). Output is deterministic (reportlab invariant mode,
fixed DOCX core properties), so re-running gives the same bytes and a clean
`git diff`. The 50 MB HTML file is NOT generated here: the test builds it in
memory.

Samples (English and German):
  pricing_en.pdf / preise_de.pdf            one-page pricing + feature tables
  catalog_en_repeat.pdf / katalog_de_repeat.pdf      table over 3 pages, header repeated
  catalog_en_norepeat.pdf / katalog_de_norepeat.pdf  table over 3 pages, header only once
  manual_en.pdf / handbuch_de.pdf           prose manual with headings and lists
  manual_en.md / handbuch_de.md             the same kind of manual as Markdown
  pricing_en.html / preise_de.html          an HTML page with nav, script, table
  pricing_en.docx / preise_de.docx          DOCX: headings, list, tables, caption
  merged_header_de.docx                     DOCX: Title/Subtitle, lists, two header rows marked
                                            w:tblHeader, horizontally and vertically merged cells
  merged_header_de.libreoffice.docx         the same, opened and saved by LibreOffice (real office
                                            output; only with --libreoffice, needs `soffice`
                                            from libreoffice-writer-nogui; tested with 7.4.7)
  merged_header_de.libreoffice.pdf          the same DOCX saved as PDF by LibreOffice (Writer's
                                            PDF export: cell borders as lines, merged cells,
                                            two header rows repeated on each page; --libreoffice)
  wartung_de.libreoffice.docx               DOCX written by LibreOffice from the hand-written
                                            wartung_de.fodt (its own styles: Title/Subtitle based
                                            on "Heading", lists, header rows, spans; --libreoffice)
                                            LibreOffice's output is not byte-stable (ids, dates):
                                            regenerate only when the source changes.
  scanned_en.pdf                            page 1 text, page 2 image only (no text layer)
Hostile:
  hostile/encrypted.pdf    user password required
  hostile/corrupt.pdf      PDF signature, garbage body
  hostile/truncated.pdf    first half of a valid PDF
  hostile/bomb.docx        ZIP whose word/document.xml inflates to 1 GiB (bzip2, <2 KB on disk)
  hostile/binary.txt       binary bytes named .txt
  hostile/empty.txt        0 bytes
  hostile/image.pdf        a PNG image named .pdf
"""

from __future__ import annotations

import io
import sys
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

from reportlab.lib.pagesizes import A4
from reportlab.lib.units import cm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    ListFlowable,
    ListItem,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
from sampledocs import (
    BODY,
    CAPTION,
    H1,
    H2,
    grid_style,
    grid_table,
    pdf_doc,
    running_header,
)

HERE = Path(__file__).resolve().parent
HOSTILE = HERE / "hostile"

GRID = grid_style(9)

# --- content -----------------------------------------------------------------

PRICING = {
    "en": {
        "title": "Pricing and Features",
        "intro": (
            "Acme Cloud is sold in four plans. All prices are per user and month, "
            "billed annually. Taxes are not included."
        ),
        "caption1": "Table 1: Plans and prices",
        "header1": ["Plan", "Price per user", "Storage", "Support"],
        "rows1": [
            ["Free", "0 USD", "5 GB", "Community forum"],
            ["Team", "12 USD", "100 GB", "Email, next business day"],
            ["Business", "25 USD", "1 TB", "Email and phone, 8 hours"],
            ["Enterprise", "45 USD", "Unlimited", "Dedicated manager, 1 hour"],
        ],
        "caption2": "Table 2: Features by plan",
        "header2": ["Feature", "Free", "Team", "Enterprise"],
        "rows2": [
            ["Single sign-on", "No", "Yes", "Yes"],
            ["Audit log", "No", "No", "Yes"],
            ["Backup retention", "7 days", "30 days", "365 days"],
        ],
        "outro": "Contact sales for volume discounts above 500 users.",
    },
    "de": {
        "title": "Preise und Funktionen",
        "intro": (
            "Acme Cloud gibt es in vier Tarifen. Alle Preise gelten pro Nutzer und Monat "
            "bei jährlicher Abrechnung, zzgl. MwSt."
        ),
        "caption1": "Tabelle 1: Tarife und Preise",
        "header1": ["Tarif", "Preis pro Nutzer", "Speicher", "Support"],
        "rows1": [
            ["Kostenlos", "0 €", "5 GB", "Community-Forum"],
            ["Team", "11 €", "100 GB", "E-Mail, nächster Werktag"],
            ["Business", "23 €", "1 TB", "E-Mail und Telefon, 8 Stunden"],
            ["Enterprise", "42 €", "Unbegrenzt", "Persönlicher Ansprechpartner, 1 Stunde"],
        ],
        "caption2": "Tabelle 2: Funktionen nach Tarif",
        "header2": ["Funktion", "Kostenlos", "Team", "Enterprise"],
        "rows2": [
            ["Single Sign-on", "Nein", "Ja", "Ja"],
            ["Audit-Protokoll", "Nein", "Nein", "Ja"],
            ["Aufbewahrung der Backups", "7 Tage", "30 Tage", "365 Tage"],
        ],
        "outro": "Für Mengenrabatte ab 500 Nutzern wenden Sie sich an den Vertrieb.",
    },
}

PRODUCTS_EN = [
    "Rain Shell Jacket",
    "Trail Running Shoe",
    "Down Parka",
    "Merino Base Layer",
    "Hiking Backpack 30 L",
    "Trekking Poles",
    "Softshell Trousers",
    "Fleece Hoodie",
    "Insulated Bottle",
    "Headlamp 400 lm",
    "Camping Stove",
    "Sleeping Bag -5 C",
]
PRODUCTS_DE = [
    "Regenjacke Leicht",
    "Trailrunning-Schuh",
    "Daunenparka",
    "Merino-Funktionsshirt",
    "Wanderrucksack 30 l",
    "Trekkingstöcke",
    "Softshellhose",
    "Fleece-Kapuzenpulli",
    "Isolierflasche",
    "Stirnlampe 400 lm",
    "Campingkocher",
    "Schlafsack -5 °C",
]
REGIONS_EN = ["Northeast", "Midwest", "South", "West", "Pacific", "Mountain", "Alaska"]
REGIONS_DE = ["Nord", "Süd", "Ost", "West", "Mitte", "Alpen", "Küste"]


def catalog_rows(lang: str) -> list[list[str]]:
    products = PRODUCTS_EN if lang == "en" else PRODUCTS_DE
    regions = REGIONS_EN if lang == "en" else REGIONS_DE
    rows = []
    for i, product in enumerate(products):
        for j, region in enumerate(regions):
            price = 49 + (i * 37 + j * 11) % 250
            stock = (i * 131 + j * 71) % 900
            eta = f"{1 + (i + j) % 9} {'days' if lang == 'en' else 'Tage'}"
            if lang == "de":
                rows.append([product, region, f"{price},00 €", str(stock), eta])
            else:
                rows.append([product, region, f"{price}.00", str(stock), eta])
    return rows  # 84 rows -> three A4 pages


CATALOG = {
    "en": {
        "title": "Outdoor Catalogue 2026",
        "intro": "Regional list prices and stock levels of our outdoor range.",
        "caption": "Table 3: Prices and stock by region",
        "header": ["Product", "Region", "Price (USD)", "Stock", "Delivery"],
        "running": "Acme Outdoor - Catalogue 2026",
        "page": "Page {n}",
        "after": "Prices are subject to change without notice.",
    },
    "de": {
        "title": "Outdoor-Katalog 2026",
        "intro": "Regionale Listenpreise und Lagerbestände unseres Outdoor-Sortiments.",
        "caption": "Tabelle 3: Preise und Bestand nach Region",
        "header": ["Produkt", "Region", "Preis (EUR)", "Bestand", "Lieferzeit"],
        "running": "Acme Outdoor - Katalog 2026",
        "page": "Seite {n}",
        "after": "Preisänderungen vorbehalten.",
    },
}

MANUAL = {
    "en": {
        "title": "X17 Pump Operating Manual",
        "sections": [
            (
                "1 Safety",
                [
                    "Disconnect power before opening the cover. Wait 30 seconds until the "
                    "capacitors have discharged. Only trained staff may service the pump.",
                    "Wear gloves and eye protection when handling the inlet filter.",
                ],
                ["Never run the pump dry.", "Keep the air vents free."],
            ),
            (
                "2 Installation",
                [
                    "Mount the pump on a level surface that can carry at least 40 kg. "
                    "Connect the inlet hose first, then the outlet hose.",
                    "The supply voltage must match the rating plate (230 V, 50 Hz).",
                ],
                [],
            ),
            (
                "3 Maintenance",
                [
                    "Check the inlet filter every 500 operating hours and replace it when "
                    "the pressure drop exceeds 0.4 bar.",
                    "Backups of the controller settings are kept for 30 days on the Team "
                    "plan and for 365 days on the Enterprise plan.",
                ],
                ["Clean the filter housing.", "Inspect the seals.", "Log the service date."],
            ),
        ],
    },
    "de": {
        "title": "Betriebsanleitung Pumpe X17",
        "sections": [
            (
                "1 Sicherheit",
                [
                    "Vor dem Öffnen der Abdeckung die Stromversorgung trennen. Danach "
                    "30 Sekunden warten, bis die Kondensatoren entladen sind, z. B. mit "
                    "einem Messgerät prüfen.",
                    "Beim Wechsel des Einlassfilters Handschuhe und Schutzbrille tragen.",
                ],
                ["Die Pumpe nie trocken laufen lassen.", "Lüftungsschlitze freihalten."],
            ),
            (
                "2 Aufstellung",
                [
                    "Die Pumpe auf einer ebenen Fläche montieren, die mindestens 40 kg trägt. "
                    "Zuerst den Zulaufschlauch, dann den Ablaufschlauch anschließen.",
                    "Die Netzspannung muss dem Typenschild entsprechen (230 V, 50 Hz).",
                ],
                [],
            ),
            (
                "3 Wartung",
                [
                    "Den Einlassfilter alle 500 Betriebsstunden prüfen und ersetzen, wenn "
                    "der Druckverlust 0,4 bar übersteigt.",
                    "Dr. Müller vom Kundendienst ist am 3. Oktober nicht erreichbar.",
                ],
                ["Filtergehäuse reinigen.", "Dichtungen prüfen.", "Wartungsdatum eintragen."],
            ),
        ],
    },
}


# --- PDF ---------------------------------------------------------------------


def _doc(path: Path, **kw: object) -> SimpleDocTemplate:
    return pdf_doc(path, margin_cm=2, author="chunkwise tests", **kw)


def _running(text: str, page_fmt: str):  # type: ignore[no-untyped-def]
    return running_header(text, page_fmt, margin_cm=2)


def _table(header: list[str], rows: list[list[str]], repeat: int = 1) -> Table:
    return grid_table(header, rows, GRID, repeat)


def make_pricing_pdf(lang: str, path: Path) -> None:
    p = PRICING[lang]
    story = [
        Paragraph(p["title"], H1),
        Paragraph(p["intro"], BODY),
        Spacer(1, 8),
        Paragraph(p["caption1"], CAPTION),
        _table(p["header1"], p["rows1"]),
        Spacer(1, 12),
        Paragraph(p["caption2"], CAPTION),
        _table(p["header2"], p["rows2"]),
        Spacer(1, 12),
        Paragraph(p["outro"], BODY),
    ]
    run = _running("Acme Cloud", "1")
    _doc(path).build(story, onFirstPage=run, onLaterPages=run)


def make_catalog_pdf(lang: str, path: Path, *, repeat_header: bool) -> None:
    c = CATALOG[lang]
    story = [
        Paragraph(c["title"], H1),
        Paragraph(c["intro"], BODY),
        Spacer(1, 8),
        Paragraph(c["caption"], CAPTION),
        _table(c["header"], catalog_rows(lang), repeat=1 if repeat_header else 0),
        Spacer(1, 12),
        Paragraph(c["after"], BODY),
    ]
    run = _running(c["running"], c["page"])
    _doc(path).build(story, onFirstPage=run, onLaterPages=run)


def make_manual_pdf(lang: str, path: Path) -> None:
    m = MANUAL[lang]
    story: list[object] = [Paragraph(m["title"], H1)]
    for i, (heading, paras, bullets) in enumerate(m["sections"]):
        if i == 2:
            story.append(PageBreak())
        story.append(Paragraph(heading, H2))
        for para in paras:
            story.append(Paragraph(para, BODY))
        if bullets:
            story.append(
                ListFlowable(
                    [ListItem(Paragraph(b, BODY)) for b in bullets],
                    bulletType="bullet",
                    start="\u2022",
                )
            )
    run = _running(m["title"], "- {n} -")
    _doc(path).build(story, onFirstPage=run, onLaterPages=run)  # type: ignore[arg-type]


def _scan_png() -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("L", (800, 1100), 255)
    draw = ImageDraw.Draw(img)
    lines = [
        "WARRANTY TERMS",
        "The warranty covers defects in material",
        "and workmanship for 24 months.",
        "Wear parts such as seals are excluded.",
    ]
    for i, line in enumerate(lines):
        draw.text((80, 100 + 40 * i), line, fill=0)
    for y in range(400, 1000, 30):  # "scan noise": faint lines
        draw.line((80, y, 720, y), fill=200)
    buf = io.BytesIO()
    img.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def make_scanned_pdf(path: Path) -> None:
    from reportlab.lib.utils import ImageReader

    canvas = Canvas(str(path), pagesize=A4, invariant=1)
    canvas.setFont("Helvetica-Bold", 16)
    canvas.drawString(2 * cm, A4[1] - 3 * cm, "Service Report")
    canvas.setFont("Helvetica", 11)
    canvas.drawString(2 * cm, A4[1] - 4 * cm, "The signed warranty sheet follows as a scan.")
    canvas.showPage()
    canvas.drawImage(ImageReader(io.BytesIO(_scan_png())), 0, 0, width=A4[0], height=A4[1])
    canvas.showPage()
    canvas.save()


def make_encrypted_pdf(path: Path) -> None:
    from reportlab.lib import pdfencrypt

    enc = pdfencrypt.StandardEncryption("s3cret", ownerPassword="owner", strength=128)
    canvas = Canvas(str(path), pagesize=A4, invariant=1, encrypt=enc)
    canvas.drawString(2 * cm, A4[1] - 3 * cm, "Confidential price list")
    canvas.showPage()
    canvas.save()


def make_bulk_pdf(path: Path, pages: int = 100, *, tables: bool = True) -> None:
    """The 100-page benchmark document: prose, headings and (optionally) a table per page."""
    story: list[object] = [Paragraph("Benchmark Document", H1)]
    sentence = (
        "The quick brown fox jumps over the lazy dog while the pump keeps running "
        "at 230 V and the inlet filter is checked every 500 hours. "
    )
    for n in range(pages):
        story.append(Paragraph(f"Section {n + 1}", H2))
        for k in range(3):
            story.append(Paragraph(sentence * (3 + (n + k) % 3), BODY))
        if not tables:
            story.append(Paragraph(sentence * 4, BODY))
            story.append(PageBreak())
            continue
        story.append(Paragraph(f"Table {n + 1}: Values of section {n + 1}", CAPTION))
        story.append(
            _table(
                ["Item", "Region", "Price", "Stock"],
                [
                    [f"Item {n}-{r}", REGIONS_EN[r % 7], f"{10 + r}.00", str(r * 7)]
                    for r in range(8)
                ],
            )
        )
        story.append(PageBreak())
    run = _running("Benchmark", "Page {n}")
    _doc(path).build(story, onFirstPage=run, onLaterPages=run)  # type: ignore[arg-type]


# --- Markdown, HTML, DOCX ----------------------------------------------------


def manual_markdown(lang: str) -> str:
    m = MANUAL[lang]
    out = [f"# {m['title']}", ""]
    for heading, paras, bullets in m["sections"]:
        out += [f"## {heading}", ""]
        for para in paras:
            out += [para, ""]
        if bullets:
            out += [f"- {b}" for b in bullets] + [""]
    p = PRICING[lang]
    out += [p["caption1"], "", "| " + " | ".join(p["header1"]) + " |"]
    out += ["| " + " | ".join(["---"] * len(p["header1"])) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in p["rows1"]]
    return "\n".join(out) + "\n"


def pricing_html(lang: str) -> str:
    p = PRICING[lang]

    def table(caption: str, header: list[str], rows: list[list[str]]) -> str:
        head = "".join(f"<th>{h}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
        return (
            f"<table><caption>{caption}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )

    nav = "Startseite | Produkte" if lang == "de" else "Home | Products"
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head><meta charset="utf-8"><title>{p["title"]}</title>
<style>table {{ border-collapse: collapse }}</style>
<script>window.analytics = "tracking-code";</script></head>
<body>
<nav><a href="/">{nav}</a></nav>
<main>
<h1>{p["title"]}</h1>
<p>{p["intro"]}</p>
<h2>{p["caption1"].split(": ", 1)[1]}</h2>
{table(p["caption1"], p["header1"], p["rows1"])}
<h2>{p["caption2"].split(": ", 1)[1]}</h2>
{table(p["caption2"], p["header2"], p["rows2"])}
<p>{p["outro"]}</p>
</main>
<footer>&copy; 2026 Acme &middot; Impressum</footer>
</body></html>
"""


def make_docx(lang: str, path: Path) -> None:
    import docx

    p = PRICING[lang]
    m = MANUAL[lang]
    d = docx.Document()
    d.core_properties.created = datetime(2026, 1, 1)
    d.core_properties.modified = datetime(2026, 1, 1)
    d.core_properties.last_modified_by = "chunkwise tests"
    d.core_properties.author = "chunkwise tests"
    d.add_heading(p["title"], level=1)
    d.add_paragraph(p["intro"])
    for caption, header, rows in (
        (p["caption1"], p["header1"], p["rows1"]),
        (p["caption2"], p["header2"], p["rows2"]),
    ):
        d.add_heading(caption.split(": ", 1)[1], level=2)
        d.add_paragraph(caption, style="Caption")
        t = d.add_table(rows=1 + len(rows), cols=len(header))
        t.style = "Table Grid"
        for j, h in enumerate(header):
            t.rows[0].cells[j].text = h
        for i, row in enumerate(rows, start=1):
            for j, c in enumerate(row):
                t.rows[i].cells[j].text = c
    heading, paras, bullets = m["sections"][0]
    d.add_heading(heading, level=2)
    for para in paras:
        d.add_paragraph(para)
    for b in bullets:
        d.add_paragraph(b, style="List Bullet")
    d.add_paragraph(p["outro"])
    _save_docx(d, path)


def _save_docx(d: Any, path: Path) -> None:
    buf = io.BytesIO()
    d.save(buf)
    # python-docx stamps no dates beyond core properties, but the zip entries
    # carry the current time: rewrite them with a fixed timestamp.
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(2026, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(fixed, src.read(info.filename))
    path.write_bytes(out.getvalue())


# Two header rows marked as repeating header rows (w:tblHeader), a header cell
# spanning two columns (w:gridSpan), header cells spanning both header rows and
# data cells spanning rows (w:vMerge restart/continue) and columns.
TARIFE_DE = [
    ["Basis", "6 €", "60 €", "10 GB", "E-Mail"],
    ["Team", "12 €", "120 €", None, "Telefon, werktags"],  # None: Speicher merged from above
    ["Enterprise", "Preis auf Anfrage", "", "unbegrenzt", "persönliche Ansprechpartnerin"],
]
ERSATZTEILE_DE = {
    "Pumpen": [
        ("Kreiselpumpe KP-100", "10-4410", "2 Tage", "5 Tage", "249,00"),
        ("Kreiselpumpe KP-200", "10-4420", "2 Tage", "5 Tage", "319,00"),
        ("Tauchpumpe TP-50", "10-4450", "3 Tage", "7 Tage", "289,00"),
        ("Tauchpumpe TP-80", "10-4480", "auf Anfrage", "", "389,00"),
        ("Dosierpumpe DP-5", "10-4505", "1 Tag", "4 Tage", "179,00"),
    ],
    "Filter": [
        ("Feinfilter FF-10", "20-1010", "1 Tag", "3 Tage", "24,90"),
        ("Feinfilter FF-20", "20-1020", "1 Tag", "3 Tage", "29,90"),
        ("Grobfilter GF-1", "20-1101", "2 Tage", "6 Tage", "14,50"),
        ("Aktivkohlefilter AK-3", "20-1203", "auf Anfrage", "", "44,00"),
        ("Vorfilter VF-7", "20-1307", "1 Tag", "3 Tage", "9,80"),
    ],
    "Dichtungen": [
        ("O-Ring 20 mm", "30-0020", "1 Tag", "2 Tage", "1,20"),
        ("O-Ring 32 mm", "30-0032", "1 Tag", "2 Tage", "1,60"),
        ("Flachdichtung FD-1", "30-0101", "2 Tage", "4 Tage", "3,40"),
        ("Wellendichtring WD-25", "30-0225", "3 Tage", "8 Tage", "7,90"),
        ("Dichtungssatz DS-KP", "30-0900", "2 Tage", "5 Tage", "19,50"),
    ],
    "Steuerung": [
        ("Steuergerät SG-2", "40-0002", "4 Tage", "10 Tage", "459,00"),
        ("Drucksensor DS-10", "40-0110", "2 Tage", "6 Tage", "89,00"),
        ("Schwimmerschalter SS-1", "40-0201", "1 Tag", "3 Tage", "34,00"),
        ("Kabelsatz KS-5 m", "40-0305", "1 Tag", "3 Tage", "27,50"),
        ("Funkmodul FM-3", "40-0403", "auf Anfrage", "", "129,00"),
    ],
    "Zubehör": [
        ("Schlauch 1 Zoll, 10 m", "50-0110", "1 Tag", "2 Tage", "32,00"),
        ("Schlauchschelle 25 mm", "50-0225", "1 Tag", "2 Tage", "2,10"),
        ("Rückschlagventil RV-1", "50-0301", "2 Tage", "5 Tage", "18,40"),
        ("Wandhalterung WH-2", "50-0402", "3 Tage", "7 Tage", "22,00"),
        ("Transportkoffer TK", "50-0500", "5 Tage", "12 Tage", "64,00"),
    ],
    "Service": [
        ("Wartungsvertrag Basis", "90-0001", "sofort", "", "199,00"),
        ("Wartungsvertrag Plus", "90-0002", "sofort", "", "349,00"),
        ("Vor-Ort-Einsatz je Stunde", "90-0100", "5 Tage", "10 Tage", "95,00"),
        ("Fernwartung je Stunde", "90-0200", "1 Tag", "2 Tage", "65,00"),
        ("Schulung halbtags", "90-0300", "10 Tage", "20 Tage", "480,00"),
    ],
}


def _mark_header_row(row: Any) -> None:
    """w:trPr/w:tblHeader: Word repeats this row at the top of every page."""
    from docx.oxml import OxmlElement

    tr = row._tr
    trpr = tr.get_or_add_trPr()
    trpr.append(OxmlElement("w:tblHeader"))


def _merged_tarife(d: Any) -> None:
    t = d.add_table(rows=2 + len(TARIFE_DE), cols=5)
    t.style = "Table Grid"
    for row in t.rows[:2]:
        _mark_header_row(row)
    cell = t.cell
    cell(0, 0).merge(cell(1, 0)).text = "Tarif"
    cell(0, 1).merge(cell(0, 2)).text = "Preis pro Nutzer"
    cell(0, 3).merge(cell(0, 4)).text = "Leistungen"
    for j, name in ((1, "Monat"), (2, "Jahr"), (3, "Speicher"), (4, "Support")):
        cell(1, j).text = name
    for i, values in enumerate(TARIFE_DE, start=2):
        for j, value in enumerate(values):
            if value is not None and not (j == 2 and values[1] == "Preis auf Anfrage"):
                cell(i, j).text = value
    cell(2 + 1, 3).merge(cell(2, 3))  # "10 GB" for Basis and Team
    cell(2, 3).text = "10 GB"
    cell(4, 1).merge(cell(4, 2)).text = "Preis auf Anfrage"


def _merged_ersatzteile(d: Any) -> None:
    rows = sum(len(parts) for parts in ERSATZTEILE_DE.values())
    t = d.add_table(rows=2 + rows, cols=6)
    t.style = "Table Grid"
    for row in t.rows[:2]:
        _mark_header_row(row)
    cell = t.cell
    for j, name in ((0, "Kategorie"), (1, "Artikel"), (2, "Artikelnummer"), (5, "Preis (€)")):
        cell(0, j).merge(cell(1, j)).text = name
    cell(0, 3).merge(cell(0, 4)).text = "Lieferzeit"
    cell(1, 3).text = "ab Lager"
    cell(1, 4).text = "auf Bestellung"
    i = 2
    for category, parts in ERSATZTEILE_DE.items():
        first = i
        for article, number, stock, order, price in parts:
            for j, value in ((1, article), (2, number), (5, price)):
                cell(i, j).text = value
            if order:
                cell(i, 3).text = stock
                cell(i, 4).text = order
            else:  # one value for both delivery columns
                cell(i, 3).merge(cell(i, 4)).text = stock
            i += 1
        cell(first, 0).merge(cell(i - 1, 0)).text = category


def make_merged_header_docx(path: Path) -> None:
    import docx

    d = docx.Document()
    d.core_properties.created = datetime(2026, 1, 1)
    d.core_properties.modified = datetime(2026, 1, 1)
    d.core_properties.last_modified_by = "chunkwise tests"
    d.core_properties.author = "chunkwise tests"
    d.add_paragraph("Preisliste 2026", style="Title")
    d.add_paragraph("Pumpen, Ersatzteile und Service", style="Subtitle")
    d.add_heading("Tarife", level=1)
    d.add_paragraph(
        "Alle Preise verstehen sich pro Nutzer, zuzüglich Mehrwertsteuer. "
        "Der Jahrespreis gilt bei jährlicher Zahlung im Voraus."
    )
    d.add_paragraph("Tabelle 1: Tarife und Preise", style="Caption")
    _merged_tarife(d)
    d.add_heading("Ersatzteile", level=1)
    d.add_heading("Lieferbare Teile", level=2)
    d.add_paragraph("Tabelle 2: Ersatzteile nach Kategorie", style="Caption")
    _merged_ersatzteile(d)
    d.add_heading("Bestellung", level=1)
    d.add_paragraph("Bestellungen nehmen wir auf drei Wegen an:")
    for way in ("im Webshop", "per E-Mail an bestellung@example.de", "telefonisch"):
        d.add_paragraph(way, style="List Bullet")
    d.add_paragraph("So läuft eine Bestellung ab:")
    for step in ("Artikelnummer heraussuchen", "Menge angeben", "Lieferadresse bestätigen"):
        d.add_paragraph(step, style="List Number")
    d.add_paragraph("Teillieferungen sind möglich.", style="List Bullet 2")
    _save_docx(d, path)


# --- hostile -----------------------------------------------------------------

CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    b'<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    b'<Default Extension="xml" ContentType="application/xml"/>'
    b'<Override PartName="/word/document.xml" ContentType="application/'
    b'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'
)


def make_bomb_docx(path: Path, gib: int = 1) -> None:
    """word/document.xml inflates to `gib` GiB of spaces; about 1 KB on disk (bzip2)."""
    block = b" " * (1 << 20)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_BZIP2, compresslevel=9) as zf:
        ct = zipfile.ZipInfo("[Content_Types].xml", date_time=(2026, 1, 1, 0, 0, 0))
        zf.writestr(ct, CONTENT_TYPES)
        info = zipfile.ZipInfo("word/document.xml", date_time=(2026, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_BZIP2
        with zf.open(info, "w", force_zip64=True) as member:
            for _ in range(gib << 10):
                member.write(block)
    path.write_bytes(buf.getvalue())


def make_hostile() -> None:
    HOSTILE.mkdir(exist_ok=True)
    make_encrypted_pdf(HOSTILE / "encrypted.pdf")
    (HOSTILE / "corrupt.pdf").write_bytes(
        b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
        + bytes((i * 73 + 41) % 256 for i in range(4000))
        + b"\ntrailer\n<< /Root 99 0 R >>\n%%EOF\n"
    )
    valid = (HERE / "pricing_en.pdf").read_bytes()
    (HOSTILE / "truncated.pdf").write_bytes(valid[: len(valid) // 2])
    make_bomb_docx(HOSTILE / "bomb.docx")
    (HOSTILE / "binary.txt").write_bytes(bytes((i * 151 + 7) % 256 for i in range(4096)))
    (HOSTILE / "empty.txt").write_bytes(b"")
    (HOSTILE / "image.pdf").write_bytes(_scan_png())


def libreoffice_docx(source: Path, target: Path, conversion: str = "docx:MS Word 2007 XML") -> None:
    """Open `source` in LibreOffice and save it with LibreOffice's own writer (DOCX, or
    `conversion="pdf:writer_pdf_Export"` for its "Save as PDF")."""
    import shutil
    import subprocess
    import tempfile

    soffice = shutil.which("soffice")
    if soffice is None:
        raise SystemExit("soffice not found: apt-get install libreoffice-writer-nogui")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                soffice,
                f"-env:UserInstallation=file://{tmp}/profile",
                "--headless",
                "--convert-to",
                conversion,
                "--outdir",
                f"{tmp}/out",
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=300,
        )
        suffix = "." + conversion.split(":", 1)[0]
        shutil.copyfile(Path(tmp) / "out" / (source.stem + suffix), target)


def main() -> None:
    if "--libreoffice" in sys.argv[1:]:
        libreoffice_docx(HERE / "merged_header_de.docx", HERE / "merged_header_de.libreoffice.docx")
        libreoffice_docx(HERE / "wartung_de.fodt", HERE / "wartung_de.libreoffice.docx")
        libreoffice_docx(
            HERE / "merged_header_de.docx",
            HERE / "merged_header_de.libreoffice.pdf",
            "pdf:writer_pdf_Export",
        )
        return
    for lang, pricing, catalog, manual in (
        ("en", "pricing_en", "catalog_en", "manual_en"),
        ("de", "preise_de", "katalog_de", "handbuch_de"),
    ):
        make_pricing_pdf(lang, HERE / f"{pricing}.pdf")
        make_catalog_pdf(lang, HERE / f"{catalog}_repeat.pdf", repeat_header=True)
        make_catalog_pdf(lang, HERE / f"{catalog}_norepeat.pdf", repeat_header=False)
        make_manual_pdf(lang, HERE / f"{manual}.pdf")
        (HERE / f"{manual}.md").write_text(manual_markdown(lang), encoding="utf-8")
        (HERE / f"{pricing}.html").write_text(pricing_html(lang), encoding="utf-8")
        make_docx(lang, HERE / f"{pricing}.docx")
    make_merged_header_docx(HERE / "merged_header_de.docx")
    make_scanned_pdf(HERE / "scanned_en.pdf")
    make_hostile()
    for path in sorted(HERE.rglob("*")):
        if path.is_file() and path.suffix != ".py":
            print(f"{path.stat().st_size:>9}  {path.relative_to(HERE)}")


if __name__ == "__main__":
    main()
