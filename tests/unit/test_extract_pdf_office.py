"""PDF layouts as office suites (LibreOffice Writer, Word) write them, built with reportlab.

Each test draws one feature of "Save as PDF" output that broke extraction of
the office PDFs in bench/realdocs: framed tables stacked under headings, link
underlines inside a table column, spaces drawn over glyphs at a text portion's
edge, and line ends after hyphens that are the text's own.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from chunkwise.extract import extract
from chunkwise.extract.pdf.blocks import join_lines
from chunkwise.extract.pdf.decor import overlaid_spaces, underline_keys
from chunkwise.extract.pdf.hyphen import learn
from chunkwise.extract.pdf.tables.spans import Box, header_rows, merged_table
from tests.drawn_pdf import drawn_pdf

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab.pdfgen.canvas")
pdfmetrics = pytest.importorskip("reportlab.pdfbase.pdfmetrics")

DATA = Path(__file__).resolve().parents[1] / "data"


def _framed_table(c: Any, top: float, xs: list[float], rows: list[list[str]]) -> float:
    """A table with every cell's borders drawn, cell by cell, as Writer exports it;
    returns its bottom."""
    height = 18.0
    bottom = top - height * len(rows)
    for i in range(len(rows) + 1):
        for left, right in itertools.pairwise(xs):
            c.line(left, top - i * height, right, top - i * height)
    for x in xs:
        c.line(x, top, x, bottom)
    for i, row in enumerate(rows):
        for x, cell in zip(xs[:-1], row, strict=True):
            c.drawString(x + 2, top - (i + 1) * height + 5, cell)
    return bottom


def test_framed_tables_under_headings_stay_apart() -> None:
    """Two framed tables 45 pt apart with a heading between: two tables, the heading
    between them (closing each stack of rules with borders joined them into one)."""

    def draw(c: Any) -> None:
        c.setFont("Helvetica", 10)
        first = _framed_table(
            c, 760, [56, 200, 540], [["Parameter", "Bedeutung"], ["--nologo", "ohne Logo"]]
        )
        c.setFont("Helvetica-Bold", 13)
        c.drawString(56, first - 28, "Allgemeine Argumente")
        c.setFont("Helvetica", 10)
        _framed_table(
            c,
            first - 45,
            [56, 190, 540],
            [["Parameter", "Bedeutung"], ["--norestore", "kein Neustart"], ["--calc", "Calc"]],
        )

    text = extract(drawn_pdf(draw), filename="lo.pdf").text
    assert text.count("| Parameter | Bedeutung |") == 2
    assert "| --norestore | kein Neustart |" in text
    assert "Allgemeine Argumente" in text
    assert "| Allgemeine Argumente" not in text


def test_link_underlines_in_a_column_are_not_rules() -> None:
    """Underlined package names in the first column (links) do not add a column."""
    names = ["epiphany-browser", "chromium", "firefox-esr", "konqueror", "seamonkey"]

    def draw(c: Any) -> None:
        c.setFont("Helvetica", 10)
        rows = [["Paket", "Art"], *([n, "Browser"] for n in names)]
        # the first column just wider than its longest name, as a Writer table fits it
        right = 58 + pdfmetrics.stringWidth(names[0], "Helvetica", 10) + 6
        _framed_table(c, 760, [56, right, 540], rows)
        for i, name in enumerate(names):  # underline under each link, 1.2 pt below
            y = 760 - (i + 2) * 18.0 + 5 - 1.2
            c.line(58, y, 58 + pdfmetrics.stringWidth(name, "Helvetica", 10), y)

    text = extract(drawn_pdf(draw), filename="links.pdf").text
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert rows[0] == "| Paket | Art |"
    assert rows[2:] == [f"| {name} | Browser |" for name in names]


def test_a_space_drawn_over_a_glyph_does_not_split_the_word() -> None:
    """Writer writes a space at a link's edge on top of the glyph next to it."""

    def draw(c: Any) -> None:
        c.setFont("Courier", 10)
        c.line(50, 800, 545, 800)  # a vector path: the page goes through pdfplumber
        c.drawString(56, 700, "chromium")
        c.drawString(56 + 7 * 6.0 - 0.1, 700, " ")  # over the last "m"
        c.setFont("Helvetica", 10)
        c.drawString(110, 700, "is a browser")

    text = extract(drawn_pdf(draw), filename="space.pdf").text
    assert "chromium is a browser" in text


