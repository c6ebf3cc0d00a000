"""Tables as dvips + Acrobat Distiller and TeX's array packages set them, drawn with reportlab.

Distiller writes a table's rules as thin image masks (no vector path on the
page) and sets its fonts at size 1, scaled by the text matrix; mdwtab-style
tables rule groups of rows whose descriptions wrap over different numbers of
lines, and size a column to its widest entry.
"""

from __future__ import annotations

import io

import pytest

from chunkwise.extract import extract
from tests.drawn_pdf import drawn_pdf

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab.pdfgen.canvas")
reader_mod = pytest.importorskip("reportlab.lib.utils")
image_mod = pytest.importorskip("PIL.Image")

RULE = 0.48  # points: Distiller's image rules are this thin


def _black() -> object:
    return reader_mod.ImageReader(image_mod.new("1", (1, 1), 0))


def _image_rule(c: object, x0: float, y0: float, x1: float, y1: float) -> None:
    """A rule as Distiller draws it: a one-pixel image stretched over the rule's box."""
    width, height = max(x1 - x0, RULE), max(y1 - y0, RULE)
    c.drawImage(_black(), x0, y0, width=width, height=height)  # type: ignore[attr-defined]


def _scaled_text(c: object, x: float, y: float, text: str, size: float) -> None:
    """Text at font size 1, scaled to `size` by the matrix (Distiller's way)."""
    c.saveState()  # type: ignore[attr-defined]
    c.transform(size, 0, 0, size, x, y)  # type: ignore[attr-defined]
    c.setFont("Times-Roman", 1)  # type: ignore[attr-defined]
    c.drawString(0, 0, text)  # type: ignore[attr-defined]
    c.restoreState()  # type: ignore[attr-defined]


ROWS = [("\\extrasep", "Space added between the rows of a table.")]


def _image_ruled_table(c: object) -> None:
    left, mid, right, top = 100.0, 200.0, 420.0, 700.0
    _scaled_text(c, left + 6, top - 12, "Parameter", 10)
    _scaled_text(c, mid + 6, top - 12, "Meaning", 10)
    ys = [top, top - 16]
    y = top - 16
    for name, meaning in ROWS:
        y -= 16
        _scaled_text(c, left + 6, y, name, 10)
        _scaled_text(c, mid + 6, y, meaning, 10)
        ys.append(y - 4)
    y -= 16  # a description wrapped over two lines beside its one-line name
    _scaled_text(c, left + 6, y, "\\hlx", 10)
    _scaled_text(c, mid + 6, y, "Rules and gaps between rows,", 10)
    y -= 11
    _scaled_text(c, mid + 6, y, "given as letters.", 10)
    ys.append(y - 4)
    for y in ys:
        _image_rule(c, left, y, right, y)
    for x in (left, mid, right):
        _image_rule(c, x, ys[-1], x, top)
    for k in range(12):  # prose below at the same size: body text, not headings
        _scaled_text(c, left, 560 - 12 * k, f"Body line {k} of the page text here.", 10)


def test_rules_drawn_as_thin_images_make_a_ruled_table() -> None:
    text = extract(drawn_pdf(_image_ruled_table), filename="distilled.pdf").text
    assert "| Parameter | Meaning |" in text
    assert "| \\\\extrasep | Space added between the rows of a table. |" in text
    assert "| \\\\hlx | Rules and gaps between rows, given as letters. |" in text
    assert "#" not in text.replace("## Page 1", "")  # no body line taken for a heading


def test_text_scaled_by_the_matrix_has_its_page_size_in_the_fast_reader() -> None:
    pypdfium2 = pytest.importorskip("pypdfium2")
    from chunkwise.extract.pdf.pdfium import read_page_fast

    def draw(c: object) -> None:
        _scaled_text(c, 100, 700, "Ten points tall", 10)

    doc = pypdfium2.PdfDocument(drawn_pdf(draw))
    lines, _unmapped = read_page_fast(doc[0], None)
    assert [round(ln.size) for ln in lines] == [10]


