"""PDFium (pypdfium2) page reading: the fast path for pages without vector paths.

Pages without any path have no ruled table, so their text lines can be read
with PDFium, about 40x faster than pdfplumber, into the same `Line`s: boxes
follow pdfminer's convention (height = font size, bottom at baseline +
descent) so that both readers feed the same grouping rules.
"""

from __future__ import annotations

import ctypes
import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from statistics import median
from typing import Any

from .lines import (
    WORD_GAP_EM,
    Glyph,
    Line,
    accent_over,
    can_take_accent,
    is_bold_font,
    is_mono_font,
    is_spacing_accent,
    segments_of,
    strip_subset,
    with_accent,
)
from .symbols import PageSymbols

_WS = re.compile(r"\s+")


def open_pdfium(data: bytes) -> Any:
    """pypdfium2 view of the same bytes, or None (then pdfplumber reads every page)."""
    try:
        import pypdfium2 as pdfium  # type: ignore[import-untyped]

        return pdfium.PdfDocument(data)
    except Exception:
        return None


def has_paths(page: Any) -> bool:
    """Any vector path on the page (ruling lines, boxes)? Forms are searched too."""
    import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

    return any(obj.type == pdfium_c.FPDF_PAGEOBJ_PATH for obj in page.get_objects(max_depth=4))


def has_images(page: Any) -> bool:
    import pypdfium2.raw as pdfium_c

    return any(obj.type == pdfium_c.FPDF_PAGEOBJ_IMAGE for obj in page.get_objects(max_depth=4))


def _glyph_size(text_page: Any, index: int, matrix: Any) -> float:
    """The glyph's size on the page: the font size times the text matrix's vertical
    scale. Acrobat Distiller sets every font at size 1 and scales it by the matrix;
    the font size alone then made all its text 1 pt, unlike pdfminer's reading of the
    same page (a page read by both readers got its body text taken for headings)."""
    import pypdfium2.raw as pdfium_c

    size = float(pdfium_c.FPDFText_GetFontSize(text_page, index))
    if pdfium_c.FPDFText_GetMatrix(text_page, index, ctypes.byref(matrix)):
        size *= math.hypot(float(matrix.c), float(matrix.d)) or 1.0
    return round(size, 1)


_LIGATURE_LETTERS = frozenset({"ff", "fi", "fl", "ffi", "ffl"})


@dataclass
class _Font:
    size: float = 0.0
    bold: bool = False
    family: str = ""
    mono: bool = False


@dataclass
class _LineBuilder:
    """The characters of the line being read, and the lines read so far."""

    lines: list[Line] = field(default_factory=list)
    chars: list[str] = field(default_factory=list)
    glyphs: list[Glyph] = field(default_factory=list)
    fonts: list[_Font] = field(default_factory=list)
    tops: list[float] = field(default_factory=list)
    bottoms: list[float] = field(default_factory=list)
    bases: list[float] = field(default_factory=list)

    def add(self, ch: str, font: _Font, x: float, x1: float, base: float) -> None:
        if self._next_line(base - 0.79 * font.size):  # next line, no break
            pending = self.chars.pop()
            self.flush()
            self.chars.append(pending)
        if self._joins_accent(ch, x, x1) or self._joins_ligature(ch, x, x1):
            return
        self.glyphs.append(Glyph(x, max(x1, x), ch, font.mono, font.size, font.family, font.bold))
        self.fonts.append(font)
        self.tops.append(base - 0.79 * font.size)
        self.bottoms.append(base + 0.21 * font.size)
        self.bases.append(base)

    def _next_line(self, top: float) -> bool:
        """A glyph whose top is below the line's glyphs starts the next line. PDFium
        gives no line break after the hyphen it marks at a line end, so the glyphs
        tell; a lowered glyph (TeX's logo lowers its "E" by 2 pt) reaches below the
        next line's tops, so past the bottom of the line's lowest glyph it is enough
        to be below the bottom of its text (its median baseline), where a subscript's
        top never is."""
        if not self.tops or top <= min(self.bottoms):
            return False
        if top > max(self.bottoms):
            return True
        size = median(f.size for f in self.fonts)
        return top > median(self.bases) + 0.21 * size

    def _joins_accent(self, ch: str, x: float, x1: float) -> bool:
        """A spacing accent drawn over the glyph before it, or a letter under the
        accent before it (TeX's OT1 accents: "u" and "¨"), becomes one character."""
        if not self.glyphs or len(self.chars) < 2 or self.chars[-2].isspace():
            return False
        prev = self.glyphs[-1]
        if is_spacing_accent(ch) and can_take_accent(prev.text):
            if not accent_over((x, max(x1, x)), (prev.x0, prev.x1)):
                return False
            self.glyphs[-1] = replace(prev, text=with_accent(prev.text, ch))
        elif can_take_accent(ch) and is_spacing_accent(prev.text):
            if not accent_over((prev.x0, prev.x1), (x, max(x1, x))):
                return False
            self.glyphs[-1] = replace(prev, x0=x, x1=max(x1, x), text=with_accent(ch, prev.text))
        else:
            return False
        self.chars.pop()
        self.chars[-1] = self.glyphs[-1].text
        return True

    def _joins_ligature(self, ch: str, x: float, x1: float) -> bool:
        """The next letter of a ligature: PDFium hands back one character per letter
        of a glyph such as "ff", each with the glyph's box. Read as two glyphs in one
        place, the second looked like the first drawn twice and was dropped
        (encguide p14: "27 (ff)" came out "27 (f)")."""
        if not self.glyphs:
            return False
        prev = self.glyphs[-1]
        if (prev.x0, prev.x1) != (x, max(x1, x)) or prev.text + ch not in _LIGATURE_LETTERS:
            return False
        self.glyphs[-1] = replace(prev, text=prev.text + ch)
        return True

    def flush(self) -> None:
        text = _WS.sub(" ", "".join(self.chars)).strip()
        if text and self.fonts:
            size = Counter(f.size for f in self.fonts).most_common(1)[0][0]
            family = Counter(f.family for f in self.fonts).most_common(1)[0][0]
            bold = sum(f.bold for f in self.fonts) >= 0.6 * len(self.fonts)
            x0 = min(g.x0 for g in self.glyphs)
            segments = segments_of(self.glyphs, size)
            top, bottom = min(self.tops), max(self.bottoms)
            self.lines.append(Line(text, top, bottom, x0, size, bold, family, segments))
        for parts in (self.chars, self.glyphs, self.fonts, self.tops, self.bottoms, self.bases):
            parts.clear()


