"""PDF layouts as TeX and DocBook tool chains make them, built in memory with reportlab.

Each test draws the one feature that broke extraction of real documents
(bench/realdocs): word spaces narrower than pdfplumber's absolute default
tolerance, a leading "-" that is data, numbered headings, and so on.
"""

from __future__ import annotations

import itertools
import unicodedata

import pytest

from chunkwise.extract import extract
from tests.drawn_pdf import drawn_pdf

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab.pdfgen.canvas")
pdfmetrics = pytest.importorskip("reportlab.pdfbase.pdfmetrics")

PAGE = (595.0, 842.0)


def _tight_words(canvas: object, words: list[str], x: float, y: float, gap: float) -> None:
    """Words placed one by one with a fixed gap, as a justified TeX line sets them."""
    for word in words:
        canvas.drawString(x, y, word)  # type: ignore[attr-defined]
        x += pdfmetrics.stringWidth(word, "Helvetica", 10) + gap


def test_narrow_word_spaces_on_a_page_with_rules_keep_words_apart() -> None:
    line = "Just like any other modern OS where the file operation involves caching".split()

    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        c.line(50, 800, 545, 800)  # a rule: the page has a vector path
        for row in range(3):
            _tight_words(c, line, 50, 700 - 14 * row, gap=2.2)

    text = extract(drawn_pdf(draw), filename="tight.pdf").text
    assert "Just like any other modern OS where the file operation involves caching" in text
    assert "Justlike" not in text


# --- pure helpers of the PDF reader (no PDF needed) ---------------------------

from chunkwise.extract.pdf.blocks import join_lines, running_keys, strip_running  # noqa: E402
from chunkwise.extract.pdf.hyphen import learn  # noqa: E402
from chunkwise.extract.pdf.lines import Line  # noqa: E402
from chunkwise.extract.pdf.pages import drop_unmapped_glyphs as _drop_unmapped_glyphs  # noqa: E402

HEIGHT = 842.0


def _line(text: str, top: float, size: float = 10.0) -> Line:
    return Line(text=text, top=top, bottom=top + size, x0=50.0, size=size, bold=False)


def test_running_footer_is_removed_whichever_reader_spaced_its_dot_leaders() -> None:
    # PDFium and pdfplumber space the same footer differently; the header's
    # exact top differs by a point or two between them too.
    # Most pages were read by PDFium, one by pdfplumber.
    footers = [f". . . . .Page {n}. . . . ." for n in range(1, 5)] + [".....Page 5....."]
    bodies = ["Tables over pages.", "Chunk size.", "Captions.", "Footnotes.", "Index."]
    pages = [
        (HEIGHT, [_line("longtable.sty", 30 + i), _line(bodies[i], 400), _line(f, 800 + i)])
        for i, f in enumerate(footers)
    ]
    keys = running_keys(pages)
    for height, lines in pages:
        kept, removed = strip_running(lines, keys, height)
        assert [ln.text for ln in kept] == [lines[1].text]
        assert removed == 2


def test_running_headers_that_alternate_or_change_with_the_chapter_are_furniture() -> None:
    """#26 (a): the book's title on even pages, the chapter's title on the chapter's odd
    pages; each is on fewer than half of all pages. A real heading that happens to open
    two pages (in the same size) stays."""
    chapters = ["Getting started"] * 6 + ["Printing photos"] * 6
    pages = []
    for i in range(12):
        lines = []
        if i % 2 == 1:
            lines.append(_line(chapters[i], 30))
        elif i not in (0, 6):  # a chapter's first page has no running header
            lines.append(_line("Photo Printer User's Manual", 30))
        if i in (2, 9):
            lines.append(_line("Installation", 60))
        lines += [_line(f"Body text {'abcdefghijkl'[i]}.", 300), _line(str(i + 1), 800)]
        pages.append((HEIGHT, lines))
    keys = running_keys(pages)
    kept = [[ln.text for ln in strip_running(lines, keys, h)[0]] for h, lines in pages]
    assert all(not {"Photo Printer User's Manual", *chapters} & set(k) for k in kept)
    assert kept[2] == ["Installation", "Body text c."]
    assert kept[9] == ["Installation", "Body text j."]
    assert kept[0] == ["Body text a."]


def test_roman_page_numbers_of_front_matter_are_masked_too() -> None:
    pages = [
        (HEIGHT, [_line(f"Debian Reference {n}", 30), _line(body, 300)])
        for n, body in zip(
            ("i", "ii", "iii", "iv"), ("Preface", "Contents", "Tables", "Notes"), strict=True
        )
    ]
    keys = running_keys(pages)
    assert all(strip_running(lines, keys, h)[1] == 1 for h, lines in pages)


def test_unmapped_glyph_codes_are_dropped_and_counted_a_leading_one_stays_a_bullet() -> None:
    lines = [_line("r{(cid:104)wd(cid:105)}", 100), _line("(cid:15) first item", 120)]
    assert _drop_unmapped_glyphs(lines, []) == 2
    assert [ln.text for ln in lines] == ["r{wd}", "\u2022 first item"]


def test_an_unmapped_visible_space_still_parts_two_words() -> None:
    # TeX's typewriter fonts set a visible space in slot 32: "\abkii AB" in an example.
    lines = [_line("kann man auch \\abkii(cid:32)AB tippen", 100)]
    _drop_unmapped_glyphs(lines, [])
    assert lines[0].text == "kann man auch \\abkii AB tippen"


def test_soft_hyphen_at_a_line_end_joins_the_word_real_hyphens_stay() -> None:
    assert join_lines(["Tabellen\u00ad", "einträge"]) == "Tabelleneinträge"
    assert join_lines(["Tabellenein-", "träge"]) == "Tabelleneinträge"
    assert join_lines(["Zeilen-", "und Spalten"]) == "Zeilen- und Spalten"
    assert join_lines(["per E-", "Mail"]) == "per E-Mail"
    assert (
        join_lines(["die Computer-Modern-", "Schriftfamilien"])
        == "die Computer-Modern-Schriftfamilien"
    )


def test_a_hyphen_after_one_letter_capitals_or_digits_is_the_words_own() -> None:
    # An office table cell wrapped at "X-" ("Werkzeug für die X-" + "authority-Datei"):
    # hyphenation never breaks off one letter, an abbreviation or a number.
    assert join_lines(["Werkzeug für die X-", "authority-Datei"], in_cell=True) == (
        "Werkzeug für die X-authority-Datei"
    )
    assert join_lines(["die Option X11-", "forwarding"]) == "die Option X11-forwarding"
    assert join_lines(["ein 16-", "bit Wert"]) == "ein 16-bit Wert"
    assert join_lines(["über USB-", "sticks"]) == "über USB-sticks"
    assert join_lines(["Tabellenein-", "träge"]) == "Tabelleneinträge"
    assert join_lines(["A-", "und B-Seite"]) == "A- und B-Seite"


def test_to_after_a_line_end_hyphen_is_a_syllable_unless_a_compound_follows() -> None:
    # debian-reference-de: "Benutzerkon-" + "to aus" is "Benutzerkonto".
    assert join_lines(["von einem Benutzerkon-", "to aus auf Geräte"]).startswith(
        "von einem Benutzerkonto aus"
    )
    assert join_lines(["ein Fo-", "to bis 2 MB"]) == "ein Foto bis 2 MB"
    assert join_lines(["a two-", "to three-fold rise"]) == "a two- to three-fold rise"
    assert join_lines(["Klein-", "bis Mittelbetriebe"]) == "Klein- bis Mittelbetriebe"


