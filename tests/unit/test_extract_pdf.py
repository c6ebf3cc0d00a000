"""PDF extraction on the generated samples in tests/data/ (see make_samples.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chunkwise.extract import CANONICAL_VERSION, DocFormat, Extraction, extract

pytest.importorskip("pdfplumber")

DATA = Path(__file__).resolve().parents[1] / "data"


def run(name: str) -> Extraction:
    return extract((DATA / name).read_bytes(), filename=name)


def table_blocks(text: str) -> list[list[str]]:
    """GFM tables of a canonical text as lists of lines."""
    blocks = [b.split("\n") for b in text.split("\n\n")]
    return [b for b in blocks if len(b) >= 2 and re.fullmatch(r"\| (?:--- \| )*--- \|", b[1])]


def assert_offsets(r: Extraction) -> None:
    for t in r.report.tables:
        assert r.text[t.start : t.end].split("\n", 1)[0] == t.header


PRICING = {
    "pricing_en.pdf": {
        "title": "# Pricing and Features",
        "captions": ["Table 1: Plans and prices", "Table 2: Features by plan"],
        "headers": [
            "| Plan | Price per user | Storage | Support |",
            "| Feature | Free | Team | Enterprise |",
        ],
        "rows": [
            "| Enterprise | 45 USD | Unlimited | Dedicated manager, 1 hour |",
            "| Single sign-on | No | Yes | Yes |",
            "| Backup retention | 7 days | 30 days | 365 days |",
        ],
        "prose": ["billed annually. Taxes are not included.", "above 500 users."],
    },
    "preise_de.pdf": {
        "title": "# Preise und Funktionen",
        "captions": ["Tabelle 1: Tarife und Preise", "Tabelle 2: Funktionen nach Tarif"],
        "headers": [
            "| Tarif | Preis pro Nutzer | Speicher | Support |",
            "| Funktion | Kostenlos | Team | Enterprise |",
        ],
        "rows": [
            "| Enterprise | 42 € | Unbegrenzt | Persönlicher Ansprechpartner, 1 Stunde |",
            "| Single Sign-on | Nein | Ja | Ja |",
            "| Aufbewahrung der Backups | 7 Tage | 30 Tage | 365 Tage |",
        ],
        "prose": ["bei jährlicher Abrechnung, zzgl. MwSt.", "wenden Sie sich an den Vertrieb."],
    },
}


@pytest.mark.parametrize("name", sorted(PRICING))
def test_one_page_pricing_tables(name: str) -> None:
    exp = PRICING[name]
    r = run(name)
    t = r.text
    assert r.report.format is DocFormat.PDF
    assert r.report.pages == 1
    assert t.startswith("## Page 1\n\n")
    assert f"\n{exp['title']}\n" in t
    for caption, header in zip(exp["captions"], exp["headers"], strict=True):
        # caption paragraph directly before its table, header right after it
        assert f"\n\n{caption}\n\n{header}\n| --- |" in t
    for row in exp["rows"]:
        assert f"\n{row}\n" in t
    for prose in exp["prose"]:
        assert prose in t
    assert [tb.header for tb in r.report.tables] == exp["headers"]
    assert [tb.caption for tb in r.report.tables] == exp["captions"]
    assert r.report.tables_found == 2 and r.report.tables_stitched == 0
    assert [len(tb) - 2 for tb in table_blocks(t)] == [4, 3]
    assert_offsets(r)


CATALOG = {
    "catalog_en_repeat.pdf": ("| Product | Region | Price (USD) | Stock | Delivery |", 2),
    "catalog_en_norepeat.pdf": ("| Product | Region | Price (USD) | Stock | Delivery |", 0),
    "katalog_de_repeat.pdf": ("| Produkt | Region | Preis (EUR) | Bestand | Lieferzeit |", 2),
    "katalog_de_norepeat.pdf": ("| Produkt | Region | Preis (EUR) | Bestand | Lieferzeit |", 0),
}


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_three_page_table_is_one_table_with_one_header(name: str) -> None:
    header, dropped = CATALOG[name]
    r = run(name)
    t = r.text
    assert r.report.pages == 3
    tables = table_blocks(t)
    assert len(tables) == 1, "the three fragments must come out as ONE table"
    table = tables[0]
    assert table[0] == header
    assert t.count(header) == 1, "exactly one header row"
    assert len(table) == 2 + 84  # header + separator + all 84 data rows, none lost
    assert len(r.report.tables) == 1
    info = r.report.tables[0]
    assert (info.page_start, info.page_end, info.fragments) == (1, 3, 3)
    assert info.rows == 84
    assert info.repeated_headers_dropped == dropped
    assert r.report.tables_found == 3 and r.report.tables_stitched == 1
    # the table sits right after the anchor of its first page; no anchor inside it
    first, last = (
        ("Rain Shell Jacket", "Sleeping Bag -5 C")
        if "_en_" in name
        else (
            "Regenjacke Leicht",
            "Schlafsack -5 °C",
        )
    )
    assert table[2].startswith(f"| {first} |") and table[-1].startswith(f"| {last} |")
    assert t.index("## Page 1") < info.start < t.index("## Page 2") < t.index("## Page 3")
    caption = (
        "Table 3: Prices and stock by region"
        if "_en_" in name
        else ("Tabelle 3: Preise und Bestand nach Region")
    )
    assert f"\n\n{caption}\n\n{header}\n" in t
    # running header and page numbers are gone
    for running in ("Acme Outdoor", "Page 2", "Seite 2"):
        assert running not in t.replace("## Page 2", "")
    assert r.report.headers_footers_removed >= 6
    assert_offsets(r)


MANUAL = {
    "manual_en.pdf": [
        "# X17 Pump Operating Manual",
        "### 1 Safety",
        "### 2 Installation",
        "### 3 Maintenance",
        "Disconnect power before opening the cover. Wait 30 seconds until the capacitors "
        "have discharged. Only trained staff may service the pump.",
        "- Never run the pump dry.\n- Keep the air vents free.",
        "- Clean the filter housing.\n- Inspect the seals.\n- Log the service date.",
    ],
    "handbuch_de.pdf": [
        "# Betriebsanleitung Pumpe X17",
        "### 1 Sicherheit",
        "### 3 Wartung",
        "Danach 30 Sekunden warten, bis die Kondensatoren entladen sind, z. B. mit einem "
        "Messgerät prüfen.",
        "Dr. Müller vom Kundendienst ist am 3. Oktober nicht erreichbar.",
        "- Filtergehäuse reinigen.\n- Dichtungen prüfen.\n- Wartungsdatum eintragen.",
    ],
}


# Each section's blocks in the order the page sets them: a list stays below the
# paragraph before it and above the next heading.
MANUAL_ORDER = {
    "manual_en.pdf": [
        "# X17 Pump Operating Manual",
        "### 1 Safety",
        "Wear gloves and eye protection",
        "- Never run the pump dry.",
        "### 2 Installation",
        "## Page 2",
        "### 3 Maintenance",
        "Backups of the controller settings",
        "- Clean the filter housing.",
    ],
    "handbuch_de.pdf": [
        "# Betriebsanleitung Pumpe X17",
        "### 1 Sicherheit",
        "## Page 2",
        "### 3 Wartung",
        "- Filtergehäuse reinigen.",
    ],
}


@pytest.mark.parametrize("name", sorted(MANUAL_ORDER))
def test_manual_blocks_keep_the_page_order(name: str) -> None:
    text = run(name).text
    positions = [text.find(snippet) for snippet in MANUAL_ORDER[name]]
    assert -1 not in positions, [
        s for s, p in zip(MANUAL_ORDER[name], positions, strict=True) if p < 0
    ]
    assert positions == sorted(positions), text[:600]


@pytest.mark.parametrize("name", sorted(MANUAL))
def test_prose_manual_headings_paragraphs_lists(name: str) -> None:
    r = run(name)
    for expected in MANUAL[name]:
        assert f"{expected}\n" in r.text, expected
    assert r.text.count("## Page ") == 2
    # running header (title in the top margin) and "- N -" page numbers removed
    assert r.text.count(MANUAL[name][0][2:]) == 1
    assert "- 1 -" not in r.text and "- 2 -" not in r.text


def test_image_only_page_is_reported_not_dropped() -> None:
    r = run("scanned_en.pdf")
    assert r.report.pages == 2
    assert r.report.pages_without_text == [2]
    assert r.report.ocr_pages == []
    assert r.text.rstrip().endswith("## Page 2")
    assert "# Service Report" in r.text
    assert any("page 2" in w and "no text layer" in w for w in r.report.warnings)


class FakeOcrPort:
    """A fake OCR port for tests: records calls, returns a canned transcript."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls: list[tuple[int, bytes]] = []

    def transcribe(self, page_image_png: bytes, page_number: int) -> str:
        self.calls.append((page_number, page_image_png))
        return self.text