def _char(tp: Any, i: int) -> str:
    import pypdfium2.raw as pdfium_c

    code = pdfium_c.FPDFText_GetUnicode(tp, i)
    ch = chr(code) if 0 <= code < 0x110000 else ""
    return "-" if ch == "\x02" else ch  # \x02: PDFium's marker of a hyphen at a line end


def _named_symbol(tp: Any, i: int, ch: str, symbols: PageSymbols) -> str:
    """The symbol glyph i's font names for the character PDFium wrote, else that character.

    A space or line end PDFium put in itself carries the font of the text around
    it (cmex, whose code 32 is parenleftBigg): only the page's own glyphs count.
    """
    import pypdfium2.raw as pdfium_c

    if pdfium_c.FPDFText_IsGenerated(tp, i) == 1:
        return ch
    name = ctypes.create_string_buffer(256)
    pdfium_c.FPDFText_GetFontInfo(tp, i, name, 256, None)
    return symbols.symbol(name.value.decode("utf-8", "replace"), ch) or ch


@dataclass
class _Char:
    """One character of PDFium's text page, as the line builder takes it."""

    ch: str
    generated: bool  # a space or line end PDFium put in itself
    font: _Font = field(default_factory=_Font)
    x0: float = 0.0
    x1: float = 0.0
    base: float = 0.0


def read_page_fast(page: Any, symbols: PageSymbols | None = None) -> tuple[list[Line], int]:
    """Text lines of a page without vector paths (so without ruled tables), via PDFium.

    Also how many glyphs PDFium could not map to Unicode: for those it hands
    back the font's raw code, a control character (e.g. a TeX ligature named
    "f_f_i" in a Type 1 font without ToUnicode), which is left out here and
    counted, so the caller can try pdfminer (which maps more glyph names) and
    report what neither could read. `symbols`: the characters PDFium writes
    for glyphs the page's fonts name as symbols (`symbols`), put back.
    """
    textpage = page.get_textpage()
    try:
        chars, unmapped = _page_chars(textpage.raw, float(page.get_size()[1]), symbols)
    finally:
        textpage.close()
    out = _LineBuilder()
    for c in join_stray_accents(chars):
        if c.ch in ("\r", "\n"):
            out.flush()
            continue
        out.chars.append(c.ch)
        if not c.ch.isspace():
            out.add(c.ch, c.font, c.x0, c.x1, c.base)
    out.flush()
    out.lines.sort(key=lambda ln: (round(ln.top), ln.x0))
    return merge_same_line(out.lines), unmapped


