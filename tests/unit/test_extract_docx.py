"""DOCX extraction on the generated samples."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkwise.extract import DocFormat, extract

pytest.importorskip("docx")

DATA = Path(__file__).resolve().parents[1] / "data"

EXPECTED = {
    "pricing_en.docx": [
        "# Pricing and Features\n",
        "\n## Plans and prices\n\nTable 1: Plans and prices\n\n"
        "| Plan | Price per user | Storage | Support |\n| --- | --- | --- | --- |\n"
        "| Free | 0 USD | 5 GB | Community forum |\n",
        "| Enterprise | 45 USD | Unlimited | Dedicated manager, 1 hour |\n",
        "Table 2: Features by plan\n\n| Feature | Free | Team | Enterprise |\n",
        "| Single sign-on | No | Yes | Yes |\n",
        "\n## 1 Safety\n",
        "- Never run the pump dry.\n- Keep the air vents free.\n",
    ],
    "preise_de.docx": [
        "# Preise und Funktionen\n",
        "Tabelle 1: Tarife und Preise\n\n| Tarif | Preis pro Nutzer | Speicher | Support |\n",
        "| Kostenlos | 0 € | 5 GB | Community-Forum |\n",
        "| Aufbewahrung der Backups | 7 Tage | 30 Tage | 365 Tage |\n",
        "\n## 1 Sicherheit\n",
        "z. B. mit einem Messgerät prüfen.",
        "- Die Pumpe nie trocken laufen lassen.\n- Lüftungsschlitze freihalten.\n",
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_docx_samples(name: str) -> None:
    r = extract((DATA / name).read_bytes(), filename=name)
    assert r.report.format is DocFormat.DOCX
    for expected in EXPECTED[name]:
        assert expected in r.text, expected
    assert len(r.report.tables) == 2
    for t in r.report.tables:
        assert r.text[t.start : t.end].split("\n", 1)[0] == t.header
        assert t.caption.startswith(("Table", "Tabelle"))


def test_docx_caption_below_table_moves_above() -> None:
    import io

    import docx

    d = docx.Document()
    d.add_heading("Report", level=1)
    t = d.add_table(rows=2, cols=2)
    for (i, j), v in {(0, 0): "A", (0, 1): "B", (1, 0): "1", (1, 1): "2"}.items():
        t.rows[i].cells[j].text = v
    d.add_paragraph("Table 9: Below", style="Caption")
    d.add_paragraph("After.")
    buf = io.BytesIO()
    d.save(buf)
    r = extract(buf.getvalue(), filename="x.docx")
    assert r.text == "# Report\n\nTable 9: Below\n\n| A | B |\n| --- | --- |\n| 1 | 2 |\n\nAfter.\n"


def test_docx_sniffed_by_content_not_name() -> None:
    r = extract((DATA / "pricing_en.docx").read_bytes(), filename="upload.bin")
    assert r.report.format is DocFormat.DOCX


# --- header rows, merged cells, heading levels, lists --------------------------


def _docx_bytes(document: object) -> bytes:
    import io

    buf = io.BytesIO()
    document.save(buf)  # type: ignore[attr-defined]
    return buf.getvalue()


def _repeat_as_header(row: object) -> None:
    from docx.oxml import OxmlElement

    row._tr.get_or_add_trPr().append(OxmlElement("w:tblHeader"))  # type: ignore[attr-defined]


def _price_table(document: object, *, marked_header_rows: int) -> object:
    """Tarif (over both header rows) | Preis (over Monat, Jahr); two data rows."""
    t = document.add_table(rows=4, cols=3)  # type: ignore[attr-defined]
    for row in t.rows[:marked_header_rows]:
        _repeat_as_header(row)
    t.cell(0, 0).merge(t.cell(1, 0)).text = "Tarif"
    t.cell(0, 1).merge(t.cell(0, 2)).text = "Preis"
    t.cell(1, 1).text, t.cell(1, 2).text = "Monat", "Jahr"
    t.cell(2, 0).text, t.cell(2, 1).text, t.cell(2, 2).text = "Basis", "6 €", "60 €"
    t.cell(3, 0).text = "Enterprise"
    t.cell(3, 1).merge(t.cell(3, 2)).text = "auf Anfrage"
    return t


def test_docx_every_tblheader_row_is_in_the_header_line() -> None:
    import docx

    d = docx.Document()
    _price_table(d, marked_header_rows=2)
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text == (
        "| Tarif | Preis / Monat | Preis / Jahr |\n| --- | --- | --- |\n"
        "| Basis | 6 € | 60 € |\n| Enterprise | auf Anfrage | auf Anfrage |\n"
    )
    (table,) = r.report.tables
    assert table.header == "| Tarif | Preis / Monat | Preis / Jahr |"
    assert (table.header_rows, table.rows, table.columns) == (2, 2, 3)


def test_docx_without_tblheader_the_first_row_is_the_header() -> None:
    import docx

    d = docx.Document()
    _price_table(d, marked_header_rows=0)
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text.startswith(
        "| Tarif | Preis | Preis |\n| --- | --- | --- |\n| Tarif | Monat | Jahr |"
    )
    assert r.report.tables[0].header_rows == 1


def test_docx_only_leading_tblheader_rows_form_the_header() -> None:
    import docx

    d = docx.Document()
    t = d.add_table(rows=3, cols=2)
    for i, (a, b) in enumerate([("Name", "Wert"), ("x", "1"), ("y", "2")]):
        t.cell(i, 0).text, t.cell(i, 1).text = a, b
    _repeat_as_header(t.rows[0])
    _repeat_as_header(t.rows[2])  # Word repeats only rows at the top; this one is data
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text == "| Name | Wert |\n| --- | --- |\n| x | 1 |\n| y | 2 |\n"


def test_docx_vertically_merged_cell_is_filled_in_every_row() -> None:
    import docx

    d = docx.Document()
    t = d.add_table(rows=4, cols=3)
    for j, name in enumerate(["Kategorie", "Artikel", "Preis"]):
        t.cell(0, j).text = name
    t.cell(1, 0).merge(t.cell(3, 0)).text = "Filter"
    for i, (article, price) in enumerate(
        [("FF-10", "24,90"), ("FF-20", "29,90"), ("GF-1", "14,50")]
    ):
        t.cell(i + 1, 1).text, t.cell(i + 1, 2).text = article, price
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text.split("\n")[2:5] == [
        "| Filter | FF-10 | 24,90 |",
        "| Filter | FF-20 | 29,90 |",
        "| Filter | GF-1 | 14,50 |",
    ]


def test_docx_row_of_one_cell_across_the_table_is_written_once() -> None:
    import docx

    d = docx.Document()
    t = d.add_table(rows=3, cols=3)
    for j, name in enumerate(["Artikel", "Nummer", "Preis"]):
        t.cell(0, j).text = name
    t.cell(1, 0).merge(t.cell(1, 2)).text = "Zubehör"
    t.cell(2, 0).text, t.cell(2, 1).text, t.cell(2, 2).text = "Schlauch", "50-0110", "32,00"
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text.split("\n")[2:4] == ["| Zubehör |  |  |", "| Schlauch | 50-0110 | 32,00 |"]


def test_docx_title_is_level_one_and_headings_sit_below_it() -> None:
    import docx

    d = docx.Document()
    d.add_paragraph("Preisliste", style="Title")
    d.add_paragraph("Gültig ab Januar", style="Subtitle")
    d.add_heading("Tarife", level=1)
    d.add_paragraph("Text.")
    d.add_heading("Details", level=2)
    d.add_heading("Sehr tief", level=6)
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text == (
        "# Preisliste\n\nGültig ab Januar\n\n## Tarife\n\nText.\n\n"
        "### Details\n\n###### Sehr tief\n"
    )


def test_docx_without_title_heading_one_stays_level_one() -> None:
    import docx

    d = docx.Document()
    d.add_heading("Tarife", level=1)
    d.add_heading("Details", level=2)
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text == "# Tarife\n\n## Details\n"


def test_docx_numbered_and_nested_list_items() -> None:
    import docx

    d = docx.Document()
    for step in ("Nummer suchen", "Menge angeben"):
        d.add_paragraph(step, style="List Number")
    d.add_paragraph("auch Teilmengen", style="List Bullet 2")
    d.add_paragraph("Adresse bestätigen", style="List Number")
    d.add_paragraph("Danach:")
    d.add_paragraph("im Webshop", style="List Bullet")
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text == (
        "1. Nummer suchen\n2. Menge angeben\n  - auch Teilmengen\n3. Adresse bestätigen\n\n"
        "Danach:\n\n- im Webshop\n"
    )


def test_docx_numbering_switched_off_is_a_paragraph() -> None:
    import docx
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    d = docx.Document()
    p = d.add_paragraph("Kein Listenpunkt", style="List Number")
    numpr = OxmlElement("w:numPr")
    num_id = OxmlElement("w:numId")
    num_id.set(qn("w:val"), "0")
    numpr.append(num_id)
    p._p.get_or_add_pPr().append(numpr)
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text == "Kein Listenpunkt\n"


MERGED = "merged_header_de.docx"
MERGED_HEADER_2 = (
    "| Kategorie | Artikel | Artikelnummer | Lieferzeit / ab Lager | Lieferzeit / auf Bestellung"
    " | Preis (€) |"
)


def test_docx_merged_header_sample() -> None:
    r = extract((DATA / MERGED).read_bytes(), filename=MERGED)
    t = r.text
    assert t.startswith("# Preisliste 2026\n\nPumpen, Ersatzteile und Service\n\n## Tarife\n")
    assert "## Ersatzteile\n\n### Lieferbare Teile\n\nTabelle 2: Ersatzteile nach Kategorie\n" in t
    assert (
        "| Tarif | Preis pro Nutzer / Monat | Preis pro Nutzer / Jahr | Leistungen / Speicher"
        " | Leistungen / Support |\n| --- | --- | --- | --- | --- |\n"
        "| Basis | 6 € | 60 € | 10 GB | E-Mail |\n"
        "| Team | 12 € | 120 € | 10 GB | Telefon, werktags |\n"
        "| Enterprise | Preis auf Anfrage | Preis auf Anfrage | unbegrenzt |"
    ) in t
    assert "| Pumpen | Tauchpumpe TP-80 | 10-4480 | auf Anfrage | auf Anfrage | 389,00 |" in t
    assert "| Service | Schulung halbtags | 90-0300 | 10 Tage | 20 Tage | 480,00 |" in t
    assert "1. Artikelnummer heraussuchen\n2. Menge angeben\n3. Lieferadresse bestätigen\n" in t
    assert "\n  - Teillieferungen sind möglich.\n" in t
    t1, t2 = r.report.tables
    assert (t1.header_rows, t1.rows, t2.header_rows, t2.rows) == (2, 3, 2, 30)
    assert t2.header == MERGED_HEADER_2
    assert t2.caption == "Tabelle 2: Ersatzteile nach Kategorie"


def test_docx_merged_header_sample_saved_by_libreoffice_reads_the_same() -> None:
    """The same document after a LibreOffice 7.4 round trip (its own DOCX writer:
    w:tblHeader w:val="true", explicit vMerge "continue", "caption" style, lists
    as direct numbering) gives the same canonical text."""
    ours = extract((DATA / MERGED).read_bytes(), filename=MERGED)
    office = extract((DATA / "merged_header_de.libreoffice.docx").read_bytes(), filename="lo.docx")
    assert office.text == ours.text
    assert [t.header_rows for t in office.report.tables] == [2, 2]


def test_docx_header_row_of_one_cell_across_the_table() -> None:
    """Alone it is a title (written once); above further header rows it names every column."""
    import docx

    for marked, expected in (
        (1, "| Ersatzteile |  |\n| --- | --- |\n| Artikel | Preis |\n| FF-10 | 24,90 |\n"),
        (2, "| Ersatzteile / Artikel | Ersatzteile / Preis |\n| --- | --- |\n| FF-10 | 24,90 |\n"),
    ):
        d = docx.Document()
        t = d.add_table(rows=3, cols=2)
        for row in t.rows[:marked]:
            _repeat_as_header(row)
        t.cell(0, 0).merge(t.cell(0, 1)).text = "Ersatzteile"
        t.cell(1, 0).text, t.cell(1, 1).text = "Artikel", "Preis"
        t.cell(2, 0).text, t.cell(2, 1).text = "FF-10", "24,90"
        assert extract(_docx_bytes(d), filename="x.docx").text == expected


def test_docx_subtitle_based_on_the_title_style_is_still_a_paragraph() -> None:
    import docx

    d = docx.Document()
    d.styles["Subtitle"].base_style = d.styles["Title"]  # as some templates define it
    d.add_paragraph("Preisliste", style="Title")
    d.add_paragraph("Gültig ab Januar", style="Subtitle")
    d.add_heading("Tarife", level=1)
    assert extract(_docx_bytes(d), filename="x.docx").text == (
        "# Preisliste\n\nGültig ab Januar\n\n## Tarife\n"
    )


def test_docx_written_by_libreoffice_from_its_own_document_model() -> None:
    """wartung_de.fodt (LibreOffice's own styles: Title and Subtitle based on its "Heading"
    style, headings numbered by the outline numbering, nested bullets, a numbered list, two
    header rows with row and column spans) saved as DOCX by LibreOffice 7.4.7."""
    name = "wartung_de.libreoffice.docx"
    r = extract((DATA / name).read_bytes(), filename=name)
    assert r.text == (
        "# Wartungshandbuch\n\nKreiselpumpen der Baureihe KP\n\n## 1. Sicherheit\n\n"
        "Vor jeder Wartung die Pumpe vom Netz trennen.\n\n"
        "- Schutzbrille tragen\n- Handschuhe tragen\n  - bei Chemikalien: Nitril\n\n"
        "### 1.1. Ablauf\n\n1. Pumpe ausschalten\n2. Ventile schließen\n3. Gehäuse öffnen\n\n"
        "## 2. Intervalle\n\n"
        "| Bauteil | Intervall / Prüfen | Intervall / Tauschen | Hinweis |\n"
        "| --- | --- | --- | --- |\n"
        "| Gleitringdichtung | monatlich | jährlich | nur Originalteile |\n"
        "| Laufrad | bei Geräuschen | bei Geräuschen | nur Originalteile |\n"
    )
    assert r.report.tables[0].header_rows == 2


def test_docx_no_break_spaces_are_kept_in_text_and_cells() -> None:
    import docx

    d = docx.Document()
    d.add_paragraph("Preis:  10\u00a0000\u00a0€ für 12\u202fkg")
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Gewicht", "\u00a0"
    t.cell(1, 0).text, t.cell(1, 1).text = "12\u00a0kg", "x"
    r = extract(_docx_bytes(d), filename="x.docx")
    assert r.text == (
        "Preis: 10\u00a0000\u00a0€ für 12\u202fkg\n\n"
        "| Gewicht |  |\n| --- | --- |\n| 12\u00a0kg | x |\n"
    )


def test_docx_list_styles_by_name() -> None:
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    d = docx.Document()
    for name in ("Listenabsatz", "Listing"):
        d.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
    d.add_paragraph("Erster Punkt", style="Listenabsatz")
    d.add_paragraph("Zweiter Punkt", style="Listenabsatz")
    d.add_paragraph("print(42)", style="Listing")  # a code listing, not a list
    assert extract(_docx_bytes(d), filename="x.docx").text == (
        "- Erster Punkt\n- Zweiter Punkt\n\nprint(42)\n"
    )


def _add_numbering(document: object, num_id: int, levels: list[tuple[str, str]]) -> None:
    """A w:abstractNum + w:num with the given (numFmt, lvlText) per level."""
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    lvls = "".join(
        f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/>'
        f'<w:lvlText w:val="{text}"/></w:lvl>'
        for i, (fmt, text) in enumerate(levels)
    )
    root = document.part.numbering_part.element  # type: ignore[attr-defined]
    root.insert(
        0, parse_xml(f'<w:abstractNum {w} w:abstractNumId="{num_id}">{lvls}</w:abstractNum>')
    )
    root.append(
        parse_xml(f'<w:num {w} w:numId="{num_id}"><w:abstractNumId w:val="{num_id}"/></w:num>')
    )


def _number(paragraph: object, num_id: int, ilvl: int) -> None:
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    paragraph._p.get_or_add_pPr().append(  # type: ignore[attr-defined]
        parse_xml(f'<w:numPr {w}><w:ilvl w:val="{ilvl}"/><w:numId w:val="{num_id}"/></w:numPr>')
    )


def test_docx_numbered_headings_carry_their_number() -> None:
    """Word keeps a numbered heading's number out of the text ("2.1 Auswahl")."""
    import docx

    d = docx.Document()
    _add_numbering(d, 90, [("decimal", "%1."), ("decimal", "%1.%2"), ("lowerLetter", "%3)")])
    _add_numbering(d, 91, [("upperRoman", "Teil %1")])
    _number(d.add_heading("Grundlagen", level=1), 91, 0)
    for title, level in [
        ("Einleitung", 1), ("Zweck", 2), ("Umfang", 2), ("Details", 3),
        ("Pakete", 1), ("Auswahl", 2),
    ]:  # fmt: skip
        _number(d.add_heading(title, level=level), 90, level - 1)
    d.add_heading("Anhang", level=1)  # not numbered
    assert extract(_docx_bytes(d), filename="x.docx").text == (
        "# Teil I Grundlagen\n\n# 1. Einleitung\n\n## 1.1 Zweck\n\n## 1.2 Umfang\n\n"
        "### a) Details\n\n# 2. Pakete\n\n## 2.1 Auswahl\n\n# Anhang\n"
    )