def test_a_leading_dash_or_star_that_is_data_stays_data() -> None:
    from chunkwise.extract.pdf.blocks import group

    lines = [
        _line("-s", 100),
        _line("-1", 130),
        _line("*.html", 160),
        _line("- a real item", 190),
        _line("\u2022first bullet", 220),
        _line("* First Second *", 250),
    ]
    items = group(lines, 10.0, [])
    assert [(it.kind, it.text) for it in items] == [
        ("para", "-s"),
        ("para", "-1"),
        ("para", "*.html"),
        ("item", "a real item"),
        ("item", "first bullet"),
        ("para", "* First Second *"),
    ]


def _borderless_table(c: object) -> None:
    """A DocBook-style table: full-width rules, column rules inside only, no outer frame."""
    c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
    rows = [
        ("package", "popcon", "description"),
        ("mc", "V:54, I:226", "A text-mode full-screen file manager"),
        ("sudo", "V:638, I:823", "A program to allow limited root privileges"),
        ("w3m", "V:14, I:190", "Text-mode WWW browsers"),
    ]
    left, right, cols = 60.0, 540.0, (160.0, 260.0)
    top = 700.0
    c.line(left, top, right, top)  # type: ignore[attr-defined]
    for i, row in enumerate(rows):
        y = top - 14 * (i + 1)
        for x, cell in zip((left + 3, cols[0] + 3, cols[1] + 3), row, strict=True):
            c.drawString(x, y + 4, cell)  # type: ignore[attr-defined]
        # Row rules drawn cell by cell, as DocBook's tables do.
        bounds = (left, *cols, right)
        for a, b in itertools.pairwise(bounds):
            c.line(a, y, b, y)  # type: ignore[attr-defined]
        for x in cols:
            c.line(x, y, x, y + 14)  # type: ignore[attr-defined]


def _code_box(c: object) -> None:
    """A shaded listing: a one-column frame, drawn in stripes, around two command lines."""
    c.setFont("Courier", 10)  # type: ignore[attr-defined]
    c.rect(50, 400, 495, 20)  # type: ignore[attr-defined]
    c.rect(50, 420, 495, 20)  # type: ignore[attr-defined]
    c.drawString(56, 425, "# apt-get update")  # type: ignore[attr-defined]
    c.drawString(56, 410, "# apt-get install mc vim")  # type: ignore[attr-defined]


def test_table_without_outer_borders_keeps_its_first_and_last_column() -> None:
    r = extract(drawn_pdf(_borderless_table), filename="borderless.pdf")
    assert r.report.tables[0].header == "| package | popcon | description |"
    assert "| sudo | V:638, I:823 | A program to allow limited root privileges |" in r.text


def test_one_column_frame_is_text_not_a_table() -> None:
    r = extract(drawn_pdf(_code_box), filename="listing.pdf")
    assert r.report.tables == []
    assert "apt-get update" in r.text and "| # apt-get" not in r.text


def _styled(text: str, top: float, size: float, font: str, bold: bool = False) -> Line:
    return Line(text=text, top=top, bottom=top + size, x0=50.0, size=size, bold=bold, font=font)


def test_numbered_headings_give_levels_and_a_huge_example_word_stays_text() -> None:
    from chunkwise.extract.pdf.blocks import group, heading_rules

    sans, roman = "LMSans10-Bold", "LMRoman10-Regular"
    page1 = [
        _styled("Kurzbeschreibung", 40, 24.8, "LMSansDemiCond10-Regular"),
        _styled("30. Juli 2022", 80, 12.0, roman),
        _styled("Inhaltsverzeichnis", 120, 14.3, sans, bold=True),
        _styled("1. Allgemeines 5", 150, 10.9, sans, bold=True),
    ]
    page2 = [
        _styled("1. Allgemeines", 40, 14.3, sans, bold=True),
        _styled("Der Text des Abschnitts.", 70, 10.9, roman),
        _styled("1.1. The Name of the Game", 100, 12.0, sans, bold=True),
        _styled("1.1.1. TEX", 130, 10.9, sans, bold=True),
        _styled("Noch mehr Text, lang genug.", 150, 10.9, roman),
        _styled("gigantisch", 200, 24.8, "LMRoman17-Regular"),
        _styled("2.6. Pakete", 250, 12.0, sans, bold=True),
    ]
    rules = heading_rules([page1, page2], 10.9)
    first = {it.text: (it.kind, it.level) for it in group(page1, 10.9, [], rules, 1)}
    second = {it.text: (it.kind, it.level) for it in group(page2, 10.9, [], rules, 2)}
    assert first["Kurzbeschreibung"] == ("heading", 1)
    assert first["30. Juli 2022"][0] == "para"  # a date, not section 30
    assert first["Inhaltsverzeichnis"] == ("heading", 3)  # unnumbered, in the headings' font
    assert first["1. Allgemeines 5"][0] == "para"  # a contents line
    assert second["1. Allgemeines"] == ("heading", 3)
    assert second["1.1. The Name of the Game"] == ("heading", 4)
    assert second["1.1.1. TEX"] == ("heading", 5)
    assert second["2.6. Pakete"] == ("heading", 4)
    assert second["gigantisch"][0] == "para"  # a large example word in the body font


def test_a_word_overflowing_its_narrow_column_stays_whole_in_its_cell() -> None:
    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        left, right, cols = 60.0, 540.0, (160.0, 200.0)
        rows = [("apt", "apt-get/apt-cache", "description"), ("apt update", "apt-get", "metadata")]
        c.line(left, 700, right, 700)  # type: ignore[attr-defined]
        for i, (a, b, d) in enumerate(rows):
            y = 700 - 14 * (i + 1)
            c.drawString(left + 3, y + 4, a)  # type: ignore[attr-defined]
            c.drawString(cols[0] + 3, y + 4, b)  # wider than its column: crosses x=200
            c.drawString(cols[1] + 80, y + 4, d)  # type: ignore[attr-defined]
            c.line(left, y, right, y)  # type: ignore[attr-defined]
            for x in cols:
                c.line(x, y, x, y + 14)  # type: ignore[attr-defined]

    r = extract(drawn_pdf(draw), filename="overflow.pdf")
    assert r.report.tables[0].header == "| apt | apt-get/apt-cache | description |"


def test_a_paragraph_starting_like_a_list_item_is_escaped_in_the_canonical_text() -> None:
    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        c.drawString(60, 700, "* First Second *")  # type: ignore[attr-defined]
        c.drawString(60, 600, "- a real item")  # type: ignore[attr-defined]

    text = extract(drawn_pdf(draw), filename="markers.pdf").text
    assert "\\* First Second *" in text
    assert "\n- a real item" in text


def test_header_rows_in_their_own_frame_become_the_header_of_the_body_below() -> None:
    from chunkwise.extract.pdf.items import Item, TableFragment
    from chunkwise.extract.pdf.tables.ruled import join_header_blocks

    header = TableFragment(
        rows=[["die ersten beiden Spalten", "", "die dritte Spalte"], ["p-type", "", "D-type"]],
        page=3,
        x_edges=[160.0, 320.0, 326.0, 451.0],
    )
    body = TableFragment(
        rows=[["P-column", "und eine", "12·34"], ["Total", "(falsch)", "100·6"]],
        page=3,
        x_edges=[182.0, 247.0, 344.0, 430.0],
    )
    items = [
        Item("table", 124.8, 164.1, table=header),
        Item("table", 164.1, 646.5, table=body),
    ]
    (joined,) = join_header_blocks(items)
    assert joined.table is not None
    assert joined.table.rows == [
        ["die ersten beiden Spalten / p-type", "", "die dritte Spalte / D-type"],
        ["P-column", "und eine", "12·34"],
        ["Total", "(falsch)", "100·6"],
    ]
    # A table further down is a table of its own.
    apart = [Item("table", 100, 140, table=header), Item("table", 300, 400, table=body)]
    assert len(join_header_blocks(apart)) == 2