def _page_chars(tp: Any, height: float, symbols: PageSymbols | None) -> tuple[list[_Char], int]:
    """The text page's characters in PDFium's order, and how many it could not map."""
    import pypdfium2.raw as pdfium_c

    x, y = ctypes.c_double(), ctypes.c_double()
    left, right, low, high = (ctypes.c_double() for _ in range(4))
    # One set of pointers for the whole page: ctypes builds a new one per byref call.
    origin = (ctypes.byref(x), ctypes.byref(y))
    box = tuple(ctypes.byref(v) for v in (left, right, low, high))
    matrix = pdfium_c.FS_MATRIX()
    name = ctypes.create_string_buffer(256)
    flags = ctypes.c_int()
    chars: list[_Char] = []
    font = _Font()
    unmapped = 0
    previous = 0  # index of the last glyph appended to `chars`
    named = symbols.characters if symbols is not None else frozenset()
    for i in range(pdfium_c.FPDFText_CountChars(tp)):
        ch = _char(tp, i)
        if ch in named and symbols is not None:
            ch = _named_symbol(tp, i, ch, symbols)
        if ch and ord(ch) < 0x20 and ch not in "\t\r\n":
            unmapped += 1
            continue
        if not ch or 0xD800 <= ord(ch) < 0xE000:
            continue
        if ch.isspace():
            chars.append(_Char(ch, pdfium_c.FPDFText_IsGenerated(tp, i) == 1))
            continue
        size = _glyph_size(tp, i, matrix)
        # Font info is costly: read again on a size change, every 32 glyphs, and
        # for a hyphen (whether it is code's own decides how a line end joins).
        if size != font.size or i % 32 == 0 or ch == "-":
            pdfium_c.FPDFText_GetFontInfo(tp, i, name, 256, ctypes.byref(flags))
            font_name = name.value.decode("utf-8", "replace")
            font = _Font(
                size, is_bold_font(font_name), strip_subset(font_name), is_mono_font(font_name)
            )
        pdfium_c.FPDFText_GetCharOrigin(tp, i, *origin)
        pdfium_c.FPDFText_GetCharBox(tp, i, *box)
        x1 = float(right.value)
        if ch in _SMALL_INK:
            x1 = max(x1, _advance_end(tp, i))
        glyph = _Char(ch, False, font, float(x.value), x1, height - y.value)
        if chars:
            _to_advance_end(tp, previous, chars[-1], glyph)
        if chars and _space_left_out(tp, previous, chars[-1], glyph):
            chars.append(_Char(" ", True))
        elif len(chars) > 1 and _space_without_room(chars[-2], chars[-1], glyph):
            chars.pop()
        chars.append(glyph)
        previous = i
    return chars, unmapped


# Punctuation whose ink is a small part of its advance. A typewriter "." inks a
# third of its cell: measured from the ink, the space after it (a cell, and TeX's
# wider space after a sentence) looked like a gap between two table cells, and
# "with timezone." and "Other types" became two columns of a table.
_SMALL_INK = frozenset(".,:;!?'\")]}\u2019\u201d")


def _advance_end(tp: Any, index: int) -> float:
    """Where glyph `index`'s advance ends (the right edge of PDFium's loose box)."""
    import pypdfium2.raw as pdfium_c

    box = pdfium_c.FS_RECTF()
    if not pdfium_c.FPDFText_GetLooseCharBox(tp, index, ctypes.byref(box)):
        return 0.0
    return float(box.right)


def _to_advance_end(tp: Any, index: int, before: _Char, glyph: _Char) -> None:
    """Widen `before` to its advance when its ink stops a word space short of `glyph`.

    A glyph whose ink is narrow in its cell (Helvetica's "1" inks under half of its
    advance) left an ink gap wider than a word space to the next glyph of its word, and
    the line's segments split there: "1 3 kB", "pkg01 0" in ReportLab's table cells. The
    advance is where the font puts the next glyph, so the gap counts from there, as
    `_space_left_out` counts it; measured only where the ink gap is wide (rare).
    """
    if before.ch.isspace() or before.generated:
        return
    em = max(before.font.size, glyph.font.size, 1.0)
    if abs(glyph.base - before.base) > 0.3 * em or glyph.x0 - before.x1 <= WORD_GAP_EM * em:
        return
    end = _advance_end(tp, index)
    if before.x1 < end <= glyph.x0 + WORD_GAP_EM * em:
        before.x1 = end


def _space_without_room(before: _Char, space: _Char, glyph: _Char) -> bool:
    """A space character of the page's own between two glyphs of a line that leave
    no room for it: Ghostscript's groff pages draw one inside words ("neg ative",
    its glyphs a fortieth of an em apart), as pdftotext, going by the gap, reads."""
    if space.generated or space.ch != " " or before.ch.isspace():
        return False
    em = max(before.font.size, glyph.font.size, 1.0)
    if abs(glyph.base - before.base) > 0.3 * em:
        return False
    return 0 <= glyph.x0 - before.x1 < _NO_ROOM_EM * em


