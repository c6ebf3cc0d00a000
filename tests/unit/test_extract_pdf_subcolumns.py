"""A ruled frame that rules only some of its columns (`|l|lll|`), drawn with reportlab."""

from __future__ import annotations

import pytest

from chunkwise.extract import extract
from tests.drawn_pdf import drawn_pdf

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab.pdfgen.canvas")

HEADS = ("package", "roman", "sans serif", "typewriter")
ROWS = [
    ("(none)", ["CM Roman"], ["CM Sans Serif"], ["CM Typewriter"]),
    ("helvet", [], ["Helvetica"], []),
    ("newcent", ["New Century", "Schoolbook"], ["Avant Garde"], ["Courier"]),
    ("charter", ["Charter"], [], []),
]
XS = (106.0, 200.0, 280.0, 360.0)  # where each column's text starts; rules at 100, 190, 440


def _font_table(c: object) -> None:
    c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
    top = 700.0
    for x, head in zip(XS, HEADS, strict=True):
        c.drawString(x, top - 11, head)  # type: ignore[attr-defined]
    ys = [top, top - 15]
    y = top - 15
    for package, *columns in ROWS:
        lines = max(len(col) for col in columns) or 1
        for x, col in zip(XS[1:], columns, strict=True):
            for k, text in enumerate(col):
                c.drawString(x, y - 11 - 11 * k, text)  # type: ignore[attr-defined]
        c.drawString(XS[0], y - 11, package)  # type: ignore[attr-defined]
        y -= 4 + 11 * lines
        ys.append(y)
    for yy in ys:
        c.line(100, yy, 440, yy)  # type: ignore[attr-defined]
    for x in (100, 190, 440):  # no rule between the font columns
        c.line(x, top, x, ys[-1])  # type: ignore[attr-defined]


def _pdf() -> bytes:
    return drawn_pdf(_font_table)


def test_unruled_columns_of_a_ruled_frame_are_columns() -> None:
    text = extract(_pdf(), filename="fonts.pdf").text
    assert "| package | roman | sans serif | typewriter |" in text
    assert "| newcent | New Century Schoolbook | Avant Garde | Courier |" in text
    assert "| helvet |  | Helvetica |  |" in text


def test_a_phrase_in_a_cell_is_not_split_into_columns() -> None:
    from chunkwise.extract.pdf.tables.subcolumns import split_unruled

    box = (0.0, 0.0, 200.0, 10.0)

    def word(x0: float, x1: float, top: float) -> dict[str, object]:
        return {"x0": x0, "x1": x1, "top": top, "bottom": top + 8}

    grid = [[(box[0], t, box[2], t + 10)] for t in (0.0, 10.0, 20.0)]
    # Three rows whose words leave no blank strip shared by all of them.
    words = [word(5, 60, 1), word(70, 120, 1), word(5, 90, 11), word(5, 40, 21), word(45, 150, 21)]
    assert split_unruled(grid, words) == grid  # type: ignore[arg-type]
    # The same rows with a strip blank in every row and a head on each side: two columns.
    words = [word(5, 40, 1), word(80, 120, 1), word(5, 30, 11), word(85, 150, 21)]
    split = split_unruled(grid, words)  # type: ignore[arg-type]
    assert [len(row) for row in split] == [2, 2, 2]


def test_a_double_rule_s_blank_sliver_does_not_keep_a_column_whole() -> None:
    # hhline's example (`||cc||c|c||`, double rules above and below): the gap
    # between the two rules of a double rule is a row 4 pt high spanning the
    # frame; the rows under it, each "a b" with no rule between, stayed one column.
    from chunkwise.extract.pdf.tables.subcolumns import split_unruled

    def word(x0: float, x1: float, top: float) -> dict[str, object]:
        return {"x0": x0, "x1": x1, "top": top, "bottom": top + 8}

    sliver: tuple[float, float, float, float] = (0.0, 0.0, 120.0, 4.0)
    rows = [(0.0, t, 60.0, t + 12) for t in (4.0, 16.0, 28.0)]
    grid = [[sliver, None], *([box, (60.0, box[1], 120.0, box[3])] for box in rows)]
    grid.append([(0.0, 40.0, 120.0, 44.0), None])
    words = [word(x, x + 5, t + 2) for t in (4.0, 16.0, 28.0) for x in (8.0, 30.0, 70.0)]
    split = split_unruled(grid, words)  # type: ignore[arg-type]
    assert [len(row) for row in split] == [3, 3, 3, 3, 3]
    assert split[1][:2] == [(0.0, 4.0, 21.5, 16.0), (21.5, 4.0, 60.0, 16.0)]


def _partly_ruled(c: object) -> None:
    """Rows ruled apart in the first two columns only (hhline's `~`: no rule under the
    third column)."""
    c.setFont("Helvetica", 10)  # type: ignore[attr-defined]
    rows = [("key", "name", "unit"), ("k1", "first", "mm"), ("k2", "second", "kg")]
    rows += [("k3", "third", "s")]
    top = 700.0
    for r, row in enumerate(rows):
        for x, text in zip((106.0, 206.0, 306.0), row, strict=True):
            c.drawString(x, top - 11 - 14 * r, text)  # type: ignore[attr-defined]
    bottom = top - 14 * len(rows)
    for y in (top, top - 14, bottom):
        c.line(100, y, 400, y)  # type: ignore[attr-defined]
    for r in range(2, len(rows)):
        c.line(100, top - 14 * r, 300, top - 14 * r)  # type: ignore[attr-defined]
    for x in (100, 200, 300, 400):
        c.line(x, top, x, bottom)  # type: ignore[attr-defined]


def test_a_column_without_rules_between_rows_keeps_one_line_per_row() -> None:
    text = extract(drawn_pdf(_partly_ruled), filename="partly.pdf").text
    assert "| key | name | unit |" in text
    assert "| k1 | first | mm |" in text
    assert "| k2 | second | kg |" in text
    assert "| k3 | third | s |" in text


def test_a_tall_row_with_a_cell_ruled_in_two_stays_one_row() -> None:
    # An office PDF's row "mbr": a rule inside one cell ("MBR by Neil" over
    # "Turton") parts the grid row in two; the row label spans both parts, so
    # "Not" over "supported" beside it is one cell of one row, not two rows.
    from chunkwise.extract.pdf.tables.spans import split_aligned_spans

    def word(x0: float, top: float) -> dict[str, object]:
        return {"x0": x0, "x1": x0 + 20, "top": top, "bottom": top + 10}

    grid: list[list[tuple[float, float, float, float] | None]] = [
        [(0.0, 0.0, 50.0, 40.0), (50.0, 0.0, 100.0, 40.0), (100.0, 0.0, 150.0, 20.0)],
        [None, None, (100.0, 20.0, 150.0, 40.0)],
    ]
    words = [word(5, 10), word(55, 8), word(55, 22), word(105, 8), word(105, 22)]
    before = [list(row) for row in grid]
    split_aligned_spans(grid, words)  # type: ignore[arg-type]
    assert grid == before