def _inline_typewriter(c: object, *, rule: bool) -> None:
    """A sentence with a word set inline in a smaller typewriter font (TeX's \\texttt
    in another family): the word's glyph box starts 3.5 pt below the line's, on the
    same baseline. A rule sends the page through pdfplumber, none through PDFium."""
    if rule:
        c.line(72, 800, 520, 800)  # type: ignore[attr-defined]
    x, y = 72.0, 700.0
    for font, size, text in (
        ("Times-Roman", 12, "Die Klasse "),
        ("Courier", 7, "hausarbeit-jura"),
        ("Times-Roman", 12, " richtet sich an Erstsemester, die eine"),
    ):
        c.setFont(font, size)  # type: ignore[attr-defined]
        c.drawString(x, y, text)  # type: ignore[attr-defined]
        x += pdfmetrics.stringWidth(text, font, size)
    c.setFont("Times-Roman", 12)  # type: ignore[attr-defined]
    c.drawString(72, y - 15, "erste Hausarbeit erstellen müssen.")  # type: ignore[attr-defined]


@pytest.mark.parametrize("rule", [True, False], ids=["pdfplumber", "pdfium"])
def test_a_word_in_a_smaller_font_on_the_baseline_stays_in_its_sentence(rule: bool) -> None:
    text = extract(drawn_pdf(lambda c: _inline_typewriter(c, rule=rule)), filename="k.pdf").text
    assert (
        "Die Klasse hausarbeit-jura richtet sich an Erstsemester, die eine erste Hausarbeit "
        "erstellen müssen." in text
    )


def _grouped_rows_table(c: object) -> None:
    """array's summary table: a frame around a group of one-line rows (no rule between
    them), then rows of a label beside a description that wraps over the cell's width."""
    c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
    left, mid, right = 100.0, 200.0, 400.0
    group = [("l", "Left adjusted column."), ("c", "Centered column."), ("r", "Right column.")]
    wrapped = [
        (["m{width}"], ["Defines a column of width width. Every", "entry is centred in the row."]),
        (
            ["a", "b"],
            ["Two words that fill the whole cell of this", "column as wrapped text does."],
        ),
        # Both cells wrap without filling their lines: the next word is too long.
        (
            ["gpg -s f|mail", "foo@example.org"],
            ["Send a message with a key to", "you@example.org"],
        ),
    ]
    top = 700.0
    y = top
    for label, text in group:
        y -= 12
        c.drawString(left + 6, y, label)  # type: ignore[attr-defined]
        c.drawString(mid + 6, y, text)  # type: ignore[attr-defined]
    bounds = [top, y - 4]
    for labels, lines in wrapped:
        for k, text in enumerate(lines):
            y -= 12
            c.drawString(mid + 6, y, text)  # type: ignore[attr-defined]
            if k < len(labels):  # a label of two lines on the same baselines too
                c.drawString(left + 6, y, labels[k])  # type: ignore[attr-defined]
        bounds.append(y - 4)
    for yy in bounds:
        c.line(left, yy, right, yy)  # type: ignore[attr-defined]
    for x in (left, mid, right):
        c.line(x, top, x, bounds[-1])  # type: ignore[attr-defined]


def test_rows_of_a_ruled_group_are_rows_and_a_wrapped_cell_stays_one() -> None:
    text = extract(drawn_pdf(_grouped_rows_table), filename="grouped.pdf").text
    assert "| l | Left adjusted column. |" in text
    assert "| c | Centered column. |" in text
    assert "| r | Right column. |" in text
    whole = "| m{width} | Defines a column of width width. Every entry is centred in the row. |"
    assert whole in text
    gpg = "| gpg -s f\\|mail foo@example.org | Send a message with a key to you@example.org |"
    assert gpg in text
    assert (
        "| a b | Two words that fill the whole cell of this column as wrapped text does. |"
    ) in text


def _spanning_header_table(c: object) -> None:
    """tabularx's example: a header cell over the row labels and the first data column
    (no column rule inside it), then rows of four cells."""
    c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
    xs = (100.0, 140.0, 260.0, 320.0, 440.0)
    top, head, bottom = 700.0, 684.0, 640.0
    c.drawString(150, 689, "Multicolumn entry!")  # type: ignore[attr-defined]
    c.drawString(266, 689, "THREE")  # type: ignore[attr-defined]
    c.drawString(326, 689, "FOUR")  # type: ignore[attr-defined]
    body = ((672, ("one", "first wide", "three", "fourth wide")), (656, ("two", "x", "y", "z")))
    for y, row in body:
        for x, cell in zip(xs, row, strict=False):
            c.drawString(x + 5, y, cell)  # type: ignore[attr-defined]
    for y in (top, head, 668.0, bottom):
        c.line(xs[0], y, xs[-1], y)  # type: ignore[attr-defined]
    for x in xs:
        c.line(x, bottom, x, top if x != xs[1] else head)  # type: ignore[attr-defined]


def test_a_header_cell_spanning_columns_names_each_column_it_covers() -> None:
    r = extract(drawn_pdf(_spanning_header_table), filename="span.pdf")
    assert r.report.tables[0].header == "| Multicolumn entry! | Multicolumn entry! | THREE | FOUR |"
    assert "| one | first wide | three | fourth wide |" in r.text


def _rules_only_table(c: object) -> None:
    """dblatex's command tables: a rule under every row drawn cell by cell, no column
    rules, the command vertically centred beside its description of two lines."""
    rows = [
        ("command idiom", ["description"]),
        ("command &", ["background execution of command in the subshell"]),
        ("cmd1 | cmd2", ["pipe the standard output of cmd1 to the standard", "input of cmd2"]),
        ("cmd1 && cmd2", ["execute cmd1; if successful, execute cmd2", "sequentially"]),
        ("cmd > foo", ["redirect standard output of command to a file foo"]),
    ]
    left, mid, right = 60.0, 200.0, 540.0
    y = 700.0
    c.line(left, y, right, y)  # type: ignore[attr-defined]
    for label, desc in rows:
        height = 12.0 * len(desc)
        c.setFont("Courier", 10)  # type: ignore[attr-defined]
        c.drawString(left + 4, y - height / 2 - 4, label)  # type: ignore[attr-defined]
        c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
        for k, text in enumerate(desc):
            c.drawString(mid + 4, y - 10 - 12 * k, text)  # type: ignore[attr-defined]
        y -= height + 2
        c.line(left, y, mid, y)  # type: ignore[attr-defined]
        c.line(mid, y, right, y)  # type: ignore[attr-defined]
    # Two framed code boxes (a wide space inside each command) with a sentence of
    # two lines between them: not a table.
    for top in (500.0, 450.0):
        c.rect(left, top - 14, right - left, 14)  # type: ignore[attr-defined]
        c.setFont("Courier", 10)  # type: ignore[attr-defined]
        c.drawString(left + 4, top - 10, "# echo penguin")  # type: ignore[attr-defined]
        c.drawString(left + 130, top - 10, "ALL=(ALL) ALL >> /etc/sudoers")  # type: ignore[attr-defined]
    c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
    for k, text in enumerate(
        ("Alternatively, it is also common to do as follows to let the", "user in.")
    ):
        c.drawString(left, 476 - 11 * k, text)  # type: ignore[attr-defined]


def test_rules_between_rows_make_the_rows_and_a_centred_label_joins_its_description() -> None:
    r = extract(drawn_pdf(_rules_only_table), filename="rules.pdf")
    assert [t.header for t in r.report.tables] == ["| command idiom | description |"]
    assert (
        "| cmd1 \\| cmd2 | pipe the standard output of cmd1 to the standard input of cmd2 |"
        in r.text
    )
    assert "| cmd1 && cmd2 | execute cmd1; if successful, execute cmd2 sequentially |" in r.text
    assert "| cmd > foo | redirect standard output of command to a file foo |" in r.text
    assert "Alternatively, it is also common" in r.text and "| # echo" not in r.text


