"""Tables with shaded rows (colortbl's \\rowcolors), built in memory with reportlab.

A shaded row is a filled box per cell, with no stroke. Its sides stand where
a frame's borders would, but they are not borders: xcolor.pdf's option table
(bench/realdocs) fell apart into one table per shaded row when they were read
as a drawn frame.
"""

from __future__ import annotations

from typing import Any

import pytest

from chunkwise.extract import extract
from tests.drawn_pdf import drawn_pdf

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab.pdfgen.canvas")

ROWS = [
    ("Option", "Description"),
    ("natural", "Keep all colors in their model."),
    ("rgb", "Convert all colors to the rgb model."),
    ("cmy", "Convert all colors to the cmy model."),
    ("cmyk", "Convert all colors to the cmyk model."),
    ("hsb", "Convert all colors to the hsb model."),
    ("gray", "Convert all colors to the gray model."),
    ("HTML", "Convert all colors to the HTML model."),
    ("Gray", "Convert all colors to the Gray model."),
]
LEFT, SPLIT, RIGHT = 74.0, 202.0, 498.0
ROW_HEIGHT = 14.0


def _shaded_rows_table(c: Any) -> None:
    """Rules above, below the header and below the table (no vertical rules); every
    other row shaded by two filled cell boxes, the first and the last row included."""
    top = 700.0
    bottom = top - ROW_HEIGHT * len(ROWS)
    c.setFont("Helvetica", 10)
    c.drawCentredString((LEFT + RIGHT) / 2, top + 16, "Table 1: Package options")
    for i, (option, description) in enumerate(ROWS):
        row_top = top - i * ROW_HEIGHT
        if i % 2 == 0:
            c.setFillGray(0.9)
            for x0, x1 in ((LEFT, SPLIT), (SPLIT, RIGHT)):
                c.rect(x0, row_top - ROW_HEIGHT, x1 - x0, ROW_HEIGHT, stroke=0, fill=1)
            c.setFillGray(0)
        c.drawString(LEFT + 4, row_top - 10, option)
        c.drawString(SPLIT + 4, row_top - 10, description)
    c.setLineWidth(0.4)
    for y in (top, top - ROW_HEIGHT, bottom):
        c.line(LEFT, y, RIGHT, y)


def _pdf() -> bytes:
    return drawn_pdf(_shaded_rows_table)


def test_shaded_rows_at_both_ends_of_a_ruled_table_keep_it_one_table() -> None:
    text = extract(_pdf(), filename="shaded.pdf").text
    assert text.count("| Option | Description |") == 1
    assert text.count("| --- | --- |") == 1
    for option, description in ROWS[1:]:
        assert f"| {option} | {description} |" in text