def test_image_only_page_with_fake_ocr_port() -> None:
    fake = FakeOcrPort("WARRANTY TERMS\n\n# The warranty covers\ndefects for 24 months.")
    r = extract((DATA / "scanned_en.pdf").read_bytes(), filename="scanned_en.pdf", ocr=fake)
    assert [n for n, _ in fake.calls] == [2]
    assert fake.calls[0][1].startswith(b"\x89PNG")
    assert r.report.ocr_pages == [2]
    assert r.report.pages_without_text == [2]
    tail = r.text[r.text.index("## Page 2") :]
    assert tail == (
        "## Page 2\n\n### Page 2 (transcribed by OCR)\n\nWARRANTY TERMS\n\n"
        "\\# The warranty covers defects for 24 months.\n"
    )


def test_ocr_budget_respected() -> None:
    from chunkwise.extract import ExtractLimits

    fake = FakeOcrPort("x")
    r = extract(
        (DATA / "scanned_en.pdf").read_bytes(), ocr=fake, limits=ExtractLimits(max_ocr_pages=0)
    )
    assert fake.calls == []
    assert any("max_ocr_pages" in w for w in r.report.warnings)


def test_report_json_and_hash_are_deterministic() -> None:
    a, b = run("pricing_en.pdf"), run("pricing_en.pdf")
    assert a.text == b.text and a.content_sha256 == b.content_sha256
    assert a.report_json() == b.report_json()
    assert '"pdfplumber"' in a.report_json()
    assert f'"canonical_version": {CANONICAL_VERSION}' in a.report_json()


@pytest.mark.parametrize("name", ["manual_en.pdf", "handbuch_de.pdf", "scanned_en.pdf"])
def test_pdfium_fast_path_gives_the_same_text_as_pdfplumber(name: str) -> None:
    """Pages without vector paths are read by PDFium; the output must not change."""
    import time

    from chunkwise.extract import ExtractLimits
    from chunkwise.extract.model import ExtractionReport
    from chunkwise.extract.pdf import extract_pdf

    data = (DATA / name).read_bytes()
    texts = {}
    for fast in (True, False):
        report = ExtractionReport(format=DocFormat.PDF, source_bytes=len(data), source_sha256="")
        texts[fast] = extract_pdf(
            data,
            report=report,
            limits=ExtractLimits(),
            ocr=None,
            deadline=time.monotonic() + 60,
            fast_text=fast,
        )
        expected_reader = "pdfium" if fast else "pdfplumber"
        assert report.page_readers[expected_reader] == 2
    assert texts[True] == texts[False]


def test_table_pages_are_read_by_pdfplumber() -> None:
    r = run("catalog_en_repeat.pdf")
    assert r.report.page_readers == {"pdfium": 0, "pdfplumber": 3}