def _accented(canvas: object, parts: list[str], x: float, y: float, accent_first: bool) -> None:
    """A word as TeX sets it with OT1 fonts: each "u\u00a8"-like pair is the letter
    with a separate spacing accent centred over it (drawn before or after it)."""
    for part in parts:
        if len(part) == 2 and part[1] == "\u00a8":
            letter_width = pdfmetrics.stringWidth(part[0], "Helvetica", 10)
            accent_x = x + (letter_width - pdfmetrics.stringWidth(part[1], "Helvetica", 10)) / 2
            order = [(accent_x, part[1]), (x, part[0])]
            for at, glyph in order if accent_first else order[::-1]:
                canvas.drawString(at, y, glyph)  # type: ignore[attr-defined]
            x += letter_width
        else:
            canvas.drawString(x, y, part)  # type: ignore[attr-defined]
            x += pdfmetrics.stringWidth(part, "Helvetica", 10)


@pytest.mark.parametrize("with_rule", [True, False], ids=["pdfplumber", "pdfium"])
def test_an_accent_drawn_over_its_letter_becomes_one_letter(with_rule: bool) -> None:
    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        if with_rule:
            c.line(50, 800, 545, 800)  # type: ignore[attr-defined]
        _accented(c, ["Abk", "u\u00a8", "rzung f", "u\u00a8", "r"], 50, 700, accent_first=True)
        _accented(c, ["Festabst", "a\u00a8", "nde"], 50, 680, accent_first=False)
        c.drawString(50, 660, "a spacing \u00a8 between words stays")  # type: ignore[attr-defined]

    text = extract(drawn_pdf(draw), filename="accents.pdf").text
    assert "Abkürzung für" in text
    assert "Festabstände" in text
    assert "a spacing \u00a8 between words stays" in text
    assert "u\u00a8" not in text and "\u00a8a" not in text


@pytest.mark.parametrize("with_rule", [True, False], ids=["pdfplumber", "pdfium"])
def test_two_accents_stacked_over_one_letter_both_join_it(with_rule: bool) -> None:
    # Phonetic manuals stack accents ("ˆ" and "¨" over one "a"). "ˆ" is a modifier
    # letter to Unicode; taken for the letter under "¨", it became "ˆ̈", which is no
    # accent, and the whole document failed with a KeyError.
    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        if with_rule:
            c.line(50, 800, 545, 800)  # type: ignore[attr-defined]
        c.drawString(50, 700, "Laut ")  # type: ignore[attr-defined]
        x = 50 + pdfmetrics.stringWidth("Laut ", "Helvetica", 10)
        width = pdfmetrics.stringWidth("a", "Helvetica", 10)
        c.drawString(x, 700, "a")  # type: ignore[attr-defined]
        for accent in ("\u02c6", "\u00a8"):
            at = x + (width - pdfmetrics.stringWidth(accent, "Helvetica", 10)) / 2
            c.drawString(at, 700, accent)  # type: ignore[attr-defined]
        c.drawString(x + width, 700, "b und mehr Text")  # type: ignore[attr-defined]

    text = extract(drawn_pdf(draw), filename="stacked.pdf").text
    decomposed = unicodedata.normalize("NFD", text)
    assert "a\u0302\u0308b" in decomposed or "a\u0308\u0302b" in decomposed
    assert "\u02c6" not in text and "\u00a8" not in text


def test_a_spacing_accent_is_no_letter_for_another_accent() -> None:
    # The order the glyphs come in decides which accent looks for its letter first;
    # whatever it is, an accent never takes another accent.
    from chunkwise.extract.pdf.lines import can_take_accent, with_accent

    assert not can_take_accent("\u02c6") and not can_take_accent("\u02c7")
    assert can_take_accent("a") and with_accent(with_accent("a", "\u02c6"), "\u00a8")


def test_table_rows_in_ever_larger_fonts_keep_command_and_description_together() -> None:
    # l2kurz's table of font sizes: the command in 10 pt, its description on the
    # same baseline in its own size; pdfplumber puts pieces with tops 3 pt apart
    # or more on different lines.
    rows = [("\\small", "kleine Schrift", 10), ("\\large", "große Schrift", 12)]
    rows += [("\\Large", "größere Schrift", 14.4), ("\\LARGE", "sehr große Schrift", 17.3)]
    rows += [("\\huge", "riesig groß", 20.7), ("\\Huge", "gigantisch", 24.9)]

    def draw(c: object) -> None:
        c.setFont("Helvetica", 11)  # type: ignore[attr-defined]
        c.drawString(220, 760, "Tabelle 6: Schriftgrößen")  # type: ignore[attr-defined]
        c.line(200, 750, 420, 750)  # type: ignore[attr-defined]
        y = 735.0
        for command, description, size in rows:
            c.setFont("Courier", 10)  # type: ignore[attr-defined]
            c.drawString(200, y, command)  # type: ignore[attr-defined]
            c.setFont("Helvetica", size)  # type: ignore[attr-defined]
            c.drawString(280, y, description)  # type: ignore[attr-defined]
            y -= size + 6
        c.line(200, y, 420, y)  # type: ignore[attr-defined]

    text = extract(drawn_pdf(draw), filename="sizes.pdf").text
    for command, description, _ in rows:
        escaped = command.replace("\\", "\\\\")  # a cell's backslash is escaped
        assert f"| {escaped} | {description} |" in text


def _symbol_table(c: object, top: float, rows: list[tuple[str, str, str, str]]) -> None:
    for i, row in enumerate(rows):
        for x, cell in zip((100, 160, 300, 360), row, strict=True):
            c.drawString(x, top - 14 * i, cell)  # type: ignore[attr-defined]


def test_a_caption_between_two_tables_names_the_nearer_one_and_may_wrap() -> None:
    # l2kurz p56: a two-line caption above a table (its second line centred),
    # then, far below, the next table's caption close above its own table.
    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        c.drawString(
            100, 760, "Tabelle 20: Pfeile (Vertikale Pfeile werden als Klammern behandelt,"
        )  # type: ignore[attr-defined]
        c.drawString(150, 746, "alle anderen als Relationen.)")  # type: ignore[attr-defined]
        _symbol_table(
            c,
            720,
            [
                ("a1", "\\alpha", "b1", "\\beta"),
                ("a2", "\\gamma", "b2", "\\delta"),
                ("a3", "\\eta", "b3", "\\theta"),
                ("a4", "\\iota", "b4", "\\kappa"),
            ],
        )
        c.drawString(200, 480, "Tabelle 21: Klammern")  # type: ignore[attr-defined]
        _symbol_table(
            c,
            456,
            [
                ("c1", "\\lceil", "d1", "\\rceil"),
                ("c2", "\\langle", "d2", "\\rangle"),
                ("c3", "\\lfloor", "d3", "\\rfloor"),
            ],
        )

    text = extract(drawn_pdf(draw), filename="captions.pdf").text
    first = (
        "Tabelle 20: Pfeile (Vertikale Pfeile werden als Klammern behandelt,"
        " alle anderen als Relationen.)"
    )
    assert first in text
    assert (
        text.index(first)
        < text.index("\\\\alpha")
        < text.index("Tabelle 21")
        < text.index("\\\\lceil")
    )


def test_a_caption_far_below_a_table_and_close_above_the_next_is_the_next_ones() -> None:
    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        rows = [("a1", "\\alpha", "b1", "\\beta"), ("a2", "\\gamma", "b2", "\\delta")]
        _symbol_table(c, 720, [*rows, ("a3", "\\eta", "b3", "\\theta")])
        c.drawString(200, 480, "Tabelle 21: Klammern")  # type: ignore[attr-defined]
        rows = [("c1", "\\lceil", "d1", "\\rceil"), ("c2", "\\langle", "d2", "\\rangle")]
        _symbol_table(c, 456, [*rows, ("c3", "\\lfloor", "d3", "\\rfloor")])

    text = extract(drawn_pdf(draw), filename="captions.pdf").text
    assert text.index("\\\\alpha") < text.index("Tabelle 21") < text.index("\\\\lceil")


