"""Reference cards: pages in three columns, each a stack of titles, small key/description
tables and prose, as LaTeX cheat sheets set them (bench/realdocs: latexsheet-de)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from chunkwise.extract import extract
from chunkwise.extract.pdf.columns import find_columns, reading_order
from chunkwise.extract.pdf.lines import Glyph, Line, Segment, segments_of
from chunkwise.extract.pdf.tables.aligned import find_aligned_tables

pytest.importorskip("pdfplumber")
canvas_mod = pytest.importorskip("reportlab.pdfgen.canvas")
metrics_mod = pytest.importorskip("reportlab.pdfbase.pdfmetrics")

CARD = (792.0, 612.0)  # landscape letter
COLUMNS = (36.0, 279.0, 522.0)  # 233 pt wide, 10 pt gutters
# Each column keeps its own leading (titles and tables of other sizes above),
# so the columns' baselines do not line up.
PITCH = (10.0, 11.5, 9.0)


def _titled_table(
    c: Any, x: float, y: float, pitch: float, title: str, rows: tuple[str, float, str]
) -> float:
    """A bold title and four rows; `rows`: the key's stem, how far right of the key the
    value starts (points), the value's stem."""
    key, gap, value = rows
    c.setFont("Helvetica-Bold", 11)
    c.drawString(x, y, title)
    y -= 16
    c.setFont("Helvetica", 8)
    for i in range(4):
        c.drawString(x, y, f"{key}{i}")
        c.drawString(x + gap, y, f"{value} {i}")
        y -= pitch
    return y


def _column(c: Any, x: float, pitch: float, name: str, y: float) -> float:
    """A section: bold title, a key/description table, a prose line, another table."""
    y = _titled_table(c, x, y, pitch, f"{name} commands", (f"{name}key", 70, f"{name} description"))
    c.drawString(x, y, f"Prose of {name} that explains the table above it.")
    y -= pitch + 8
    return _titled_table(c, x, y, pitch, f"{name} options", (f"{name}opt", 110, f"{name} effect"))


def _card(*, overrun: bool = False) -> bytes:
    buf = io.BytesIO()
    c = canvas_mod.Canvas(buf, pagesize=CARD, invariant=1)
    c.line(36, 590, 756, 590)  # a rule: the page is read by pdfplumber, as TeX output is
    starts = (570, 566, 573)
    for x, pitch, name, start in zip(
        COLUMNS, PITCH, ("alpha", "beta", "gamma"), starts, strict=True
    ):
        y = float(start)
        for part in range(2):
            y = _column(c, x, pitch, f"{name}{part}", y) - 14
    if overrun:
        _cell_into_next_column(c, 240.0)
    c.showPage()
    c.save()
    return buf.getvalue()


def test_three_column_card_gives_each_column_its_own_tables_under_their_titles() -> None:
    text = extract(_card(), filename="card.pdf").text
    for name in ("alpha0", "beta1", "gamma0", "gamma1"):
        assert f"| {name}key2 | {name} description 2 |" in text
        assert f"| {name}opt3 | {name} effect 3 |" in text
        # the title stays text above its table, not a row of a page-wide table
        title = text.index(f"{name} commands")
        assert title < text.index(f"| {name}key0 |")
        assert f"Prose of {name} that explains the table above it." in text
    # columns are read one after the other, each from top to bottom
    assert text.index("alpha1 options") < text.index("beta0 commands")
    assert text.index("beta1 options") < text.index("gamma0 commands")


OVERRUN_CELL = "Bilder einbinden: \\includegraphics[width=x]{bild}"
NEXT_COLUMN = (
    "Der Ort bestimmt die Position der Umgebung: t=oben,",
    "h=hier, b=unten, p=separate Seite.",
)


def _cell_into_next_column(c: object, y: float) -> None:
    """latexsheet-de p1: a first-column cell running into the gutter, ending 4 pt
    before the second column's prose on the same baseline (less than a cell gap)."""
    c.setFont("Helvetica", 8)  # type: ignore[attr-defined]
    for i in range(3):
        c.drawString(COLUMNS[0], y - 10 * i, f"pkg{i}")  # type: ignore[attr-defined]
        cell = OVERRUN_CELL if i == 1 else f"package {i} description"
        c.drawString(COLUMNS[0] + 70, y - 10 * i, cell)  # type: ignore[attr-defined]
    for i, text in enumerate(NEXT_COLUMN):
        c.drawString(COLUMNS[1], y - 10 * (i + 1), text)  # type: ignore[attr-defined]


