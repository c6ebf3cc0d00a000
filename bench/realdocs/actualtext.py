"""ActualText of TeX source, which pdftotext prints in place of the glyphs it marks.

A PDF's `/ActualText` says what a run of glyphs stands for. microtype's manual
(pdfTeX) marks the angle brackets of its meta-variables with ActualText written
as unexpanded TeX, the backslash not escaped: `(\\protect <)` over the glyph
"⟨", `(\\protect <font set name\\protect >)` over a whole "⟨font set name⟩". By
the PDF standard a backslash before a letter that is no escape is dropped, so
pdftotext (rightly, by the file) prints "protect <font set nameprotect >", and
the reference has "protect" and "nameprotect" where the page shows none.

Such an ActualText is the document's slip, not its text. For the corrected
reference (metrics.without_tex_source) each one, as pdftotext prints it, is
replaced by the same string without its control words and braces: "<" and
"<font set name>", so that the words the page shows stay and the TeX names go.
An ActualText is TeX source when, read as its writer meant it (a backslash that
is no PDF escape kept), it holds a control word: a backslash and a name of two
letters or more.
"""

from __future__ import annotations

import re
from pathlib import Path

from pdfminer.pdfpage import PDFPage
from pdfminer.pdftypes import PDFStream, resolve1

_LITERAL = re.compile(rb"/ActualText\s*\(((?:\\.|[^\\()])*)\)", re.S)
_ESCAPE = re.compile(rb"\\([0-7]{1,3}|\r\n|.)", re.S)
_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f"}
_CONTROL_WORD = re.compile(r"\\[A-Za-z@]{2,} ?")
_CONTROL_SYMBOL = re.compile(r"\\(.)", re.S)


def _unescape(m: re.Match[bytes], keep_unknown: bool = False) -> bytes:
    code = m.group(1)
    if code[:1].isdigit():
        return bytes((int(code, 8) & 0xFF,))
    if code in (b"\r\n", b"\r", b"\n"):
        return b""  # a line continuation
    if code in _ESCAPES or code in b"()\\":
        return _ESCAPES.get(code, code)
    return b"\\" + code if keep_unknown else code  # the standard drops the backslash


def as_printed(literal: bytes) -> str:
    """The string's body as the PDF standard reads it (pdftotext's text for it)."""
    return _ESCAPE.sub(_unescape, literal).decode("latin-1")


def as_source(literal: bytes) -> str:
    """The string's body as its writer meant it: a backslash that is no escape kept."""
    return _ESCAPE.sub(lambda m: _unescape(m, keep_unknown=True), literal).decode("latin-1")


def is_tex_source(literal: bytes) -> bool:
    return _CONTROL_WORD.search(as_source(literal)) is not None


def as_meant(literal: bytes) -> str:
    """The source without its control words and braces ("\\protect <" -> "<")."""
    text = _CONTROL_WORD.sub("", as_source(literal))
    return _CONTROL_SYMBOL.sub(r"\1", text).replace("{", "").replace("}", "")


def page_tex_sources(page: PDFPage) -> list[tuple[str, str]]:
    """(as printed, as meant) for each ActualText of TeX source in the page's content."""
    contents = page.contents if isinstance(page.contents, list) else []
    found: list[tuple[str, str]] = []
    for stream in map(resolve1, contents):
        if isinstance(stream, PDFStream):
            for m in _LITERAL.finditer(stream.get_data()):
                if is_tex_source(m.group(1)):
                    found.append((as_printed(m.group(1)), as_meant(m.group(1))))
    return found


def tex_source_pages(path: Path) -> list[list[tuple[str, str]]]:
    """Per page of the PDF, its ActualTexts of TeX source (page_tex_sources)."""
    with path.open("rb") as fh:
        return [page_tex_sources(page) for page in PDFPage.get_pages(fh)]