def _docbook_table(c: object, top: float, rows: list[tuple[str, str]], caption: str) -> None:
    """A DocBook table: rules between rows, a column rule inside, caption below."""
    left, mid, right = 60.0, 200.0, 540.0
    c.line(left, top, right, top)  # type: ignore[attr-defined]
    for i, row in enumerate(rows):
        y = top - 14 * (i + 1)
        c.drawString(left + 3, y + 4, row[0])  # type: ignore[attr-defined]
        c.drawString(mid + 3, y + 4, row[1])  # type: ignore[attr-defined]
        c.line(left, y, right, y)  # type: ignore[attr-defined]
        c.line(mid, y, mid, y + 14)  # type: ignore[attr-defined]
    c.drawString(220, top - 14 * len(rows) - 22, caption)  # type: ignore[attr-defined]


def test_two_ruled_tables_with_a_caption_between_stay_two_tables_with_their_captions() -> None:
    # debian-reference-de p56: Tabelle 1.18, its caption below it, then Tabelle 1.19
    # about 50 pt lower: the rule stacks were one table holding the caption as a row.
    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        rows = [("locale-Wert", "Bedeutung"), ("xx", "Sprach-Code"), ("YY", "Länder-Code")]
        _docbook_table(c, 700, rows, "Tabelle 1.18: Die drei Teile des locale-Wertes")
        rows = [
            ("Gebietsschema", "Sprache"),
            ("de_DE.UTF-8", "Deutsch"),
            ("fr_FR.UTF-8", "Französisch"),
        ]
        _docbook_table(c, 620, rows, "Tabelle 1.19: Liste mit Empfehlungen")
        c.drawString(60, 500, "Tabelle 2.1 ist weiter unten beschrieben.")  # type: ignore[attr-defined]

    r = extract(drawn_pdf(draw), filename="docbook.pdf")
    assert [t.caption for t in r.report.tables] == [
        "Tabelle 1.18: Die drei Teile des locale-Wertes",
        "Tabelle 1.19: Liste mit Empfehlungen",
    ]
    first = r.text.index("Tabelle 1.18")
    assert first < r.text.index("| xx | Sprach-Code |") < r.text.index("Tabelle 1.19")
    assert r.text.index("Tabelle 1.19") < r.text.index("| de_DE.UTF-8 | Deutsch |")


OPTIONS = ("varioref", "centerpagenumber", "headline (ab v1.2)", "oldfonts")


def _margin_notes(c: object) -> None:
    """hausarbeit-jura's option list: paragraphs at x = 145 pt, each with the option's
    name (of its own length) right-aligned in the left margin beside its first or
    second line."""
    c.line(72, 800, 520, 800)  # type: ignore[attr-defined]
    y = 760.0
    for i in range(4):
        c.setFont("Courier", 7)  # type: ignore[attr-defined]
        name = OPTIONS[i]
        c.drawRightString(135, y - 15 * (i % 2), name)  # type: ignore[attr-defined]
        c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
        for j, part in enumerate(
            (
                f"Paragraph {i} begins here and the option set beside it in the",
                f"margin is {OPTIONS[i]}, which this sentence of paragraph {i} explains",
                "before the paragraph ends on its third line.",
            )
        ):
            c.drawString(145, y - 15 * j, part)  # type: ignore[attr-defined]
        y -= 60


def test_margin_notes_stand_before_their_paragraph_not_inside_it() -> None:
    text = extract(drawn_pdf(_margin_notes), filename="m.pdf").text
    for i in range(4):
        sentence = (
            f"Paragraph {i} begins here and the option set beside it in the margin is "
            f"{OPTIONS[i]}, which this sentence of paragraph {i} explains before the "
            "paragraph ends on its third line."
        )
        assert sentence in text
        assert text.index(f"{OPTIONS[i]}\n") < text.index(sentence)


REMARKS = ("Remark one here", "Another remark", "A third remark", "Last remark")


def _outer_notes(side: str) -> object:
    """classicthesis' margin remarks: justified 10 pt paragraphs between x = 100 and 400,
    each with a remark in 8 pt roman (not typewriter) beside its first line in the
    outer margin, right-aligned on the left side, and its date (no word) beside the
    second; the page number stands out there too."""

    def draw(c: object) -> None:
        y = 760.0
        c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
        c.drawString(410 if side == "right" else 80, 800, "7")  # type: ignore[attr-defined]
        for i in range(4):
            c.setFont("Times-Roman", 8)  # type: ignore[attr-defined]
            if side == "right":
                c.drawString(420, y, REMARKS[i])  # type: ignore[attr-defined]
                c.drawString(420, y - 12, f"2004-09-1{i}")  # type: ignore[attr-defined]
            else:
                c.drawRightString(90, y, REMARKS[i])  # type: ignore[attr-defined]
                c.drawRightString(90, y - 12, f"2004-09-1{i}")  # type: ignore[attr-defined]
            c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
            for j, part in enumerate(
                (
                    f"Paragraph {i} begins here and the remark set beside it in the",
                    "outer margin is smaller, and this sentence of the paragraph runs",
                    "on until the paragraph ends on its third line.",
                )
            ):
                width = c.stringWidth(part, "Times-Roman", 10)  # type: ignore[attr-defined]
                line = c.beginText(100, y - 12 * j)  # type: ignore[attr-defined]
                line.setFont("Times-Roman", 10)
                line.setWordSpace((300 - width) / part.count(" ") if j < 2 else 0)
                line.textOut(part)
                c.drawText(line)  # type: ignore[attr-defined]
            y -= 50

    return draw


@pytest.mark.parametrize("side", ["right", "left"])
def test_remarks_in_a_smaller_font_in_the_outer_margin_stay_out_of_sentences(side: str) -> None:
    text = extract(drawn_pdf(_outer_notes(side)), filename="m.pdf").text
    for i in range(4):
        sentence = (
            f"Paragraph {i} begins here and the remark set beside it in the outer margin "
            "is smaller, and this sentence of the paragraph runs on until the paragraph "
            "ends on its third line."
        )
        assert sentence in " ".join(text.split())
        assert REMARKS[i] in text and f"2004-09-1{i}" in text


def _version_notes(c: object) -> None:
    """polyglossia's "v1.45" beside a paragraph's second line: 10 pt italic in the left
    margin (hardly smaller than the 10.9 pt text), no word in it."""
    y = 760.0
    for i in range(4):
        c.setFont("Times-Italic", 10)  # type: ignore[attr-defined]
        c.drawString(40, y - 13, f"v1.4{i}")  # type: ignore[attr-defined]
        c.setFont("Times-Roman", 10.9)  # type: ignore[attr-defined]
        for j, part in enumerate(
            (
                f"Paragraph {i} begins here and the version beside it",
                "in the margin says when its command came, and the",
                "sentence runs on until the paragraph ends here.",
            )
        ):
            c.drawString(120, y - 13 * j, part)  # type: ignore[attr-defined]
        y -= 52


def test_version_notes_hardly_smaller_than_the_text_stay_out_of_sentences() -> None:
    text = " ".join(extract(drawn_pdf(_version_notes), filename="v.pdf").text.split())
    for i in range(4):
        assert (
            f"Paragraph {i} begins here and the version beside it in the margin says when its "
            "command came, and the sentence runs on until the paragraph ends here."
        ) in text
        assert f"v1.4{i}" in text


