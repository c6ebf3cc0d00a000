"""Symbols that a Type 1 font names but PDF readers write as the letter of their code.

A glyph of a simple Type 1 font that no ToUnicode map covers (the font has
none, or pdfTeX left the glyph out of it) is read through its glyph name: the
PDF's /Differences, else the encoding built into the embedded font program.
A name outside the Adobe Glyph List has no Unicode value for the readers, and
then PDFium (like pdftotext) hands back the glyph's code as a character while
pdfminer writes "(cid:NN)". TeX's math fonts name their symbols that way:
cmsy's `angbracketleft` / `angbracketright` sit at the codes of "h" / "i", so
the meta-variable "⟨file⟩" came out as "hfilei", and cmex's `summationtext`
as "P". The canonical text must carry what the page shows.

Here the fonts of a page are described by their own facts (what ToUnicode
covers, the glyph names of their encoding), every name of `TEX_GLYPH_UNICODE` (names TeX's
fonts use that the Adobe Glyph List lacks, with the Unicode values TeX's own
glyph-to-Unicode tables give them) becomes that symbol, and a reader's
character for such a glyph (its code, or "(cid:NN)") is put back as the symbol.
A code's character is only taken for the glyph when no other glyph of the same
font is named as that character (else the reader's letter is ambiguous).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from io import BytesIO
from typing import Any

_SUBSET = re.compile(r"^[A-Z]{6}\+")
_CID = re.compile(r"^\(cid:(\d+)\)$")
_SIZES = ("big", "Big", "bigg", "Bigg")  # cmex's four sizes of a delimiter
# Delimiters cmex has in the four sizes, and the character each one is.
_DELIMITERS = {
    "parenleft": "(",
    "parenright": ")",
    "bracketleft": "[",
    "bracketright": "]",
    "braceleft": "{",
    "braceright": "}",
    "floorleft": "\u230a",
    "floorright": "\u230b",
    "ceilingleft": "\u2308",
    "ceilingright": "\u2309",
    "angbracketleft": "\u27e8",
    "angbracketright": "\u27e9",
    "slash": "/",
    "backslash": "\\",
    "radical": "\u221a",
}
# cmex's large operators, each in a text and a display size.
_OPERATORS = {
    "summation": "\u2211",
    "product": "\u220f",
    "coproduct": "\u2210",
    "integral": "\u222b",
    "contintegral": "\u222e",
    "union": "\u22c3",
    "intersection": "\u22c2",
    "unionmulti": "\u2a04",
    "unionsq": "\u2a06",
    "logicaland": "\u22c0",
    "logicalor": "\u22c1",
    "circledot": "\u2a00",
    "circleplus": "\u2a01",
    "circlemultiply": "\u2a02",
}
# cmsy's, msam's and a few other TeX fonts' names outside the Adobe Glyph List.
_SINGLE = {
    "angbracketleft": "\u27e8",
    "angbracketright": "\u27e9",
    "arrowbothv": "\u2195",
    "arrowdblbothv": "\u21d5",
    "arrownortheast": "\u2197",
    "arrownorthwest": "\u2196",
    "arrowsoutheast": "\u2198",
    "arrowsouthwest": "\u2199",
    "bardbl": "\u2016",
    "ceilingleft": "\u2308",
    "ceilingright": "\u2309",
    "circledivide": "\u2298",
    "circledot": "\u2299",
    "circleminus": "\u2296",
    "coproduct": "\u2210",
    "diamondmath": "\u22c4",
    "equivasymptotic": "\u224d",
    "floorleft": "\u230a",
    "floorright": "\u230b",
    "follows": "\u227b",
    "followsequal": "\u2ab0",
    "greatermuch": "\u226b",
    "Ifractur": "\u2111",
    "intersectionsq": "\u2293",
    "latticetop": "\u22a4",
    "lessmuch": "\u226a",
    "mapsto": "\u21a6",
    "minusplus": "\u2213",
    "owner": "\u220b",
    "precedes": "\u227a",
    "precedesequal": "\u2aaf",
    "Rfractur": "\u211c",
    "similarequal": "\u2243",
    "subsetsqequal": "\u2291",
    "supersetsqequal": "\u2292",
    "triangleinv": "\u25bd",
    "turnstileleft": "\u22a2",
    "turnstileright": "\u22a3",
    "unionmulti": "\u228e",
    "unionsq": "\u2294",
    "wreathproduct": "\u2240",
    "star": "\u2605",  # msam's \bigstar (at the code of "F")
    "bigstar": "\u2605",  # mathdesign's (at the code of "Æ")
    # marvosym's information sign (U+1F6C8; U+2139 would be a letter of a word)
    "Info": "\U0001f6c8",
}
TEX_GLYPH_UNICODE: Mapping[str, str] = {
    **_SINGLE,
    **{name + size: char for name, char in _DELIMITERS.items() for size in _SIZES},
    **{name + kind: char for name, char in _OPERATORS.items() for kind in ("text", "display")},
}
_SYMBOLIC = 4  # FontDescriptor /Flags bit 3: the font's own encoding is the base


@dataclass(frozen=True)
class FontFacts:
    """What decides how readers map a simple font's codes to text."""

    subtype: str  # "Type1", "TrueType", ...
    to_unicode: Mapping[int, str]  # code -> text, of the font's ToUnicode map (if it has one)
    glyph_names: Mapping[int, str]  # code -> glyph name (Differences over the built-in encoding)


