"""PDF -> canonical text: the page readers, the layout passes and the table finder.

`extract_pdf` (document.py) is the entry point.
"""

from __future__ import annotations

from .document import extract_pdf

__all__ = ["extract_pdf"]