KEY_ENTRIES = (
    (
        "viewport Four lengths, as for the bounding box, but taken relative",
        "to the origin of the box given in the file, so a part of the image",
        "is shown: the lower left inch of it with the values 0 0 72 and 72",
        "in this order.",
    ),
    (
        "trim Like the viewport key, but the lengths here say how much is",
        "taken away from each side of the picture, or added where they are",
        "negative, from the left side, the bottom, the right side and the top",
        "in turn.",
    ),
    (
        "totalheight The height and the depth of the figure together, which",
        "differs from its height once it is rotated: turned by ninety degrees",
        "a figure may then have no height at all but quite a large depth below",
        "the line.",
    ),
    (
        "keepaspectratio A boolean key: when it is true, giving both the width",
        "and the height does not distort the figure, which is scaled so that",
        "neither of the two dimensions that were asked for is exceeded by it",
        "at all.",
    ),
    (
        "pagebox Which of the rectangles a PDF file may define is taken as",
        "its bounding box: the media box, the crop box, the bleed box, the",
        "trim box or the art box, where the driver picks one when none",
        "is named.",
    ),
)


def _dated_key_list(c: object) -> None:
    """grfguide's key list: entries of justified 10 pt text between x = 125 and 410, a
    dated note in 9 pt beside the first two lines of every entry ("New feature" over
    its date), the notes ending together. Notes stand on half of the lines, and more
    lines end at the notes' edge than at the text's (the last line of an entry is
    short, the lines with a note end in it)."""
    y = 760.0
    for i in range(5):
        c.setFont("Times-Roman", 9)  # type: ignore[attr-defined]
        c.drawRightString(470, y, "New feature")  # type: ignore[attr-defined]
        c.drawRightString(470, y - 12, f"1995/06/0{i}")  # type: ignore[attr-defined]
        for j, part in enumerate(KEY_ENTRIES[i]):
            width = c.stringWidth(part, "Times-Roman", 10)  # type: ignore[attr-defined]
            line = c.beginText(125, y - 12 * j)  # type: ignore[attr-defined]
            line.setFont("Times-Roman", 10)
            line.setWordSpace((285 - width) / part.count(" ") if j < 3 else 0)
            line.textOut(part)
            c.drawText(line)  # type: ignore[attr-defined]
        y -= 56  # entries 8 pt apart, as TeX sets a list


def test_dated_notes_beside_most_lines_of_a_key_list_stay_out_of_sentences() -> None:
    text = " ".join(extract(drawn_pdf(_dated_key_list), filename="k.pdf").text.split())
    for i in range(5):
        assert " ".join(KEY_ENTRIES[i]) in text
        assert f"New feature 1995/06/0{i}" in text


def test_an_example_beside_its_source_in_another_size_stays_two_texts() -> None:
    # bibleref-german: each typeset example on the baseline of its source line, in
    # a smaller typewriter font; no rows of the page have cells there: not a table.
    pairs = [("Offenbarung 13,17", "\\bibleverse{Revelation}(13:17)")]
    pairs += [
        ("Offenbarung 13", "\\bibleverse{Rev}(13:)"),
        ("Genesis 1,1", "\\bibleverse{Gen}(1:1)"),
    ]

    def draw(c: object) -> None:
        c.line(50, 760, 545, 760)  # type: ignore[attr-defined]  # a path: pdfplumber reads it
        y = 700.0
        for example, source in pairs:
            c.setFont("Helvetica", 16)  # type: ignore[attr-defined]
            c.drawString(60, y, example)  # type: ignore[attr-defined]
            c.setFont("Courier", 7)  # type: ignore[attr-defined]
            c.drawString(300, y, source)  # type: ignore[attr-defined]
            y -= 30

    text = extract(drawn_pdf(draw), filename="example.pdf").text
    for example, source in pairs:
        assert example in text and source in text
        assert f"{example} {source}" not in text


def _footnote_marks(c: object) -> None:
    """l2tabu p10: a paragraph whose second line holds a raised footnote mark;
    pdfplumber clusters glyphs by their tops and made the mark a line of its own
    between the two lines, so the word hyphenated at the first line's end was not
    joined."""
    c.line(72, 800, 520, 800)  # type: ignore[attr-defined]  # a path: pdfplumber reads it
    c.setFont("Times-Roman", 11)  # type: ignore[attr-defined]
    first = "Warum sollte man die alten Befehle nicht verwenden? Die alten unterstüt-"
    c.drawString(72, 700, first)  # type: ignore[attr-defined]
    x = 72.0
    for size, rise, text in (
        (11, 0, "zen nicht die Schriftverwaltung"),
        (9, 5, "12"),
        (11, 0, " von LaTeX. Der Rest des Satzes folgt hier."),
    ):
        c.setFont("Times-Roman", size)  # type: ignore[attr-defined]
        c.drawString(x, 700 - 14 + rise, text)  # type: ignore[attr-defined]
        x += pdfmetrics.stringWidth(text, "Times-Roman", size)
    c.setFont("Times-Roman", 11)  # type: ignore[attr-defined]
    c.drawString(72, 686 - 14, "Eine dritte Zeile des Absatzes schliesst ihn ab.")  # type: ignore[attr-defined]


def test_a_raised_footnote_mark_stays_in_its_line() -> None:
    text = extract(drawn_pdf(_footnote_marks), filename="marks.pdf").text
    assert "Die alten unterstützen nicht die Schriftverwaltung12 von LaTeX. Der Rest" in text


def _glyph(
    x0: float, text: str, base: float, size: float, top: float | None = None
) -> dict[str, object]:
    return {
        "text": text,
        "x0": x0,
        "x1": x0 + 0.5 * size,
        "top": base - size if top is None else top,
        "bottom": base,
        "size": size,
        "matrix": (1, 0, 0, 1, x0, -base),
    }


def test_marks_and_a_tall_glyph_on_the_baseline_join_the_line_below() -> None:
    # l2tabu's row "12 2": a footnote mark (7 pt, raised 4 pt) and the "2" of "LaTeX 2e"
    # in a math font whose glyph box starts 4 pt above the line's, on its baseline.
    from chunkwise.extract.pdf.rows import _same_baseline

    above = [_glyph(72 + 5.5 * i, ch, 595.6, 11) for i, ch in enumerate("Die alten unterstüt-")]
    line = [_glyph(72 + 5.5 * i, ch, 609.6, 11) for i, ch in enumerate("zen nicht die Schrift")]
    marks = [_glyph(187.5, "1", 605.6, 7), _glyph(191.0, "2", 605.6, 7)]
    marks.append(_glyph(240.0, "2", 609.6, 11, top=594.6))
    rest = [_glyph(245.5 + 5.5 * i, ch, 609.6, 11) for i, ch in enumerate("e von")]
    rows = [(above, "Die alten unterstüt-"), (marks, "12 2"), (line + rest, "zen ... e von")]
    joined = _same_baseline(rows)
    assert len(joined) == 2
    assert {c["text"] for c in joined[1][0]} >= {"1", "2", "z"}
    # A line in a smaller font a whole line below is a line of its own.
    small = [_glyph(72 + 4 * i, ch, 622.0, 7) for i, ch in enumerate("Fussnote")]
    assert len(_same_baseline([(line, "zen"), (small, "Fussnote")])) == 2


def _hline(c: object, x0: float, x1: float, top: float) -> None:
    c.line(x0, PAGE[1] - top, x1, PAGE[1] - top)  # type: ignore[attr-defined]


def _vline(c: object, x: float, top: float, bottom: float) -> None:
    c.line(x, PAGE[1] - top, x, PAGE[1] - bottom)  # type: ignore[attr-defined]