def named_symbols(facts: FontFacts, agl: Callable[[str], str | None]) -> dict[str, str]:
    """The reader's character for a glyph (its code) -> the symbol the glyph's name says.

    `agl` gives a glyph name's Unicode value as readers know it (None: unknown).
    Only glyphs that readers cannot name: of a Type 1 font, not in its
    ToUnicode map (pdfTeX writes one that leaves out names it does not know,
    such as marvosym's `Info`), named outside the AGL with a value in
    TEX_GLYPH_UNICODE that is not the code's own character. A code whose
    character another glyph of the font is read as is left out: the reader's
    letter could be either glyph.
    """
    if facts.subtype not in ("Type1", "MMType1"):
        return {}
    named = {agl(name) for name in facts.glyph_names.values()} | set(facts.to_unicode.values())
    out: dict[str, str] = {}
    for code, name in facts.glyph_names.items():
        symbol = TEX_GLYPH_UNICODE.get(name)
        letter = chr(code)
        if symbol is None or symbol == letter or agl(name) is not None or letter in named:
            continue
        if code in facts.to_unicode:
            continue
        out[letter] = symbol
        out[f"(cid:{code})"] = symbol  # pdfminer's stand-in for an unmapped glyph
    return out


@dataclass
class PageSymbols:
    """Per font of a page (name without subset prefix): reader's character -> symbol."""

    by_font: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def characters(self) -> frozenset[str]:
        """Characters worth a look at their font (every other one is left as read)."""
        return frozenset(c for symbols in self.by_font.values() for c in symbols if len(c) == 1)

    def symbol(self, font: str, text: str) -> str | None:
        return self.by_font.get(_SUBSET.sub("", font), {}).get(text)

    def restore_chars(self, chars: Iterable[dict[str, Any]]) -> int:
        """Put the symbols into pdfplumber's characters of the page (in place; how many)."""
        if not self.by_font:
            return 0
        restored = 0
        for char in chars:
            text = str(char.get("text", ""))
            if len(text) == 1 or _CID.match(text):
                symbol = self.symbol(str(char.get("fontname", "")), text)
                if symbol is not None:
                    char["text"] = symbol
                    restored += 1
        return restored


class FontCache:
    """The symbols of each font dictionary of a document, read once (by object id)."""

    def __init__(self) -> None:
        self._seen: dict[int, tuple[list[str], dict[str, str]]] = {}

    def page_symbols(self, page_obj: Any) -> PageSymbols:
        """The symbols of the fonts in a pdfminer page's resources."""
        from pdfminer.pdftypes import PDFObjRef, resolve1

        try:
            fonts = resolve1((page_obj.resources or {}).get("Font")) or {}
        except Exception:  # a broken resource dictionary names no symbols
            return PageSymbols()
        out = PageSymbols()
        for ref in fonts.values() if isinstance(fonts, dict) else ():
            key = ref.objid if isinstance(ref, PDFObjRef) else id(ref)
            if key not in self._seen:
                self._seen[key] = _read_font(resolve1(ref))
            names, symbols = self._seen[key]
            if symbols:
                for name in names:
                    _merge(out.by_font.setdefault(name, {}), symbols)
        return out


