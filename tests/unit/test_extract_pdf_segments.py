"""A DocBook table below a note box, built in memory with reportlab.

dblatex draws a table's row rules cell by cell (broken at the column rules)
and no outer borders; a "Tip" box above it is closed by full-width rules a
few points off the table's ends, and a shaded listing below it is a little
wider. debian-reference-en p136: pdfplumber snapped the table's right border
together with the box's and the listing's (each within 3 pt of the next) to a
line beyond the ends of the table's rules, and the last column was lost.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from chunkwise.extract import extract
from tests.drawn_pdf import drawn_pdf

pytest.importorskip("pdfplumber")
pytest.importorskip("reportlab.pdfgen.canvas")

COLUMNS = [62.0, 164.0, 231.0, 270.0, 561.6]
ROWS = [
    ("package", "popcon", "size", "description"),
    ("exim4-daemon-light", "V:264", "1493", "Exim4 mail transport agent"),
    ("postfix", "V:141", "3985", "Postfix mail transport agent"),
    ("sasl2-bin", "V:6", "403", "Cyrus SASL API implementation"),
    ("msmtp", "V:6", "577", "Light weight MTA"),
]


def _tip_box(c: Any, top: float) -> None:
    """A note: a full rule above and below, from 3.5 pt inside the table's left end
    to 2.7 pt beyond its right end."""
    c.line(65.5, top, 564.3, top)
    c.setFont("Helvetica-Bold", 10)
    c.drawString(68, top - 14, "Tip")
    c.setFont("Helvetica", 10)
    c.drawString(68, top - 28, "Configuring exim4 for several smarthosts is non-trivial.")
    c.line(65.5, top - 40, 564.3, top - 40)


def _segmented_table(c: Any, top: float) -> None:
    """Row rules drawn per cell, column rules between the columns only."""
    c.setFont("Helvetica", 10)
    c.line(COLUMNS[0], top, COLUMNS[-1], top)
    for i, row in enumerate(ROWS):
        y = top - 14 * (i + 1)
        for x, cell in zip(COLUMNS, row, strict=False):
            c.drawString(x + 3, y + 4, cell)
        for left, right in itertools.pairwise(COLUMNS):
            c.line(left, y, right, y)
        for x in COLUMNS[1:-1]:
            c.line(x, y, x, y + 14)


def _code_box(c: Any, top: float) -> None:
    """A shaded listing a little wider than the table, framed by lines of its own."""
    c.setFillGray(0.9)
    c.rect(56.7, top - 22, 510.2, 22, stroke=0, fill=1)
    c.setFillGray(0)
    for x in (55.2, 568.4):
        c.line(x, top, x, top - 22)
    for y in (top, top - 22):
        c.line(53.7, y, 569.9, y)
    c.setFont("Courier", 9)
    c.drawString(60, top - 14, "$ sudo systemctl stop exim4")


def _page(canvas: Any) -> None:
    _tip_box(canvas, 740)
    _segmented_table(canvas, 675)
    _code_box(canvas, 560)


def _pdf() -> bytes:
    return drawn_pdf(_page)


def test_row_rules_broken_at_column_rules_stay_with_their_table_below_a_box() -> None:
    text = extract(_pdf(), filename="segments.pdf").text
    assert "| package | popcon | size | description |" in text
    for row in ROWS[1:]:
        assert "| " + " | ".join(row) + " |" in text