def _dblatex_table(c: object, cols: list[float], top: float, rows: list[list[str]]) -> None:
    """A dblatex table: rules between the rows in one piece per column, vertical rules
    between the columns only (no outer borders)."""
    y = top
    _hline(c, cols[0], cols[-1], y)
    for row in rows:
        for x, text in zip(cols, row, strict=False):
            c.drawString(x + 3, PAGE[1] - y - 9, text)  # type: ignore[attr-defined]
        for x in cols[1:-1]:
            _vline(c, x, y, y + 12)
        y += 12
        for a, b in itertools.pairwise(cols):
            _hline(c, a, b, y)


def _reference_page(c: object) -> None:
    """debian-reference-de p188 and p94: a table whose right end (561.6) lies 2.75 pt
    from a note box's (564.35), which lies 2.55 pt from a code box's sides (566.9,
    569.9); and below the note box, 21 pt down, a table 0.3 pt wider than it, with a
    word running past the table's right end."""
    c.setFont("Helvetica", 8)  # type: ignore[attr-defined]
    rows = [["Paket", "Popcon", "Größe", "Beschreibung"]]
    rows += [[f"paket{i}", f"V:{i}", f"{10 * i}", f"Werkzeug Nummer {i}"] for i in range(4)]
    _dblatex_table(c, [62.0, 164.4, 230.8, 270.1, 561.6], 80.0, rows)
    _hline(c, 65.45, 564.35, 300.0)  # the note box: rules above and below its text
    c.drawString(70, PAGE[1] - 315, "Tipp Hier sind nur die grundlegenden Formate.")  # type: ignore[attr-defined]
    _hline(c, 65.45, 564.35, 340.0)
    rows = [["Namenskomponente", "Zeichen", "Existenz"]]
    rows += [[f"teil{i}", f"[a-z{i}]+", "optional"] for i in range(3)]
    rows.append(["datei", "[a-z]+"])
    _dblatex_table(c, [62.2, 213.2, 364.2, 561.4], 361.0, rows)
    c.setFont("Courier", 9)  # type: ignore[attr-defined]
    c.drawString(367, PAGE[1] - 361 - 4 * 12 - 9, "name_upstream-version_architektur_all.deb")  # type: ignore[attr-defined]
    c.setFillGray(0.95)  # type: ignore[attr-defined]
    c.rect(56.7, PAGE[1] - 540, 510.2, 40, stroke=0, fill=1)  # type: ignore[attr-defined]
    c.setFillGray(0)  # type: ignore[attr-defined]
    _hline(c, 53.7, 569.9, 498.5)
    _hline(c, 53.7, 569.9, 541.5)
    c.drawString(60, PAGE[1] - 520, "# date MMDDhhmmCCYY")  # type: ignore[attr-defined]


def test_tables_keep_their_columns_beside_boxes_and_words_past_their_end() -> None:
    text = extract(drawn_pdf(_reference_page), filename="ref.pdf").text
    assert "| Paket | Popcon | Größe | Beschreibung |" in text
    assert "| paket2 | V:2 | 20 | Werkzeug Nummer 2 |" in text
    assert "| Namenskomponente | Zeichen | Existenz |" in text
    assert "| teil1 | [a-z1]+ | optional |" in text
    assert not any(ln.startswith("|") and "Tipp" in ln for ln in text.split("\n"))
    assert text.count(".deb") == 1
    assert "\n\\# date MMDDhhmmCCYY\n" in text  # the code box stays text


def test_body_size_is_the_prose_size_when_more_code_than_prose_is_set() -> None:
    # A package manual with its source code appended (microtype-DE: more 8 pt
    # typewriter characters than 10 pt prose): the prose is the body, not headings.
    prose = [
        "Every character needs a certain amount of protrusion and kerning.",
        "It may also be desirable to limit the maximum expansion of some.",
        "Since every font looks different, the settings must apply to a font.",
    ]
    code = "\\def\\MT@setup@{\\MT@map@clist@c\\MT@features{\\MT@feat@setup}}%"

    def draw(c: object) -> None:
        c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
        for i, line in enumerate(prose):
            c.drawString(72, 780 - 12 * i, line)  # type: ignore[attr-defined]
        c.setFont("Courier", 8)  # type: ignore[attr-defined]
        for i in range(40):
            c.drawString(72, 700 - 10 * i, f"{i + 1:3d} {code}")  # type: ignore[attr-defined]

    text = extract(drawn_pdf(draw), filename="manual.pdf").text
    assert " ".join(prose) in text
    assert not [ln for ln in text.splitlines() if ln.startswith("#") and "protrusion" in ln]


def _titled_table(c: object, *, group_row: bool) -> None:
    """A ruled table whose first row is one cell across it: a title bar over the
    column heads, or (with `group_row`) the first of two rows naming groups of rows."""
    rows = [("First column", "Third column"), ("P-column", "12.34"), ("Total", "100.6")]
    if group_row:
        rows = [("aaa", "1.2"), ("", "New options"), ("bbb", "4.5")]
    top, pitch = 714.0, 14.0
    bottom = top - pitch * (len(rows) + 1)
    c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
    c.rect(100, bottom, 300, top - bottom)  # type: ignore[attr-defined]
    for k in range(1, len(rows) + 1):
        c.line(100, top - pitch * k, 400, top - pitch * k)  # type: ignore[attr-defined]
    c.drawString(180, top - 10, "A long table example")  # type: ignore[attr-defined]
    for k, (left, right) in enumerate(rows, start=1):
        y = top - pitch * k
        if left:
            c.line(250, y, 250, y - pitch)  # type: ignore[attr-defined]
            c.drawString(105, y - 10, left)  # type: ignore[attr-defined]
            c.drawString(255, y - 10, right)  # type: ignore[attr-defined]
        else:
            c.drawString(180, y - 10, right)  # type: ignore[attr-defined]


def test_a_title_bar_over_the_column_heads_names_the_table_and_is_not_its_header() -> None:
    text = extract(drawn_pdf(lambda c: _titled_table(c, group_row=False)), filename="t.pdf").text
    assert "| First column | Third column |\n| --- | --- |\n| P-column | 12.34 |" in text
    assert text.index("A long table example") < text.index("| First column")
    assert "| A long table example" not in text
    # Rows of one cell across the table below the first name groups: the first stays.
    grouped = extract(drawn_pdf(lambda c: _titled_table(c, group_row=True)), filename="g.pdf").text
    assert "| A long table example |" in grouped


def test_empty_slivers_between_coloured_panels_are_no_columns() -> None:
    from chunkwise.extract.pdf.tables.ruled import without_title

    # colortbl.pdf p3: 6 pt gaps between the panels come out as columns of their own,
    # reaching down over the body (a header row over them seemed to span the body).
    def row(*cells: tuple[float, float] | None, top: float) -> list[object]:
        return [None if c is None else (c[0], top, c[1], top + 14.0) for c in cells]

    wide, left, sliver, mid, right = (
        (198.0, 445.0),
        (198.0, 260.0),
        (260.0, 266.0),
        (266.0, 357.0),
        (363.0, 445.0),
    )
    grid = [
        row(wide, None, None, None, None, top=126.0),
        row((198.0, 357.0), None, None, (357.0, 363.0), right, top=140.0),
        row(left, sliver, mid, None, right, top=154.0),
        row(left, None, mid, None, right, top=168.0),
        row(left, None, mid, None, right, top=182.0),
        row(wide, None, None, None, None, top=196.0),
    ]
    texts = [
        ["A long table example (continued)", None, None, None, None],
        ["First two columns", None, None, "", "Third column"],
        ["aaa", "", "Depending on your driver", None, "12·4"],
        ["aaa", None, "bbb", None, "45·3"],
        ["ccc", None, "ddd", None, "7·8"],
        ["The End", None, None, None, None],
    ]
    used = [(200.0, 128.0, 300.0, 138.0), (200.0, 142.0, 280.0, 151.0)]
    out, boxes = without_title(texts, grid, used)  # type: ignore[arg-type]
    assert out == [
        ["First two columns", None, "Third column"],
        ["aaa", "Depending on your driver", "12·4"],
        ["aaa", "bbb", "45·3"],
        ["ccc", "ddd", "7·8"],
        ["The End", None, None],
    ]
    assert len(boxes[0]) == 3 and used == [(200.0, 142.0, 280.0, 151.0)]  # the title stays text