def _merge(into: dict[str, str], symbols: dict[str, str]) -> None:
    """Two fonts of one name that disagree on a character: neither is taken."""
    for char, symbol in symbols.items():
        if into.setdefault(char, symbol) != symbol:
            into[char] = char


def _read_font(spec: Any) -> tuple[list[str], dict[str, str]]:
    """The font's names (BaseFont, FontName; no subset prefix) and its named symbols."""
    from pdfminer.glyphlist import glyphname2unicode
    from pdfminer.psparser import literal_name

    if not isinstance(spec, dict):
        return [], {}
    try:
        facts, names = _facts(spec)
    except Exception:  # an unreadable font program names nothing; the readers go on
        return [], {}
    symbols = named_symbols(facts, glyphname2unicode.get)
    return [_SUBSET.sub("", literal_name(n)) for n in names], symbols


def _facts(spec: dict[str, Any]) -> tuple[FontFacts, list[Any]]:
    from pdfminer.pdftypes import resolve1
    from pdfminer.psparser import literal_name

    descriptor = resolve1(spec.get("FontDescriptor")) or {}
    subtype = literal_name(spec.get("Subtype", ""))
    names = [n for n in (spec.get("BaseFont"), descriptor.get("FontName")) if n is not None]
    if subtype not in ("Type1", "MMType1"):
        return FontFacts(subtype, {}, {}), names
    encoding = resolve1(spec.get("Encoding"))
    glyphs: dict[int, str] = {}
    if encoding is None or (
        isinstance(encoding, dict)
        and "BaseEncoding" not in encoding
        and int(resolve1(descriptor.get("Flags", 0)) or 0) & _SYMBOLIC
    ):
        glyphs.update(_built_in_names(descriptor.get("FontFile")))
    if isinstance(encoding, dict):
        glyphs.update(_differences(resolve1(encoding.get("Differences")) or []))
    if not any(name in TEX_GLYPH_UNICODE for name in glyphs.values()):
        return FontFacts(subtype, {}, {}), names  # nothing to name: no need to read ToUnicode
    return FontFacts(subtype, _to_unicode(spec.get("ToUnicode")), glyphs), names


def _to_unicode(stream: Any) -> dict[int, str]:
    """Code -> text of a simple font's ToUnicode map ({} without one)."""
    from pdfminer.cmapdb import CMapParser, FileUnicodeMap
    from pdfminer.pdftypes import stream_value

    if stream is None:
        return {}
    cmap = FileUnicodeMap()
    CMapParser(cmap, BytesIO(stream_value(stream).get_data())).run()
    return {int(code): str(text) for code, text in cmap.cid2unichr.items()}


def _built_in_names(font_file: Any) -> dict[int, str]:
    """Code -> glyph name of an embedded Type 1 program's own encoding (its clear-text part)."""
    from pdfminer.pdffont import Type1FontHeaderParser
    from pdfminer.pdftypes import resolve1, stream_value
    from pdfminer.psparser import PSEOF

    if font_file is None:
        return {}
    stream = stream_value(font_file)
    if "Length1" not in stream:  # not a Type 1 program with a clear-text part
        return {}
    parser = Type1FontHeaderParser(BytesIO(stream.get_data()[: int(resolve1(stream["Length1"]))]))
    names: dict[int, str] = {}
    while True:
        try:
            code, name = parser.nextobject()
        except PSEOF:
            return names
        if isinstance(code, int) and isinstance(name, str):
            names[code] = name


def _differences(items: list[Any]) -> dict[int, str]:
    """/Differences [code /name /name code /name ...] as code -> name."""
    from pdfminer.psparser import PSLiteral, literal_name

    names: dict[int, str] = {}
    code = 0
    for item in items:
        if isinstance(item, int):
            code = item
        elif isinstance(item, PSLiteral):
            names[code] = literal_name(item)
            code += 1
    return names
