"""reportlab helpers shared by the generators of committed sample PDFs.

Used by tests/data/make_samples.py (extraction samples) and
bench/eval/make_eval_set.py (the retrieval evaluation set). Dev-only: it
needs reportlab, which no runtime code imports. Output stays byte-identical
across runs (reportlab's invariant mode).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import SimpleDocTemplate, Table, TableStyle

STYLES = getSampleStyleSheet()
H1 = STYLES["Heading1"]
H2 = STYLES["Heading2"]
BODY = STYLES["BodyText"]
CAPTION = ParagraphStyle("Caption", parent=BODY, fontName="Helvetica-Bold", spaceAfter=4)


def grid_style(font_size: int) -> TableStyle:
    """A ruled table (pdfplumber finds ruled tables) with a bold, shaded header row."""
    return TableStyle(
        [
            ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
            ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
            ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
            ("FONTSIZE", (0, 0), (-1, -1), font_size),
        ]
    )


def pdf_doc(path: Path, *, margin_cm: float, author: str, **kw: object) -> SimpleDocTemplate:
    """An A4 document in invariant mode (no timestamps: same bytes every run)."""
    return SimpleDocTemplate(
        str(path),
        pagesize=A4,
        invariant=1,
        leftMargin=margin_cm * cm,
        rightMargin=margin_cm * cm,
        topMargin=2.5 * cm,
        bottomMargin=2.5 * cm,
        title=path.stem,
        author=author,
        **kw,
    )


def running_header(
    text: str, page_fmt: str, *, margin_cm: float
) -> Callable[[Canvas, SimpleDocTemplate], None]:
    """Page callback: a running header line and a page number, as real reports have."""

    def draw(canvas: Canvas, doc: SimpleDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(margin_cm * cm, A4[1] - 1.5 * cm, text)
        canvas.drawRightString(A4[0] - margin_cm * cm, 1.5 * cm, page_fmt.format(n=doc.page))
        canvas.restoreState()

    return draw


def grid_table(
    header: list[str], rows: list[list[str]], style: TableStyle, repeat: int = 1
) -> Table:
    table = Table([header, *rows], repeatRows=repeat, hAlign="LEFT")
    table.setStyle(style)
    return table