def _wrap_in_content_control(paragraphs: list[object], gallery: str = "") -> None:
    """Move the paragraphs into one body-level w:sdt (as Word's cover pages and TOCs are)."""
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    part = f'<w:docPartObj><w:docPartGallery w:val="{gallery}"/></w:docPartObj>' if gallery else ""
    sdt = parse_xml(f"<w:sdt {w}><w:sdtPr>{part}</w:sdtPr><w:sdtContent/></w:sdt>")
    first = paragraphs[0]._p  # type: ignore[attr-defined]
    first.addprevious(sdt)
    content = sdt[1]
    for paragraph in paragraphs:
        content.append(paragraph._p)  # type: ignore[attr-defined]


def test_docx_content_controls_are_read_and_tables_of_contents_skipped() -> None:
    import docx
    from docx.enum.style import WD_STYLE_TYPE

    d = docx.Document()
    names = {style.name for style in d.styles}
    for name in ("TOC Heading", "toc 1", "Contents 1"):
        if name not in names:
            d.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
    cover = [
        d.add_paragraph("Preisliste 2026", style="Title"),
        d.add_paragraph("Pumpen und Service", style="Subtitle"),
    ]
    toc = [
        d.add_paragraph("Inhalt", style="TOC Heading"),
        d.add_paragraph("Tarife\t3", style="toc 1"),
    ]
    d.add_paragraph("Tarife\t3", style="Contents 1")  # LibreOffice: a field, no content control
    d.add_heading("Tarife", level=1)
    d.add_paragraph("Alle Preise pro Nutzer.")
    _wrap_in_content_control(cover, gallery="Cover Pages")
    _wrap_in_content_control(toc, gallery="Table of Contents")
    assert extract(_docx_bytes(d), filename="x.docx").text == (
        "# Preisliste 2026\n\nPumpen und Service\n\n## Tarife\n\nAlle Preise pro Nutzer.\n"
    )


def test_docx_hostile_spans_are_capped_at_the_table_column_limit() -> None:
    import docx
    from docx.oxml import parse_xml

    from chunkwise.extract.tables import MAX_TABLE_COLUMNS

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    d = docx.Document()
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "A", "B"
    t.cell(1, 0).text, t.cell(1, 1).text = "1", "2"
    t.rows[1]._tr.get_or_add_trPr().append(parse_xml(f'<w:gridBefore {w} w:val="1000000000"/>'))
    t.cell(0, 1)._tc.get_or_add_tcPr().append(parse_xml(f'<w:gridSpan {w} w:val="99999999"/>'))
    r = extract(_docx_bytes(d), filename="x.docx")
    # the data row's cells start beyond the last column read: nothing of it is left
    header, _separator = r.text.rstrip("\n").split("\n")
    assert header.count(" | ") + 1 == MAX_TABLE_COLUMNS
    assert header.startswith("| A | B | B |")