def _grouped_entries_table(c: object) -> None:
    """One frame around three rows; each description wraps over its own number of
    lines; each label is centred on its description; rows are 2 pt further apart
    than the lines of a description."""
    c.setFont("Times-Roman", 9)  # type: ignore[attr-defined]
    left, mid, right, top = 100.0, 190.0, 400.0, 700.0
    entries = [
        ("\\tabsep", ["Extra space added between rows of a", "tabular environment. Default 0 pt."]),
        ("\\arraysep", ["Analogous to \\tabsep, but for arrays.", "Default 1 jot (3 pt)."]),
        (
            "\\smallsep",
            [
                "Analogous to \\tabsep, for small ones.",
                "Still analogous and long",
                "ments. Default 1 pt.",
            ],
        ),
        ("\\onesep", ["Default is 3 pt."]),
    ]
    y = top - 2
    for label, lines in entries:
        first = y - 9
        for text in lines:
            y -= 11
            c.drawString(mid + 6, y, text)  # type: ignore[attr-defined]
        c.drawString(left + 6, (first + y) / 2, label)  # type: ignore[attr-defined]
        y -= 2.5  # the row separation
    bottom = y - 4
    for yy in (top, bottom):
        c.line(left, yy, right, yy)  # type: ignore[attr-defined]
    for x in (left, mid, right):
        c.line(x, top, x, bottom)  # type: ignore[attr-defined]


def test_rows_in_one_frame_are_split_at_the_wider_gaps_between_entries() -> None:
    text = extract(drawn_pdf(_grouped_entries_table), filename="entries.pdf").text
    assert (
        "| \\\\arraysep | Analogous to \\\\tabsep, but for arrays. Default 1 jot (3 pt). |" in text
    )
    assert "| \\\\onesep | Default is 3 pt. |" in text
    assert (
        "| \\\\tabsep | Extra space added between rows of a tabular environment. Default 0 pt. |"
        in text
    )


