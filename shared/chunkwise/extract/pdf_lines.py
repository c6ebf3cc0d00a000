"""Text lines of a PDF page, with the horizontal pieces they are made of.

Both page readers (pdfplumber and PDFium) produce `Line`s. Besides its text a
line keeps its *segments*: the runs of glyphs separated by gaps wider than
`CELL_GAP_EM` of the font size. A line of prose is one segment; a row of a
whitespace-aligned table, or a line across a two-column page, is several.
The column and table finders (`pdf_columns`, `pdf_aligned`) work on them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

# A gap wider than this share of the font size starts a new word. pdfplumber's
# default is an absolute 3 pt, wider than a justified TeX line's word space at
# 10 pt (about 2.2 pt): whole lines came out as one word. Less than a sixth of an em
# is still wider than any kern inside a word.
WORD_GAP_EM = 0.15
# A gap wider than this share of the font size separates two segments (table
# cells, page columns). TeX puts 2 x \tabcolsep = 12 pt between columns (1.2 em
# at 10 pt); a justified line's widest word space stays well below an em.
CELL_GAP_EM = 0.8
_SUBSET = re.compile(r"^[A-Z]{6}\+")
_BOLD_FONT = re.compile(r"bold|black|heavy|demi|(?:^|\+)(?:cm|sf|ec|tc|lm)?bx\d")
_MONO_FONT = re.compile(
    r"mono|courier|typewriter|(?:^|\+)(?:cm|sf|ec|tc|lm|t1x|lmt)?tt\d|cmtt|lmtt"
)


@dataclass
class Segment:
    x0: float
    x1: float
    text: str
    mono: bool = False  # set in a typewriter font (code, command names)


@dataclass
class Line:
    text: str
    top: float
    bottom: float
    x0: float
    size: float
    bold: bool
    font: str = ""  # the line's main font, without the subset prefix ("ABCDEF+")
    segments: list[Segment] = field(default_factory=list)
    seq: float = -1.0  # place in the page's reading order; -1 = not set (order by top)

    @property
    def x1(self) -> float:
        return self.segments[-1].x1 if self.segments else self.x0


@dataclass(frozen=True)
class Glyph:
    x0: float
    x1: float
    text: str
    mono: bool


def is_bold_font(name: str) -> bool:
    """Bold by name: "...-Bold", "LMSansDemiCond", or TeX's bold extended ("cmbx12", "SFBX1440")."""
    return bool(_BOLD_FONT.search(name.lower()))


def strip_subset(name: str) -> str:
    """The font family without the subset prefix ("ABCDEF+")."""
    return _SUBSET.sub("", name)


def is_mono_font(name: str) -> bool:
    return bool(_MONO_FONT.search(name.lower()))


def segments_of(glyphs: Sequence[Glyph], size: float) -> list[Segment]:
    """Glyphs of one line (any order) -> segments, words spaced by the word-gap rule."""
    ordered = sorted((g for g in glyphs if g.text.strip()), key=lambda g: g.x0)
    out: list[Segment] = []
    parts: list[str] = []
    mono = 0
    count = 0
    start = end = 0.0
    em = max(size, 1.0)
    last: Glyph | None = None
    for g in ordered:
        if last is not None and g.text == last.text and abs(g.x0 - last.x0) < 0.1:
            continue  # the same glyph drawn twice (overprinting)
        last = g
        if parts and g.x0 - end > CELL_GAP_EM * em:
            out.append(Segment(start, end, "".join(parts).strip(), 2 * mono >= count))
            parts, mono, count = [], 0, 0
        if not parts:
            start, end = g.x0, g.x1
        elif g.x0 - end > WORD_GAP_EM * em:
            parts.append(" ")
        parts.append(g.text)
        mono += int(g.mono)
        count += 1
        end = max(end, g.x1)
    if parts:
        out.append(Segment(start, end, "".join(parts).strip(), 2 * mono >= count))
    return out


def line_from_segments(template: Line, segments: list[Segment]) -> Line:
    """A part of a line (one page column's share of it) as a line of its own."""
    return Line(
        text=" ".join(s.text for s in segments),
        top=template.top,
        bottom=template.bottom,
        x0=segments[0].x0,
        size=template.size,
        bold=template.bold,
        font=template.font,
        segments=segments,
        seq=template.seq,
    )