def test_a_cell_running_into_the_next_column_is_cut_where_that_column_starts() -> None:
    cell_end = COLUMNS[0] + 70 + metrics_mod.stringWidth(OVERRUN_CELL, "Helvetica", 8)
    assert COLUMNS[1] - 6.4 < cell_end < COLUMNS[1] - 1.2  # in the gutter, one word gap away
    text = extract(_card(overrun=True), filename="card.pdf").text
    assert f"| pkg1 | {OVERRUN_CELL.replace(chr(92), chr(92) * 2)} |" in text
    assert " ".join(NEXT_COLUMN) in text  # the second column's sentence, whole
    # the other columns are read as without the overrun
    assert "| beta1opt3 | beta1 effect 3 |" in text
    assert text.index("alpha1 options") < text.index("beta0 commands")


def _ln(top: float, *parts: tuple[float, str], size: float = 8.0) -> Line:
    segments = [Segment(x, x + 4.0 * len(t), t) for x, t in parts]
    return Line(
        " ".join(t for _x, t in parts), top, top + size, parts[0][0], size, False, segments=segments
    )


def test_a_three_column_table_over_the_page_is_not_taken_for_page_columns() -> None:
    # Every row has text in each column on one baseline: a table, read row by row.
    rows = [
        _ln(100.0 + 11 * i, (36.0, f"key {i}"), (300.0, f"value {i}"), (540.0, f"note {i}"))
        for i in range(24)
    ]
    assert find_columns(rows, CARD[0]) is None
    assert reading_order(rows, CARD[0]) == rows


def test_a_cell_holding_a_dash_is_data_not_a_broken_word() -> None:
    lines = [
        _ln(100.0, (36.0, "Name"), (110.0, "Code"), (150.0, "Beispiel")),
        _ln(120.0, (36.0, "Bindestrich"), (110.0, "-"), (150.0, "Anna-Lisa")),
        _ln(130.0, (36.0, "Halbgeviertstrich"), (110.0, "--"), (150.0, "1-5")),
        _ln(140.0, (36.0, "Geviertstrich"), (110.0, "---"), (150.0, "Ja-oder nein?")),
    ]
    _text, (table,) = find_aligned_tables(lines, 1)
    assert table.fragment.rows[1:] == [
        ["Bindestrich", "-", "Anna-Lisa"],
        ["Halbgeviertstrich", "--", "1-5"],
        ["Geviertstrich", "---", "Ja-oder nein?"],
    ]


def _row(top: float, key: str, key_end: float, text: str) -> Line:
    segments = [Segment(36.0, key_end, key), Segment(61.3, 61.3 + 4.0 * len(text), text)]
    return Line(f"{key} {text}", top, top + 8.0, 36.0, 8.0, False, segments=segments)


def test_a_gutter_as_wide_as_the_segment_gap_separates_columns() -> None:
    # Segments split at gaps wider than 0.8 em (6.4 pt at 8 pt); the coverage grid
    # of whole points must not lose such a gutter: 7 pt between key and text.
    lines = [
        _row(100.0, "\\\\", 44.0, "Manueller Zeilenumbruch"),
        _row(110.0, "\\kill", 50.0, "Aktuelle Zeile nicht ausgeben"),
        _row(120.0, "\\noindent", 54.3, "Neue Zeile nicht einruecken"),
    ]
    _text, tables = find_aligned_tables(lines, 1)
    assert [t.fragment.rows[1:] for t in tables] == [
        [
            ["\\\\", "Manueller Zeilenumbruch"],
            ["\\kill", "Aktuelle Zeile nicht ausgeben"],
            ["\\noindent", "Neue Zeile nicht einruecken"],
        ]
    ]


def test_rows_of_single_punctuation_glyphs_stay_rows_in_a_slot_table() -> None:
    # encguide's table of required glyphs: a row whose first cell is "," or "-"
    # is a glyph and its slot, not a cell going on in the next line.
    glyphs = [("Glyph", "Position"), ("+", "43"), (",", "44"), ("-", "45"), (".", "46")]
    lines = [_ln(100.0 + 10 * i, (36.0, g), (80.0, p)) for i, (g, p) in enumerate(glyphs)]
    _text, (table,) = find_aligned_tables(lines, 1)
    body = [r for r in table.fragment.rows if any(r)]
    assert body[1:] == [["+", "43"], [",", "44"], ["-", "45"], [".", "46"]]


def _sized(top: float, parts: list[tuple[float, str, float, bool, bool]]) -> Line:
    """Parts: (x, text, size, bold, mono); the line's size is its largest part's."""
    segments = [
        Segment(x, x + 0.5 * size * len(t), t, mono, size, bold) for x, t, size, bold, mono in parts
    ]
    big = max(parts, key=lambda p: p[2])
    text = " ".join(p[1] for p in parts)
    return Line(text, top, top + big[2], parts[0][0], big[2], big[3], segments=segments)