def _full_width_entries_table(c: object) -> None:
    """One frame around one-line rows whose column is exactly as wide as its widest
    entry (TeX's l column): every line looks full, none wraps."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
    rows = [
        ("l", "Left aligned text (tabular) or equation (array)."),
        ("c", "Centred text (tabular) or equation (array)."),
        ("r", "Right aligned text (tabular) or equation (array)."),
    ]
    widest = max(stringWidth(text, "Times-Roman", 10) for _l, text in rows)
    left, mid, top = 100.0, 140.0, 700.0
    right = mid + 6 + widest + 6
    y = top
    for label, text in rows:
        y -= 12
        c.drawString(left + 6, y, label)  # type: ignore[attr-defined]
        c.drawString(mid + 6, y, text)  # type: ignore[attr-defined]
    bottom = y - 4
    for yy in (top, bottom):
        c.line(left, yy, right, yy)  # type: ignore[attr-defined]
    for x in (left, mid, right):
        c.line(x, top, x, bottom)  # type: ignore[attr-defined]


def test_sentences_of_a_column_as_wide_as_its_widest_are_rows() -> None:
    text = extract(drawn_pdf(_full_width_entries_table), filename="lcr.pdf").text
    assert "| c | Centred text (tabular) or equation (array). |" in text
    assert "| r | Right aligned text (tabular) or equation (array). |" in text


def test_thin_images_are_rules_for_the_table_finder_and_a_picture_is_not() -> None:
    pdfplumber = pytest.importorskip("pdfplumber")
    pypdfium2 = pytest.importorskip("pypdfium2")
    from chunkwise.extract.pdf.tables.image_rules import has_rule_images, with_image_rules

    def draw(c: object) -> None:
        _image_ruled_table(c)
        c.drawImage(_black(), 100, 100, width=60, height=40)  # type: ignore[attr-defined]

    data = drawn_pdf(draw)
    with pdfplumber.open(io.BytesIO(data)) as doc:
        page = doc.pages[0]
        assert page.find_tables() == []  # no vector path: nothing to find without the rules
        ruled = with_image_rules(page)
        tables = ruled.find_tables()
        assert len(tables) == 1
        assert tables[0].extract()[0] == ["Parameter", "Meaning"]
        assert len(ruled.images) == 1  # the picture stays a picture
    assert has_rule_images(pypdfium2.PdfDocument(data)[0])

    def picture_only(c: object) -> None:
        c.drawImage(_black(), 100, 100, width=60, height=40)  # type: ignore[attr-defined]

    assert not has_rule_images(pypdfium2.PdfDocument(drawn_pdf(picture_only))[0])


def test_titles_of_tables_stacked_in_one_frame_under_the_same_heads_leave_it() -> None:
    from chunkwise.extract.pdf.tables.ruled import without_title

    def row(top: float, *texts: str) -> tuple[list[object], list[str | None]]:
        if len(texts) == 1:  # one cell across the frame
            return [(0.0, top, 100.0, top + 10), None], [texts[0], None]
        return [(0.0, top, 40.0, top + 10), (40.0, top, 100.0, top + 10)], list(texts)

    rows = [
        row(0, "Column types"),
        row(10, "Name", "Meaning"),
        row(20, "c", "Centred text."),
        row(30, "Other modifiers"),
        row(40, "Name", "Meaning"),
        row(50, "|", "A vertical rule."),
    ]
    grid = [g for g, _t in rows]
    texts = [t for _g, t in rows]
    title_word = (10.0, 32.0, 30.0, 38.0)
    used = [title_word, (2.0, 22.0, 8.0, 28.0)]
    kept, _grid = without_title(texts, grid, used)  # type: ignore[arg-type]
    assert kept == [texts[1], texts[2], texts[4], texts[5]]
    assert title_word not in used  # the second title's words go back to the prose
    # A row across the frame over other heads names a group of rows: it stays.
    texts[4] = ["Option", "Effect"]
    assert len(without_title(texts, grid, list(used))[0]) == 6  # type: ignore[arg-type]


def _late_accents(c: object) -> None:
    """OT1 umlauts as dvips + Distiller draw them: "u" in the word, the "¨" over it
    drawn only after the rest of the line (PDFium hands it back there)."""
    font, size = "Times-Roman", 11.0
    accents: list[tuple[float, float]] = []
    lines = [
        (700.0, ["Das wird rudiment", "a", "r unterst", "u", "tzt und f", "u", "r alle."]),
        (500.0, ["Die Zeile endet mit f", "u", "r"]),
    ]
    for y, parts in lines:
        x = 72.0
        for k, part in enumerate(parts):
            c.setFont(font, size)  # type: ignore[attr-defined]
            c.drawString(x, y, part)  # type: ignore[attr-defined]
            if k % 2 == 1:  # the accent centred over this letter
                inset = (_width(part, font, size) - _width("\u00a8", font, size)) / 2
                accents.append((x + inset, y))
            x += _width(part, font, size)
    c.drawString(72.0, 486.0, "und die zweite Zeile folgt.")  # type: ignore[attr-defined]
    for k in range(8):  # body text at the same size
        line = f"Body line {k} of the page text here."
        c.drawString(72.0, 660.0 - 14 * k, line)  # type: ignore[attr-defined]
    for x, y in accents:
        c.drawString(x, y + 0.5, "\u00a8")  # type: ignore[attr-defined]


def _width(text: str, font: str, size: float) -> float:
    from reportlab.pdfbase.pdfmetrics import stringWidth

    return float(stringWidth(text, font, size))


def test_an_accent_drawn_after_later_words_joins_the_letter_under_it() -> None:
    # gerdoc p2 read by PDFium: "unterst ¨ utzt", "fur die ¨" (the accent at the line end).
    text = extract(drawn_pdf(_late_accents), filename="distilled.pdf").text
    assert "Das wird rudimentär unterstützt und für alle." in text
    assert "Die Zeile endet mit für und die zweite Zeile folgt." in text
    assert "\u00a8" not in text
