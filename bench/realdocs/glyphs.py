"""A second reader of a PDF's glyphs, to check where pdftotext's reference is wrong.

pdftotext (poppler 22.12) writes a glyph of a Type 1 font that has no ToUnicode
map and whose built-in encoding names the glyph with a name outside its table
as the character of the glyph's code. For TeX's math fonts that turns symbols
into letters: cmsy's `angbracketleft` / `angbracketright` (codes 104 / 105) come
out as "h" / "i", so a meta-variable "⟨neu⟩" reads "hneui"; cmex's
`summationtext`, `producttext`, `integraltext` as "P", "Q", "R", and
`summationdisplay`, `productdisplay` as "X", "Y"; msam10's `star` as "F",
mathdesign's `bigstar` as "Æ", marvosym's `Info` as "i" (metrics.SYMBOL_GLYPHS).
PDFium writes the same letters.

The same happens where the PDF's /Differences give such a name (Latin Modern's
math fonts: `/Differences [104 /angbracketleft /angbracketright]`).

pdfminer.six reads the same glyphs as unmapped (or, for a name in /Differences
it does not know, as the base encoding's letter), and the font itself names
them. Here pdfminer interprets a page, and every glyph is written as the symbol
of `SYMBOL_GLYPHS` its name in /Differences or in the embedded Type 1 program's
encoding gives, where no ToUnicode entry covers it, else as pdfminer's Unicode
for it; other unmapped glyphs are left out. Only pages whose fonts name such a glyph are interpreted
(the others get ""), so a document without them costs one pass over its fonts.
metrics.symbol_corrections then aligns this text with pdftotext's page.
"""

from __future__ import annotations

from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

from pdfminer.pdfdevice import PDFTextDevice
from pdfminer.pdffont import PDFFont, PDFUnicodeNotDefined, Type1FontHeaderParser
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
from pdfminer.pdftypes import PDFObjRef, resolve1, stream_value
from pdfminer.psparser import PSEOF, PSLiteral, literal_name

from .metrics import SYMBOL_GLYPHS


def encoding_names(font_file: Any) -> dict[int, str]:
    """Code -> glyph name of an embedded Type 1 font's built-in encoding (its clear-text part)."""
    stream = stream_value(font_file)
    if "Length1" not in stream:  # not a Type 1 program with a clear-text part: no names
        return {}
    clear = stream.get_data()[: int(resolve1(stream["Length1"]))]
    parser = Type1FontHeaderParser(BytesIO(clear))
    names: dict[int, str] = {}
    while True:
        try:
            code, name = parser.nextobject()
        except PSEOF:
            return names
        if isinstance(code, int) and isinstance(name, str):
            names[code] = name


def differences_names(encoding: Any) -> dict[int, str]:
    """Code -> glyph name of an /Encoding dictionary's /Differences ({} for a named encoding)."""
    if not isinstance(encoding, dict):
        return {}
    names: dict[int, str] = {}
    code = 0
    for item in resolve1(encoding.get("Differences")) or []:
        if isinstance(item, int):
            code = item
        elif isinstance(item, PSLiteral):
            names[code] = literal_name(item)
            code += 1
    return names


def _symbols_of(key: int, spec: dict[str, Any], seen: dict[int, dict[int, str]]) -> dict[int, str]:
    """Code -> symbol for the glyphs of SYMBOL_GLYPHS that one font dictionary names: in the
    PDF's /Differences, else in its embedded program's encoding."""
    if key not in seen:
        descriptor = resolve1(spec.get("FontDescriptor")) or {}
        font_file = descriptor.get("FontFile")
        names = encoding_names(font_file) if font_file is not None else {}
        names.update(differences_names(resolve1(spec.get("Encoding"))))
        seen[key] = {code: SYMBOL_GLYPHS[n] for code, n in names.items() if n in SYMBOL_GLYPHS}
    return seen[key]


def _covered(font: PDFFont, cid: int) -> bool:
    """Does the font's ToUnicode map give this code's text?"""
    unicode_map = getattr(font, "unicode_map", None)
    return unicode_map is not None and cid in getattr(unicode_map, "cid2unichr", {})


class _GlyphText(PDFTextDevice):
    """Collects a page's glyphs as text: pdfminer's Unicode, else a named symbol, else nothing."""

    def __init__(self, manager: PDFResourceManager, symbols: dict[str, dict[int, str]]) -> None:
        super().__init__(manager)
        self.symbols = symbols  # basefont -> code -> symbol
        self.parts: list[str] = []

    def render_char(
        self,
        matrix: Any,
        font: PDFFont,
        fontsize: float,
        scaling: float,
        rise: float,
        cid: int,
        ncs: Any,
        graphicstate: Any,
    ) -> float:
        # A name pdfminer does not know in /Differences leaves it the base encoding's
        # letter (LM fonts: /Differences [104 /angbracketleft /angbracketright] read
        # as "h", "i"), so a named symbol that no ToUnicode entry covers comes first.
        symbol = self.symbols.get(getattr(font, "basefont", ""), {}).get(cid)
        if symbol is not None and not _covered(font, cid):
            self.parts.append(symbol)
        else:
            try:
                self.parts.append(font.to_unichr(cid))
            except PDFUnicodeNotDefined:
                self.parts.append("")
        return font.char_width(cid) * fontsize * scaling


def _page_symbols(page: PDFPage, seen: dict[int, dict[int, str]]) -> dict[str, dict[int, str]]:
    fonts = resolve1(page.resources.get("Font")) or {}
    out: dict[str, dict[int, str]] = {}
    for ref in fonts.values():
        spec = resolve1(ref)
        if not isinstance(spec, dict) or not isinstance(spec.get("BaseFont"), PSLiteral):
            continue
        key = ref.objid if isinstance(ref, PDFObjRef) else id(spec)
        symbols = _symbols_of(key, spec, seen)
        if symbols:
            out[literal_name(spec["BaseFont"])] = symbols
    return out


def _pages(path: Path) -> Iterator[tuple[PDFPage, PDFResourceManager]]:
    manager = PDFResourceManager(caching=True)
    with path.open("rb") as fh:
        for page in PDFPage.get_pages(fh):
            yield page, manager


def symbol_pages(path: Path) -> list[str]:
    """Per page, pdfminer's glyph text with SYMBOL_GLYPHS written as symbols ("" for a page
    whose fonts name none of them)."""
    seen: dict[int, dict[int, str]] = {}
    texts: list[str] = []
    for page, manager in _pages(path):
        symbols = _page_symbols(page, seen)
        if not symbols:
            texts.append("")
            continue
        device = _GlyphText(manager, symbols)
        PDFPageInterpreter(manager, device).process_page(page)
        texts.append("".join(device.parts))
    return texts