def test_option_dashes_and_code_hyphens_at_a_line_end_are_kept() -> None:
    def draw(c: Any) -> None:
        c.line(50, 800, 545, 800)
        lines = [
            ("Helvetica", "Reload it with systemctl list-units --"),
            ("Helvetica", "type=service and read the unit started by "),
        ]
        y = 700.0
        for font, line in lines:
            c.setFont(font, 10)
            c.drawString(56, y, line)
            y -= 12
        c.setFont("Courier", 10)
        c.drawString(56, y, "systemd-")
        c.setFont("Courier", 10)
        c.drawString(56, y - 12, "hostnamed.service")
        c.setFont("Helvetica", 10)
        c.drawString(56 + 18 * 6.0, y - 12, "at boot.")

    text = extract(drawn_pdf(draw), filename="dash.pdf").text
    assert "list-units --type=service" in text
    assert "systemd-hostnamed.service at boot." in text


# --- the pure helpers ------------------------------------------------------------


def _char(text: str, x0: float, x1: float, top: float = 100.0) -> dict[str, Any]:
    return {"text": text, "x0": x0, "x1": x1, "top": top, "bottom": top + 12.0}


def test_overlaid_spaces_are_only_those_on_a_glyph() -> None:
    on_glyph = _char(" ", 108.69, 115.92)
    between = _char(" ", 116.0, 119.8)
    chars = [_char("u", 101.48, 108.71), _char("m", 108.77, 115.99), on_glyph, between]
    assert overlaid_spaces(chars) == {id(on_glyph)}


def test_an_underline_starts_at_its_text_and_a_rule_at_the_table_edge() -> None:
    word = [_char(ch, 58.2 + 7.2 * i, 65.4 + 7.2 * i) for i, ch in enumerate("firefox")]
    underline = {"orientation": "h", "top": 113.2, "x0": 58.2, "x1": 108.6}
    rule = {"orientation": "h", "top": 113.2, "x0": 56.5, "x1": 183.0}  # a border below it
    assert underline_keys(word, [underline, rule]) == {id(underline)}


def test_line_end_hyphens_follow_the_document() -> None:
    # Both parts are words of the document on their own: a compound, not a hyphenation.
    office = learn([["a timer unit, path-based and socket-based units", "for timer-", "based"]])
    assert join_lines(["for timer-", "based activation"], office) == "for timer-based activation"
    tex = learn([["the documentation of the", "system, see the docu-", "mentation"]])
    assert join_lines(["see the docu-", "mentation"], tex) == "see the documentation"
    # Without the document's words: the old rule, a hyphen before a small letter goes.
    assert join_lines(["for timer-", "based activation"]) == "for timerbased activation"
    assert join_lines(["classic X-", "based desktop"], learn([])) == "classic X-based desktop"


def test_wrapped_tokens_attach_without_a_space() -> None:
    assert join_lines(["list-units --", "type=service"]) == "list-units --type=service"
    assert join_lines(["-u $unit -", 'f"']) == '-u $unit -f"'
    cell = ["~/.ssh/", "authorized_keys"]
    assert join_lines(cell, in_cell=True) == "~/.ssh/authorized_keys"
    assert join_lines(["A /", "B"], in_cell=True) == "A / B"  # a spaced slash stays spaced
    # In prose a path's last slash is often followed by a word of its own.
    assert join_lines(["the /usr/share/", "directory"]) == "the /usr/share/ directory"
    assert join_lines(["Zeilen-", "und Spalten"]) == "Zeilen- und Spalten"


def test_a_compound_broken_at_its_hyphen_stays_whole() -> None:
    """Writer without hyphenation breaks "timer-based" only at its own hyphen."""

    def draw(c: Any) -> None:
        c.setFont("Helvetica", 10)
        c.line(50, 800, 545, 800)
        lines = [
            "A timer unit starts a service; a path unit is based on a file, a socket",
            "unit on a socket, each for socket-based or timer-",
            "based activation of the service.",
        ]
        for i, line in enumerate(lines):
            c.drawString(56, 700 - 12 * i, line)

    text = extract(drawn_pdf(draw), filename="compound.pdf").text
    assert "for socket-based or timer-based activation of the service." in text


