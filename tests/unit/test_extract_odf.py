"""OpenDocument: ODT headings, lists, tables, notes; ODS sheets with repeats, merges
and hidden parts; ODP slides like PPTX; safe XML; password-protected documents."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

from chunkwise import chunk_text
from chunkwise.extract import (
    CorruptDocument,
    DocFormat,
    EncryptedDocument,
    ExtractLimits,
    LimitExceeded,
    extract,
)
from tests.odf_files import odf

DATA = Path(__file__).resolve().parents[1] / "data"

LIST_STYLES = (
    '<text:list-style style:name="Bul"><text:list-level-style-bullet text:level="1" '
    'text:bullet-char="•"/><text:list-level-style-bullet text:level="2" text:bullet-char="◦"/>'
    '</text:list-style><text:list-style style:name="Num"><text:list-level-style-number '
    'text:level="1" style:num-format="1" style:num-suffix="."/></text:list-style>'
    '<text:list-style style:name="Plain"><text:list-level-style-number text:level="1" '
    'style:num-format=""/></text:list-style>'
)
OUTLINE = (
    '<text:outline-style style:name="Outline"><text:outline-level-style text:level="1" '
    'style:num-format="1" style:num-suffix="."/><text:outline-level-style text:level="2" '
    'style:num-format="1" style:num-suffix="." text:display-levels="2"/></text:outline-style>'
)
TITLE_STYLE = (
    '<style:style style:name="Title" style:display-name="Title" style:family="paragraph"/>'
    '<style:style style:name="Subtitle" style:display-name="Subtitle" style:family="paragraph"/>'
)


def text_of(data: bytes, name: str) -> str:
    return extract(data, filename=name).text


# ----------------------------------------------------------------------------- ODT


def test_odt_headings_with_their_numbers_under_a_title() -> None:
    body = (
        '<text:p text:style-name="P1">Wartungshandbuch</text:p>'
        '<text:p text:style-name="Subtitle">Baureihe KP</text:p>'
        '<text:h text:outline-level="1">Sicherheit</text:h><text:p>Netz trennen.</text:p>'
        '<text:h text:outline-level="2">Ablauf</text:h><text:p>Ventile schließen.</text:p>'
        '<text:h text:outline-level="1">Intervalle</text:h>'
    )
    automatic = (
        '<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Title"/>'
    )
    result = extract(
        odf("text", body, automatic=automatic, styles=TITLE_STYLE + OUTLINE), filename="h.odt"
    )
    assert result.report.format is DocFormat.ODT
    assert result.text == (
        "# Wartungshandbuch\n\nBaureihe KP\n\n## 1. Sicherheit\n\nNetz trennen.\n\n"
        "### 1.1. Ablauf\n\nVentile schließen.\n\n## 2. Intervalle\n"
    )


def test_odt_lists_by_their_styles_nested_and_plain() -> None:
    body = (
        '<text:list text:style-name="Bul"><text:list-item><text:p>Schutzbrille</text:p>'
        "<text:list><text:list-item><text:p>bei Chemikalien</text:p></text:list-item></text:list>"
        "</text:list-item><text:list-header><text:p>ohne Zeichen</text:p></text:list-header>"
        '</text:list><text:list text:style-name="Num"><text:list-item><text:p>ausschalten</text:p>'
        "</text:list-item><text:list-item><text:p>öffnen</text:p></text:list-item></text:list>"
        '<text:list text:style-name="Plain"><text:list-item><text:p>nur eingerückt</text:p>'
        "</text:list-item></text:list>"
    )
    assert text_of(odf("text", body, styles=LIST_STYLES), "l.odt") == (
        "- Schutzbrille\n  - bei Chemikalien\n\nohne Zeichen\n\n1. ausschalten\n2. öffnen"
        "\n\nnur eingerückt\n"
    )


def test_odt_table_header_rows_spans_and_repeats() -> None:
    body = (
        "<table:table><table:table-column table:number-columns-repeated='3'/>"
        "<table:table-header-rows><table:table-row>"
        "<table:table-cell table:number-rows-spanned='2'><text:p>Bauteil</text:p>"
        "</table:table-cell>"
        "<table:table-cell table:number-columns-spanned='2'><text:p>Intervall</text:p>"
        "</table:table-cell><table:covered-table-cell/></table:table-row><table:table-row>"
        "<table:covered-table-cell/><table:table-cell><text:p>Prüfen</text:p></table:table-cell>"
        "<table:table-cell><text:p>Tauschen</text:p></table:table-cell></table:table-row>"
        "</table:table-header-rows><table:table-row table:number-rows-repeated='2'>"
        "<table:table-cell><text:p>Dichtung</text:p></table:table-cell>"
        "<table:table-cell table:number-columns-repeated='2'><text:p>jährlich</text:p>"
        "</table:table-cell></table:table-row>"
        "<table:table-row table:number-rows-repeated='100000'>"
        "<table:table-cell table:number-columns-repeated='3'/></table:table-row></table:table>"
    )
    result = extract(odf("text", body), filename="t.odt")
    assert result.text == (
        "| Bauteil | Intervall / Prüfen | Intervall / Tauschen |\n| --- | --- | --- |\n"
        "| Dichtung | jährlich | jährlich |\n| Dichtung | jährlich | jährlich |\n"
    )
    (table,) = result.report.tables
    assert (table.header_rows, table.rows, table.start) == (2, 2, 0)


def test_odt_table_without_marked_header_takes_the_first_row() -> None:
    body = (
        "<table:table><table:table-row><table:table-cell><text:p>Jahr</text:p></table:table-cell>"
        "<table:table-cell><text:p>2024</text:p></table:table-cell></table:table-row>"
        "<table:table-row><table:table-cell><text:p>Umsatz</text:p></table:table-cell>"
        "<table:table-cell><text:p>14,1</text:p></table:table-cell></table:table-row></table:table>"
    )
    assert text_of(odf("text", body), "t.odt").startswith("| Jahr | 2024 |\n| --- | --- |\n")


def test_odt_inline_rules_notes_text_boxes_and_what_is_not_content() -> None:
    body = (
        "<text:table-of-content><text:index-body><text:p>Sicherheit 3</text:p></text:index-body>"
        "</text:table-of-content>"
        "<text:p>Erst <text:s text:c='2'/>dann<text:tab/>so<text:line-break/>neue Zeile"
        "<text:note text:note-class='footnote'><text:note-citation>1</text:note-citation>"
        "<text:note-body><text:p>Fußnote zum Absatz.</text:p></text:note-body></text:note>"
        "<office:annotation><text:p>Kommentar</text:p></office:annotation>"
        "<draw:frame><draw:text-box><text:p>Text im Rahmen</text:p></draw:text-box></draw:frame>"
        "<draw:frame><draw:image xlink:href='Pictures/a.png'/></draw:frame>.</text:p>"
        "<text:tracked-changes><text:changed-region><text:deletion><text:p>gelöscht</text:p>"
        "</text:deletion></text:changed-region></text:tracked-changes>"
        "<text:section><text:p>In einem Bereich.</text:p></text:section>"
    )
    result = extract(odf("text", body), filename="n.odt")
    assert result.text == (
        "Erst dann so\nneue Zeile.\n\nFußnote zum Absatz.\n\nText im Rahmen\n\nIn einem Bereich.\n"
    )
    assert "1 picture(s) and 0 embedded object(s) not read" in result.report.warnings


def test_odt_from_libreoffice_reads_like_its_docx() -> None:
    """The same document saved by LibreOffice as DOCX and as ODT gives the same text."""
    odt = text_of((DATA / "wartung_de.libreoffice.odt").read_bytes(), "w.odt")
    docx = text_of((DATA / "wartung_de.libreoffice.docx").read_bytes(), "w.docx")
    assert odt == docx
    assert "## 1. Sicherheit" in odt and "| Bauteil | Intervall / Prüfen |" in odt


# ----------------------------------------------------------------------------- safety


def test_password_protected_odf_is_encrypted() -> None:
    manifest = (
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
        "<manifest:encryption-data/></manifest:file-entry>"
    )
    for kind, ext in (("text", "odt"), ("spreadsheet", "ods"), ("presentation", "odp")):
        with pytest.raises(EncryptedDocument):
            extract(odf(kind, "", manifest=manifest), filename=f"secret.{ext}")


BILLION_LAUGHS = (
    '<!DOCTYPE office:document-content [<!ENTITY lol "lol">'
    + "".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">'
        for i in range(1, 10)
    )
    + '<!ENTITY ext SYSTEM "file:///etc/passwd">]>'
)


@pytest.mark.parametrize(
    "kind,ext,body",
    [
        ("text", "odt", "<text:p>Vorher &lol9; &ext; nachher</text:p>"),
        ("spreadsheet", "ods", "<table:table table:name='S'><table:table-row><table:table-cell>"
         "<text:p>a &lol9; &ext;</text:p></table:table-cell><table:table-cell><text:p>b</text:p>"
         "</table:table-cell></table:table-row></table:table>"),
        ("presentation", "odp", "<draw:page><draw:frame><draw:text-box><text:p>x &lol9; &ext;"
         "</text:p></draw:text-box></draw:frame></draw:page>"),
    ],
)  # fmt: skip
def test_entities_are_never_expanded_nor_fetched(kind: str, ext: str, body: str) -> None:
    """libxml2 refuses the amplification itself (a typed CorruptDocument); a file
    with one harmless entity reads, its reference left out, nothing fetched."""
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        with pytest.raises(CorruptDocument) as e:
            extract(odf(kind, body, doctype=BILLION_LAUGHS), filename=f"laughs.{ext}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 2 and peak < 50 << 20
    assert "amplification" in e.value.reason
    single = '<!DOCTYPE x [<!ENTITY a "AAAA"><!ENTITY ext SYSTEM "file:///etc/passwd">]>'
    text = extract(
        odf(kind, body.replace("&lol9;", "&a;"), doctype=single), filename=f"e.{ext}"
    ).text
    assert "AAAA" not in text and "root:" not in text


# ----------------------------------------------------------------------------- ODS


def _row(*cells: str, attrs: str = "") -> str:
    return f"<table:table-row {attrs}>{''.join(cells)}</table:table-row>"


def _cell(text: str, kind: str = "string", attrs: str = "") -> str:
    cell = f"<table:table-cell office:value-type='{kind}' {attrs}>"
    return f"{cell}<text:p>{text}</text:p></table:table-cell>"


TAIL = (
    "<table:table-row table:number-rows-repeated='1048570'>"
    "<table:table-cell table:number-columns-repeated='16384'/></table:table-row>"
)
HIDDEN_STYLE = (
    '<style:style style:name="ta2" style:family="table"><style:table-properties '
    'table:display="false"/></style:style>'
)


def test_ods_sheets_displayed_values_and_a_million_repeated_empty_rows() -> None:
    sheet = (
        "<table:table table:name='Preise'>"
        "<table:table-column table:number-columns-repeated='16384'/>"
        + _row(_cell("Artikel"), _cell("Preis"), _cell("Rabatt"),
               "<table:table-cell table:number-columns-repeated='16381'/>")
        + _row(_cell("Pumpe"), _cell("1.234,50 €", "currency", "office:value='1234.5'"),
               _cell("12,5 %", "percentage", "office:value='0.125'"))
        + _row(_cell("Filter"), "<table:table-cell office:value-type='float' office:value='12'/>",
               _cell("5 %", "percentage"))
        + TAIL + "</table:table>"
    )  # fmt: skip
    hidden = (
        "<table:table table:name='Geheim' table:style-name='ta2'>"
        + _row(_cell("Marge"))
        + "</table:table>"
    )
    data = odf("spreadsheet", sheet + hidden, automatic=HIDDEN_STYLE)
    tracemalloc.start()
    t0 = time.monotonic()
    try:
        result = extract(data, filename="p.ods")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 2 and peak < 50 << 20
    assert result.report.format is DocFormat.ODS
    assert result.text == (
        "# Preise\n\n| Artikel | Preis | Rabatt |\n| --- | --- | --- |\n"
        "| Pumpe | 1.234,50 € | 12,5 % |\n| Filter | 12 | 5 % |\n"
    )
    assert "Marge" not in result.text and "hidden sheet 'Geheim' left out" in result.report.warnings
    assert [(s.name, s.read) for s in result.report.sheets] == [("Preise", True), ("Geheim", False)]
    assert result.report.tables[0].sheet == "Preise"


def test_ods_merged_cells_filled_and_hidden_rows_and_columns_left_out() -> None:
    sheet = (
        "<table:table table:name='Lager'><table:table-column/>"
        "<table:table-column table:visibility='collapse'/>"
        "<table:table-column table:number-columns-repeated='2'/>"
        + _row(_cell("Standort"), _cell("intern"), _cell("Artikel"), _cell("Bestand"))
        + _row(_cell("Hamburg", attrs="table:number-rows-spanned='2'"), _cell("x"),
               _cell("Palette"),
               _cell("40", "float"))
        + _row("<table:covered-table-cell/>", _cell("y"), _cell("Gitterbox"), _cell("12", "float"))
        + _row(_cell("Leipzig"), _cell("z"), _cell("geheim"), _cell("1", "float"),
               attrs="table:visibility='collapse'")
        + _row(_cell("Leipzig"), _cell("w"),
               _cell("ausverkauft", attrs="table:number-columns-spanned='2'"),
               "<table:covered-table-cell/>")
        + "</table:table>"
    )  # fmt: skip
    result = extract(odf("spreadsheet", sheet), filename="m.ods")
    assert result.text.split("\n")[2:-1] == [
        "| Standort | Artikel | Bestand |",
        "| --- | --- | --- |",
        "| Hamburg | Palette | 40 |",
        "| Hamburg | Gitterbox | 12 |",
        "| Leipzig | ausverkauft | ausverkauft |",
    ]
    (info,) = result.report.sheets
    assert (info.hidden_rows, info.hidden_columns) == (1, 1)
    assert (
        "sheet 'Lager': 1 hidden row(s) and 1 hidden column(s) left out" in result.report.warnings
    )


def test_ods_two_tables_on_a_sheet_and_a_chart_counted() -> None:
    frame = (
        "<table:shapes><draw:frame><draw:object xlink:href='./Object 1'/></draw:frame>"
        "</table:shapes>"
    )
    sheet = (
        f"<table:table table:name='Umsatz'>{frame}"
        + _row(_cell("Region"), _cell("Umsatz"))
        + _row(_cell("Nord"), _cell("120", "float"))
        + _row()
        + _row()
        + _row(_cell("Lager"), _cell("Bestand"))
        + _row(_cell("Stuttgart"), _cell("40", "float"))
        + "</table:table>"
    )
    manifest = (
        '<manifest:file-entry manifest:full-path="Object 1/" '
        'manifest:media-type="application/vnd.oasis.opendocument.chart"/>'
    )
    result = extract(odf("spreadsheet", sheet, manifest=manifest), filename="t.ods")
    assert [t.header for t in result.report.tables] == [
        "| Region | Umsatz |",
        "| Lager | Bestand |",
    ]
    assert result.report.sheets[0].charts == 1
    rows = [c for c in chunk_text(result.text, lang="de") if "Stuttgart" in c.body]
    assert rows


def test_ods_repeated_rows_with_values_are_rows_and_bounded() -> None:
    row = _row(_cell("gleich"), _cell("1", "float"), attrs="table:number-rows-repeated='3'")
    sheet = (
        "<table:table table:name='S'>" + _row(_cell("Name"), _cell("Wert")) + row + "</table:table>"
    )
    assert extract(odf("spreadsheet", sheet), filename="r.ods").text.count("| gleich | 1 |") == 3
    hostile = _row(_cell("x"), _cell("1", "float"), attrs="table:number-rows-repeated='1000000'")
    data = odf("spreadsheet", f"<table:table table:name='S'>{hostile}</table:table>")
    t0 = time.monotonic()
    with pytest.raises(LimitExceeded) as e:
        extract(data, filename="r.ods", limits=ExtractLimits(max_table_rows=1000))
    assert e.value.limit == "max_table_rows" and time.monotonic() - t0 < 2


# ----------------------------------------------------------------------------- ODP


def _frame(text: str, x: float, y: float, cls: str = "", h: float = 1.0) -> str:
    klass = f"presentation:class='{cls}'" if cls else ""
    return (
        f"<draw:frame {klass} svg:x='{x}cm' svg:y='{y}cm' svg:width='5cm' svg:height='{h}cm'>"
        f"<draw:text-box><text:p>{text}</text:p></draw:text-box></draw:frame>"
    )


def test_odp_slides_titles_shapes_notes_and_a_hidden_slide() -> None:
    pages = (
        "<draw:page draw:style-name='dp1'>"
        + _frame("rechts", 12, 5) + _frame("Agenda", 1, 1, "title") + _frame("links", 1, 5.2)
        + "<draw:custom-shape svg:x='1cm' svg:y='9cm' svg:height='1cm'>"
        + "<text:p>Form mit Text</text:p>"
        "</draw:custom-shape>"
        + "<draw:g>" + _frame("Gruppe eins", 1, 12) + _frame("Gruppe zwei", 8, 12) + "</draw:g>"
        + _frame("Fußzeile", 1, 18, "footer")
        + "<draw:frame svg:x='1cm' svg:y='15cm'>"
        + "<draw:image xlink:href='Pictures/a.png'/></draw:frame>"
        + "<presentation:notes><draw:page-thumbnail presentation:class='page'/>"
        + _frame("Notiz für die Vortragende", 1, 12, "notes") + "</presentation:notes></draw:page>"
        + "<draw:page draw:style-name='dp2'>" + _frame("Geheim", 1, 1, "title") + "</draw:page>"
        + "<draw:page draw:style-name='dp1'>" + _frame("Danke", 1, 3) + "</draw:page>"
    )  # fmt: skip
    automatic = (
        '<style:style style:name="dp2" style:family="drawing-page"><style:drawing-page-properties '
        'presentation:visibility="hidden"/></style:style>'
    )
    result = extract(odf("presentation", pages, automatic=automatic), filename="d.odp")
    assert result.report.format is DocFormat.ODP
    assert result.text == (
        "## Slide 1\n\n### Agenda\n\nlinks\n\nrechts\n\nForm mit Text\n\nGruppe eins\n\n"
        "Gruppe zwei\n\n#### Notes\n\nNotiz für die Vortragende\n\n## Slide 3\n\nDanke\n"
    )
    assert "slide 2 is hidden: left out" in result.report.warnings
    assert [(s.number, s.read, s.images) for s in result.report.slides] == [
        (1, True, 1), (2, False, 0), (3, True, 0),
    ]  # fmt: skip


def test_odp_from_libreoffice_reads_like_its_pptx() -> None:
    """vortrag_de.pptx saved by LibreOffice as ODP: custom shapes, its hidden page
    style, the table and the notes give the same text as the PPTX."""
    odp = extract((DATA / "vortrag_de.libreoffice.odp").read_bytes(), filename="v.odp")
    pptx = extract((DATA / "vortrag_de.pptx").read_bytes(), filename="v.pptx")
    assert odp.text == pptx.text
    assert [t.page_start for t in odp.report.tables] == [2]
    assert {c.lang for c in chunk_text(odp.text, lang="auto")} == {"de"}


def test_odt_table_cells_with_paragraphs_lists_boxes_and_nested_tables_read_as_one_row() -> None:
    """#25: a cell of several paragraphs, a list, a text box or a nested table is one
    cell of its row, its paragraphs joined; the rows of a nested table are no rows of
    the outer table."""

    def cell(inner: str) -> str:
        return f"<table:table-cell office:value-type='string'>{inner}</table:table-cell>"

    def p(text: str) -> str:
        return f"<text:p>{text}</text:p>"

    items = "".join(f"<text:list-item>{p(f'Item {i}')}</text:list-item>" for i in (1, 2))
    box = (
        "<text:p><draw:frame draw:name='F' svg:width='2cm'><draw:text-box>"
        f"{p('Boxed words')}</draw:text-box></draw:frame></text:p>"
    )
    nested = (
        "<table:table table:name='N'><table:table-row>"
        f"{cell(p('in A'))}{cell(p('in B'))}</table:table-row></table:table>"
    )
    rows = [
        ("Kind", p("Column B"), p("Column C")),
        ("Two paragraphs", p("first para") + p("second para"), p("x")),
        ("A list", f"<text:list>{items}</text:list>", p("y")),
        ("A box", box, p("z")),
        ("Nested", nested, p("a<text:line-break/>b")),
    ]
    body = (
        "<table:table table:name='T'><table:table-column table:number-columns-repeated='3'/>"
        + "".join(
            f"<table:table-row>{cell(p(label))}{cell(b)}{cell(c)}</table:table-row>"
            for label, b, c in rows
        )
        + "</table:table>"
    )
    lines = text_of(odf("text", body), "t.odt").split("\n")
    assert lines[0] == "| Kind | Column B | Column C |"
    assert "| Two paragraphs | first para second para | x |" in lines
    assert "| A list | Item 1 Item 2 | y |" in lines
    assert "| A box | Boxed words | z |" in lines
    assert "| Nested | in A in B | a b |" in lines
    assert len([line for line in lines if line.startswith("|")]) == 6
