"""PDFs drawn with reportlab's canvas for extraction tests: one drawing function per
page. The tests that use it skip themselves where reportlab is not installed."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

A4 = (595.0, 842.0)


def drawn_pdf(*pages: Callable[[Any], object], size: tuple[float, float] = A4) -> bytes:
    """A PDF with one page per function, each drawn on the canvas it is given.
    `invariant` keeps the bytes the same from run to run."""
    from reportlab.pdfgen import canvas as canvas_mod

    buf = io.BytesIO()
    canvas = canvas_mod.Canvas(buf, pagesize=size, invariant=1)
    for draw in pages:
        draw(canvas)
        canvas.showPage()
    canvas.save()
    return buf.getvalue()