def test_merged_cells_of_a_writer_table_are_filled_and_its_header_rows_are_one_line() -> None:
    """The DOCX fixture saved as PDF by LibreOffice 7.4.7 (tests/data/make_samples.py
    --libreoffice): two header rows with cells merged over columns and rows, a column
    of row groups merged downwards, the table over three pages with its header repeated."""
    data = (DATA / "merged_header_de.libreoffice.pdf").read_bytes()
    text = extract(data, filename="lo.pdf").text
    header = "| Tarif | Preis pro Nutzer / Monat | Preis pro Nutzer / Jahr "
    assert header + "| Leistungen / Speicher | Leistungen / Support |" in text
    assert "| Enterprise | Preis auf Anfrage |  | unbegrenzt |" in text
    assert "| Team | 12 € | 120 € | 10 GB | Telefon, werktags |" in text
    assert text.count("| Lieferzeit / ab Lager | Lieferzeit / auf Bestellung |") == 1
    assert "| Pumpen | Tauchpum pe TP-80 | 10-4480 | auf Anfrage |  | 389,00 |" in text
    assert "| Zubehör | Transport koffer TK | 50-0500 |" in text
    assert "|  |  |  | ab Lager | auf Bestellung |  |" not in text  # repeated header rows


def test_merged_cells_fill_down_and_header_rows_combine_across() -> None:
    grid: list[list[Box | None]] = [
        [(0, 0, 50, 20), (50, 0, 150, 10), None],
        [None, (50, 10, 100, 20), (100, 10, 150, 20)],
        [(0, 20, 50, 30), (50, 20, 100, 30), (100, 20, 150, 30)],
        [(0, 30, 150, 40), None, None],
    ]
    texts = [
        ["Tarif", "Preis", ""],
        ["", "Monat", "Jahr"],
        ["Basis", "6", "60"],
        ["Gruppe", "", ""],
    ]
    assert header_rows(grid) == 2
    assert merged_table(grid, texts) == [
        ["Tarif", "Preis / Monat", "Preis / Jahr"],
        ["Basis", "6", "60"],
        ["Gruppe", "", ""],
    ]
    plain = [[(0, 0, 50, 10), (50, 0, 150, 10)], [(0, 10, 50, 20), (50, 10, 150, 20)]] * 2
    assert header_rows(plain) == 1


def test_a_typewriter_word_hyphenated_where_the_document_joins_it_elsewhere_is_one_word() -> None:
    # LuaTeX hyphenated a command name set in typewriter ("\\phan-" + "tomsection");
    # the document writes "\\phantomsection" elsewhere and never the pair with a hyphen.
    doc = learn([["use \\phantomsection here", "or \\phan-", "tomsection is used"]])
    lines = ["or \\phan-", "tomsection is used"]
    assert join_lines(lines, doc, code_ends={0}) == "or \\phantomsection is used"
    # Code the document never writes joined keeps its hyphen, without a space.
    unit = learn([["the systemd-hostnamed unit", "see systemd-", "hostnamed.service"]])
    lines = ["see systemd-", "hostnamed.service"]
    assert join_lines(lines, unit, code_ends={0}) == "see systemd-hostnamed.service"
    assert join_lines(lines, learn([]), code_ends={0}) == "see systemd-hostnamed.service"


def test_a_compound_of_words_keeps_its_hyphen_where_the_document_hyphenates_syllables() -> None:
    """#26 (g): a TeX document whose line-end hyphens are syllables ("docu-" +
    "mentation", "ap-" + "plication") votes to drop an unattested hyphen; a compound
    broken at its own hyphen ("well-" + "balanced") keeps it all the same: both parts
    are words of the document on their own and it never writes them joined."""
    pages = [
        [
            "the documentation and the application are well kept, see the docu-",
            "mentation of the ap-",
            "plication; a well-",
            "balanced table is balanced and in formation, the Bank of the Daten-",
            "bank is not in-",
            "formation",
        ]
    ]
    tex = learn(pages)
    assert tex.keep_unattested is False  # the document-wide vote drops line-end hyphens
    assert join_lines(["a well-", "balanced table"], tex) == "a well-balanced table"
    assert join_lines(["see the docu-", "mentation"], tex) == "see the documentation"
    # Syllables that are short words ("in"), and a German noun written capitalised on
    # its own ("Bank"), are no compound of words: the vote decides.
    assert join_lines(["is not in-", "formation"], tex) == "is not information"
    assert join_lines(["of the Daten-", "bank is"], tex) == "of the Datenbank is"
    # A part that begins many of the document's words is a syllable ("dar": "darauf",
    # "dargestellt", "darstellen"), though it is a word too ("stellt es dar", "unter").
    german = learn(
        [
            [
                "Die Tabelle stellt es dar, darauf ist unter anderem dargestellt, wie",
                "man darstellen kann, was unter der Hand liegt. Die Dokumen-",
                "tation der Dokumentation. Dar-",
                "unter ist PSG",
            ]
        ]
    )
    assert join_lines(["Dar-", "unter ist PSG"], german) == "Darunter ist PSG"
