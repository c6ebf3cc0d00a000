"""Text turned a quarter (a table's rotated column heads), drawn with reportlab."""

from __future__ import annotations

import io

import pytest

from chunkwise.extract import extract

pytest.importorskip("pdfplumber")
canvas_mod = pytest.importorskip("reportlab.pdfgen.canvas")

HEADS = ["\\enquote", "\\foreignquote", "\\textquote"]


def _turned_heads(angle: float) -> bytes:
    buf = io.BytesIO()
    c = canvas_mod.Canvas(buf, pagesize=(595.0, 842.0), invariant=1)
    c.setFont("Times-Roman", 10)
    c.drawString(72, 760, "Parameter Befehl oder Umgebung")
    for k, head in enumerate(HEADS):  # each head reads along its own column
        c.saveState()
        x = 200 + 14 * k
        c.translate(x, 640 if angle > 0 else 740)
        c.rotate(angle)
        c.drawString(0, 0, head)
        c.restoreState()
    c.line(72, 630, 400, 630)  # a rule: the page is read by pdfplumber
    for k in range(8):
        c.drawString(72, 600 - 14 * k, f"Body line {k} of the page text here.")
    c.showPage()
    c.save()
    return buf.getvalue()


@pytest.mark.parametrize("angle", [90.0, -90.0])
def test_turned_words_read_whole_and_left_to_right(angle: float) -> None:
    # csquotes-DE p21: heads turned to read upwards came out "e t o u q n e \".
    text = extract(_turned_heads(angle), filename="turned.pdf").text
    assert "\\enquote \\foreignquote \\textquote" in text.replace("\\\\", "\\")
    assert "etouqne" not in text.replace(" ", "")