def test_a_table_of_font_sizes_is_not_cut_at_its_larger_rows_a_title_is_a_cut() -> None:
    # l2kurz's Tabelle 6: commands in a bold typewriter font, each description in
    # the size it names; the first row is tiny, later rows are much larger.
    sizes = [("\\tiny", 6.0), ("\\small", 9.0), ("\\large", 12.0), ("\\Large", 14.4)]
    rows = [
        _sized(
            100.0 + 20 * i, [(200.0, cmd, 10.0, True, True), (280.0, "Schrift", size, False, False)]
        )
        for i, (cmd, size) in enumerate(sizes)
    ]
    _text, (table,) = find_aligned_tables(rows, 1)
    assert [r[0] for r in table.fragment.rows if any(r)] == [cmd for cmd, _s in sizes]
    # a bold title in the text font, larger than the table's rows, starts what follows
    title = _sized(190.0, [(200.0, "Schriftstil", 12.0, True, False)])
    more = [
        _sized(
            210.0 + 10 * i,
            [(200.0, f"\\cmd{i}", 8.0, False, True), (280.0, "Stil", 8.0, False, False)],
        )
        for i in range(3)
    ]
    small = [
        _sized(
            160.0 + 10 * i,
            [(200.0, f"k{i}", 8.0, False, False), (280.0, "Wert", 8.0, False, False)],
        )
        for i in range(3)
    ]
    text, tables = find_aligned_tables([*small, title, *more], 1)
    assert "Schriftstil" in [ln.text for ln in text]
    assert len(tables) == 2


def test_a_title_naming_a_command_in_typewriter_still_starts_a_new_table() -> None:
    # latexsheet-de: "Wichtige documentclass Optionen": bold text font around a
    # typewriter word, so under 60 % of its glyphs are bold; the font is bold.
    small = [
        _sized(
            160.0 + 10 * i,
            [(36.0, f"key number {i}", 8.0, False, False), (120.0, "Wert", 8.0, False, False)],
        )
        for i in range(3)
    ]
    title = Line(
        "Wichtige documentclass Optionen",
        190.0,
        200.0,
        36.0,
        10.0,
        False,
        font="SFBX1000",
        segments=[
            Segment(36.0, 80.0, "Wichtige documentclass Optionen", False, 10.0, False, "SFBX1000")
        ],
    )
    more = [
        _sized(
            210.0 + 10 * i,
            [(36.0, f"option num {i}", 8.0, False, True), (120.0, "Text", 8.0, False, False)],
        )
        for i in range(3)
    ]
    text, tables = find_aligned_tables([*small, title, *more], 1)
    assert title in text
    assert len(tables) == 2


def _glyph_line(top: float, *parts: tuple[float, str]) -> Line:
    """A line from glyphs 4 pt wide, words 2 pt apart (wider than a word gap at 8 pt)."""
    glyphs: list[Glyph] = []
    for x, text in parts:
        for ch in text:
            if ch != " ":
                glyphs.append(Glyph(x, x + 4.0, ch, False, 8.0))
            x += 2.0 if ch == " " else 4.0
    segments = segments_of(glyphs, 8.0)
    text = " ".join(s.text for s in segments)
    return Line(text, top, top + 8.0, segments[0].x0, 8.0, False, segments=segments)


def _three_columns(crossing: Line) -> list[Line]:
    """Three page columns of lines on their own baselines, and one line across."""
    lines = [crossing]
    for col, (x, pitch) in enumerate(zip(COLUMNS, PITCH, strict=True)):
        text = "words of prose " * 3  # about 190 pt of the column's 233
        lines += [_glyph_line(100.0 + pitch * i, (x, f"{text}{col}.{i}")) for i in range(8)]
    return lines


def test_text_over_a_gutter_with_no_glyph_on_the_next_columns_edge_stays_whole() -> None:
    # A title over two columns: its glyphs run over the gutter, none starts where
    # the second column's lines start (279 pt), so nothing marks a column's text.
    title = _glyph_line(60.0, (141.0, "a title set over two of the columns"))
    assert not any(abs(g.x0 - COLUMNS[1]) <= 1.0 for g in title.segments[0].glyphs)
    lines = _three_columns(title)
    assert find_columns(lines, CARD[0]) is not None  # read as a page of three columns
    out = reading_order(lines, CARD[0])
    assert [ln.text for ln in out if ln.top == 60.0] == [title.text]


def test_text_over_a_gutter_is_cut_at_the_glyph_where_the_next_column_starts() -> None:
    # 23 glyphs and 5 word gaps from 177 pt: "next" begins at 279 pt, the edge.
    cut = _glyph_line(60.0, (177.0, "first column cell text long next column"))
    assert cut.segments[0].glyphs[23].x0 == COLUMNS[1]
    out = reading_order(_three_columns(cut), CARD[0])
    assert [ln.text for ln in out if ln.top == 60.0] == [
        "first column cell text long",
        "next column",
    ]