def test_a_white_row_of_a_table_shaded_every_other_row_keeps_its_columns() -> None:
    from chunkwise.extract.pdf.tables.ruled import _unshaded_row

    # xcolor's option table: column edges only in the shaded rows, so pdfplumber
    # merges each white row into one cell across the table ("natural (Default.) ...").
    def word(x0: float, x1: float, text: str) -> dict[str, object]:
        return {"x0": x0, "x1": x1, "top": 225.0, "bottom": 233.0, "text": text}

    edges = [74.0, 202.0, 498.0]
    white: list[object] = [(74.0, 223.0, 498.0, 249.0), None]
    words = [
        word(76.0, 110.0, "natural"),
        word(204.0, 250.0, "(Default.)"),
        word(252.0, 290.0, "Keep"),
    ]
    assert _unshaded_row(white, edges, words) == [  # type: ignore[arg-type]
        (74.0, 223.0, 202.0, 249.0),
        (202.0, 223.0, 498.0, 249.0),
    ]
    # A centred title over the table, or a word across the edge, stays one cell.
    title = [word(150.0, 190.0, "A long"), word(205.0, 260.0, "table")]
    assert _unshaded_row(white, edges, title) == white  # type: ignore[arg-type]
    across = [word(76.0, 110.0, "natural"), word(190.0, 230.0, "spanning")]
    assert _unshaded_row(white, edges, across) == white  # type: ignore[arg-type]


def test_a_line_with_its_margin_note_taken_out_keeps_the_readers_text() -> None:
    # polyglossia: the reader's line text has the word spaces and a ligature's
    # letters ("of counter as a letter") that its segments' text lacks.
    from chunkwise.extract.pdf.columns import margin_order
    from chunkwise.extract.pdf.lines import Line, Segment

    def line(top: float, segments: list[Segment], text: str | None = None) -> Line:
        joined = " ".join(s.text for s in segments)
        return Line(text or joined, top, top + 9, segments[0].x0, 10.0, False, "", segments)

    body = [Segment(100, 400, f"body text line {i} runs on", size=10.0) for i in range(12)]
    lines = [line(100 + 12 * i, [seg]) for i, seg in enumerate(body)]
    for i in (2, 6):
        lines[i] = line(lines[i].top, [Segment(20, 80, f"\\note{i}", mono=True), body[i]])
    note = Segment(20, 80, "\\latinAlph", mono=True)
    seg = Segment(100, 400, "Representation ofcounter as a leter", size=10.0)
    lines[9] = line(lines[9].top, [note, seg], "\\latinAlph Representation of counter as a letter")
    texts = [ln.text for ln in margin_order(lines)]
    assert "\\latinAlph" in texts
    assert "Representation of counter as a letter" in texts


def _labels_beside_the_frame(c: object) -> None:
    """The Europass CV's language grid: a frame of two header rows ("Verstehen" over
    "Hören" and "Lesen", "Schreiben" over both rows) and a row per language, whose name
    stands right-aligned left of the frame, in the CV's label column; the header rows
    have a label of their own there too; a paragraph follows below."""
    xs = [180.0, 290.0, 400.0, 510.0]
    top, mid, head = 700.0, 685.0, 660.0
    body = [head - 30.0 * (k + 1) for k in range(3)]
    c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
    c.drawRightString(150, top - 12, "Selbstbeurteilung")  # type: ignore[attr-defined]
    c.drawCentredString(290, top - 11, "Verstehen")  # type: ignore[attr-defined]
    c.drawCentredString(455, top - 11, "Schreiben")  # type: ignore[attr-defined]
    c.drawCentredString(235, mid - 15, "Hören")  # type: ignore[attr-defined]
    c.drawCentredString(345, mid - 15, "Lesen")  # type: ignore[attr-defined]
    levels = {
        "Französisch": ("C1", "C2", "B2"),
        "Deutsch": ("A2", "A1", "A2"),
        "Polnisch": ("B1", "B1", "A1"),
    }
    for (name, cells), y in zip(levels.items(), body, strict=True):
        c.drawRightString(150, y + 11, name)  # type: ignore[attr-defined]
        for x, cell in zip(xs, cells, strict=False):
            c.drawString(x + 4, y + 11, f"{cell} Sprachverwendung")  # type: ignore[attr-defined]
    for y in (top, head, *body):
        c.line(xs[0], y, xs[-1], y)  # type: ignore[attr-defined]
    c.line(xs[0], mid, xs[2], mid)  # type: ignore[attr-defined]
    for x in xs:
        c.line(x, body[-1], x, mid if x == xs[1] else top)  # type: ignore[attr-defined]
    c.drawString(60, body[-1] - 30, "A paragraph below the grid is prose.")  # type: ignore[attr-defined]


def test_row_labels_beside_a_frame_are_its_first_column() -> None:
    r = extract(drawn_pdf(_labels_beside_the_frame), filename="cv.pdf")
    (table,) = r.report.tables
    heads = ("Selbstbeurteilung", "Verstehen / Hören", "Verstehen / Lesen", "Schreiben")
    assert table.header == "| " + " | ".join(heads) + " |"
    for name, levels in (("Französisch", "C1 C2 B2"), ("Polnisch", "B1 B1 A1")):
        cells = " | ".join(f"{level} Sprachverwendung" for level in levels.split())
        assert f"| {name} | {cells} |" in r.text
    assert "Deutsch\n" not in r.text and "A paragraph below the grid is prose." in r.text


def test_a_word_in_capitals_broken_at_a_line_end_is_joined_where_the_document_writes_it_whole() -> (
    None
):
    # A manual page's cross-reference in capitals, hyphenated by the typesetter:
    # "under CONDI-" + "TIONAL EXPRESSIONS", the section head written whole elsewhere.
    pages = [["CONDITIONAL EXPRESSIONS", "are used by the test builtin."]]
    seen = learn(pages)
    assert join_lines(["listed above under CONDI-", "TIONAL EXPRESSIONS, the"], seen) == (
        "listed above under CONDITIONAL EXPRESSIONS, the"
    )
    # Not written whole anywhere: the hyphen is the word's own, as before a capital.
    assert join_lines(["the SHELL-", "BUILTIN list"], seen) == "the SHELL-BUILTIN list"
    assert join_lines(["per E-", "Mail"], seen) == "per E-Mail"


def test_a_path_wrapped_at_its_own_hyphen_or_slash_stays_one_token() -> None:
    # Issue #26 (f): a cell or line wrapping inside "/usr/lib/x86_64-linux-gnu/pkgconfig/"
    # lost the path's hyphen (ruled cells) or got a space (banded and aligned cells).
    from chunkwise.extract.pdf.tables.gutters import join_cell_text

    wrapped = ["/usr/lib/x86_64-linux-", "gnu/pkgconfig/"]
    assert join_lines(wrapped, in_cell=True) == "/usr/lib/x86_64-linux-gnu/pkgconfig/"
    assert join_cell_text(*wrapped) == "/usr/lib/x86_64-linux-gnu/pkgconfig/"
    assert join_cell_text("/usr/lib/", "x86_64-linux-gnu/") == "/usr/lib/x86_64-linux-gnu/"
    assert join_lines(["see /usr/lib/x86_64-linux-", "gnu/ here"]) == (
        "see /usr/lib/x86_64-linux-gnu/ here"
    )
    assert join_cell_text("Tabellenein-", "träge") == "Tabelleneinträge"  # still a word