# Less room than this share of the em between two glyphs is no word space: the
# narrowest, a justified TeX line's, is near a sixth of an em.
_NO_ROOM_EM = 0.05


def _space_left_out(tp: Any, index: int, before: _Char, glyph: _Char) -> bool:
    """A word space between two glyphs of a line that PDFium gave no space for.

    Ghostscript sets groff's word spaces as character spacing (Tc) on a string
    holding the last letter of one word and the first of the next ("(yr) Tj" for
    "any redirections"); PDFium makes up no space there. The gap counts from the
    end of the glyph's advance (its loose box), not of its ink: a typewriter "."
    has a third of an em of blank cell after its ink, a bold "." a fifth.
    """
    if before.ch.isspace() or before.generated:
        return False
    em = max(before.font.size, glyph.font.size, 1.0)
    if abs(glyph.base - before.base) > 0.3 * em or glyph.x0 - before.x1 <= WORD_GAP_EM * em:
        return False  # the ink gap is the cheap test: most glyphs stop here
    return glyph.x0 - _advance_end(tp, index) > WORD_GAP_EM * em


def join_stray_accents(chars: list[_Char]) -> list[_Char]:
    """Every spacing accent drawn over a letter joined into that letter, wherever
    PDFium's order put it.

    Distiller's PDFs of dvips output (OT1 fonts: "u" with a "¨" drawn over it)
    draw an accent after later words of the line, so PDFium hands it back
    there, between spaces it made up: "unterst ¨ utzt ... fur die ¨". The
    letter under the accent (its centre inside the letter's box, its baseline
    within 0.6 em, as pdfplumber's pages are read) takes it; the spaces or line
    ends PDFium made around the accent are decided again from the glyphs that
    are left on either side.
    """
    accents = [i for i, c in enumerate(chars) if is_spacing_accent(c.ch) and not c.generated]
    if not accents:
        return chars
    bands: dict[int, list[_Char]] = {}
    for c in chars:
        if can_take_accent(c.ch):
            bands.setdefault(int(c.base // _ACCENT_BAND), []).append(c)
    out = list(chars)
    for i in accents:
        letter = _letter_under(chars[i], bands)
        if letter is not None:
            letter.ch = with_accent(letter.ch, chars[i].ch)
            _drop_with_made_up_space(out, chars[i])
    return out


_ACCENT_BAND = 8.0  # points: baselines are looked up in this band and its neighbours


def _letter_under(accent: _Char, bands: dict[int, list[_Char]]) -> _Char | None:
    reach = 0.6 * max(accent.font.size, 1.0)  # TeX raises an accent over a capital
    band = int(accent.base // _ACCENT_BAND)
    near = [
        c
        for b in (band - 1, band, band + 1)
        for c in bands.get(b, [])
        if abs(c.base - accent.base) <= reach and accent_over((accent.x0, accent.x1), (c.x0, c.x1))
    ]
    return min(near, key=lambda c: abs(c.base - accent.base)) if near else None


def _drop_with_made_up_space(chars: list[_Char], accent: _Char) -> None:
    """Remove the accent, and PDFium's spaces and line ends around it, from `chars`
    (in place); a word space or line end goes back where the glyphs left on
    either side call for one."""
    at = next(k for k, c in enumerate(chars) if c is accent)
    start, end = at, at + 1
    while start > 0 and chars[start - 1].generated:
        start -= 1
    while end < len(chars) and chars[end].generated:
        end += 1
    before = chars[start - 1] if start > 0 else None
    after = chars[end] if end < len(chars) else None
    gap: list[_Char] = []
    if before is None or after is None or before.ch.isspace() or after.ch.isspace():
        gap = []  # a space of the page's own (or the page's edge) stays as it is
    elif (start, end) != (at, at + 1):
        em = max(before.font.size, after.font.size, 1.0)
        if abs(before.base - after.base) > 0.3 * em:
            gap = [_Char("\n", True)]
        elif after.x0 - before.x1 > WORD_GAP_EM * em or after.x0 < before.x0:
            gap = [_Char(" ", True)]
    chars[start:end] = gap


def merge_same_line(lines: list[Line]) -> list[Line]:
    """Pieces on one baseline (e.g. left header + right page number) become one line."""
    out: list[Line] = []
    for ln in lines:
        prev = out[-1] if out else None
        if prev is not None and abs(prev.top - ln.top) < 1.0 and abs(prev.size - ln.size) < 0.5:
            prev.text = f"{prev.text} {ln.text}"
            prev.bottom = max(prev.bottom, ln.bottom)
            prev.segments = sorted(prev.segments + ln.segments, key=lambda seg: seg.x0)
        else:
            out.append(ln)
    return out
