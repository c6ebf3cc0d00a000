"""DOCX -> canonical text with python-docx, behind zip-bomb checks.

- `container`: the ZIP checked and every member inflated under a hard cap
  before python-docx parses it (python-docx parses XML with entity resolution
  off: no billion-laughs expansion);
- `reader`: `extract_docx`, the body in document order (paragraphs, headings,
  lists, tables, captions) and the report's tables;
- `styles`: headings, subtitles and captions from paragraph styles;
- `numbering`: list items and numbered headings (word/numbering.xml);
- `grid`: tables on their layout grid, merged cells filled, header rows combined;
- `ooxml`: WordprocessingML names and property values.
"""

from __future__ import annotations

from .reader import extract_docx

__all__ = ["extract_docx"]
