"""Text lines of a PDF page, with the horizontal pieces they are made of.

Both page readers (pdfplumber and PDFium) produce `Line`s. Besides its text a
line keeps its *segments*: the runs of glyphs separated by gaps wider than
`CELL_GAP_EM` of the font size. A line of prose is one segment; a row of a
whitespace-aligned table, or a line across a two-column page, is several.
The column and table finders (`columns`, `tables.aligned`, `tables.banded`)
work on them.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
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


# Spacing accents as fonts without precomposed letters set them (TeX's \accent
# with OT1 fonts: "u" and "¨" drawn over it), and the combining mark each stands
# for. ASCII ` ^ ~ count only when drawn over a letter, like the others.
_COMBINING = {
    "\u00a8": "\u0308",  # diaeresis
    "\u00b4": "\u0301",  # acute
    "`": "\u0300",
    "\u02cb": "\u0300",  # grave
    "^": "\u0302",
    "\u02c6": "\u0302",  # circumflex
    "~": "\u0303",
    "\u02dc": "\u0303",  # tilde
    "\u00af": "\u0304",  # macron
    "\u02d8": "\u0306",  # breve
    "\u02d9": "\u0307",  # dot above
    "\u02da": "\u030a",  # ring
    "\u02dd": "\u030b",  # double acute
    "\u02c7": "\u030c",  # caron
    "\u00b8": "\u0327",  # cedilla
    "\u02db": "\u0328",  # ogonek
}
_DOTLESS = {"\u0131": "i", "\u0237": "j"}  # TeX accents i and j without their dot


def is_spacing_accent(text: str) -> bool:
    return text in _COMBINING


def accent_over(accent: tuple[float, float], letter: tuple[float, float]) -> bool:
    """Is the accent glyph (x0, x1) drawn over the letter (x0, x1)? Its centre
    lies inside the letter's box: glyphs side by side only touch."""
    centre = (accent[0] + accent[1]) / 2
    margin = 0.1 * (letter[1] - letter[0])
    return letter[0] + margin < centre < letter[1] - margin


def with_accent(letter: str, accent: str) -> str:
    """The letter with the accent drawn over it, as one character where Unicode has
    it ("u" + "¨" -> "ü"); the page shows one letter, and a reader searches for it."""
    base = _DOTLESS.get(letter, letter)
    return unicodedata.normalize("NFC", base + _COMBINING[accent])


def can_take_accent(text: str) -> bool:
    """A letter an accent can be drawn over. Spacing accents such as "ˇ" are
    modifier letters to Unicode (isalpha), but stacked accents (TIPA's caron
    under an acute) are two accents, not an accented accent."""
    return len(text) == 1 and text.isalpha() and text not in _COMBINING


@dataclass(frozen=True)
class Glyph:
    x0: float
    x1: float
    text: str
    mono: bool
    size: float = 0.0
    font: str = ""  # without the subset prefix
    bold: bool = False


@dataclass
class Segment:
    x0: float
    x1: float
    text: str
    mono: bool = False  # set in a typewriter font (code, command names)
    # The segment's own font, for a page column's share of a line (see
    # `line_from_segments`); 0.0 / "" when the reader did not give it.
    size: float = 0.0
    bold: bool = False
    font: str = ""
    # The glyphs it is made of, left to right, kept while the page's reading order
    # is worked out (a segment running over the edge of a page column is cut at
    # the glyph on that edge, `split_at`) and released after (`release_glyphs`):
    # held for every page of a long document they would cost more than the text.
    glyphs: tuple[Glyph, ...] = field(default=(), repr=False, compare=False)
    # Its last glyph is in a typewriter font: a hyphen there is the text's own
    # (neither TeX nor an office suite hyphenates code).
    mono_end: bool = False


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
    baseline: float = 0.0  # median glyph baseline; 0.0 = not known (PDFium, a column's part)
    note: bool = False  # a margin note taken out of the text (`columns.margin_order`)

    @property
    def x1(self) -> float:
        return self.segments[-1].x1 if self.segments else self.x0


def is_bold_font(name: str) -> bool:
    """Bold by name: "...-Bold", "LMSansDemiCond", or TeX's bold extended ("cmbx12", "SFBX1440")."""
    return bool(_BOLD_FONT.search(name.lower()))


def strip_subset(name: str) -> str:
    """The font family without the subset prefix ("ABCDEF+")."""
    return _SUBSET.sub("", name)


def is_mono_font(name: str) -> bool:
    return bool(_MONO_FONT.search(name.lower()))


def _segment(glyphs: list[Glyph], start: float, end: float, text: str) -> Segment:
    """A segment of `glyphs` with the font most of them are set in."""
    mono = sum(1 for g in glyphs if g.mono)
    size = Counter(g.size for g in glyphs).most_common(1)[0][0]
    font = Counter(g.font for g in glyphs).most_common(1)[0][0]
    bold = sum(1 for g in glyphs if g.bold) >= 0.6 * len(glyphs)
    return Segment(
        start,
        end,
        text.strip(),
        2 * mono >= len(glyphs),
        size,
        bold,
        font,
        tuple(glyphs),
        glyphs[-1].mono,
    )


def segments_of(glyphs: Sequence[Glyph], size: float) -> list[Segment]:
    """Glyphs of one line (any order) -> segments, words spaced by the word-gap rule."""
    ordered = sorted((g for g in glyphs if g.text.strip()), key=lambda g: g.x0)
    out: list[Segment] = []
    parts: list[str] = []
    members: list[Glyph] = []
    start = end = 0.0
    em = max(size, 1.0)
    last: Glyph | None = None
    for g in ordered:
        if last is not None and g.text == last.text and abs(g.x0 - last.x0) < 0.1:
            continue  # the same glyph drawn twice (overprinting)
        last = g
        if parts and g.x0 - end > CELL_GAP_EM * em:
            out.append(_segment(members, start, end, "".join(parts)))
            parts, members = [], []
        if not parts:
            start, end = g.x0, g.x1
        elif g.x0 - end > WORD_GAP_EM * em:
            parts.append(" ")
        parts.append(g.text)
        members.append(g)
        end = max(end, g.x1)
    if parts:
        out.append(_segment(members, start, end, "".join(parts)))
    return out


def split_at(segment: Segment, index: int, size: float) -> list[Segment]:
    """The segment cut before its glyph `index`: two segments, each with the words
    and the font of its own glyphs (`size` is the line's, as in `segments_of`)."""
    glyphs = segment.glyphs
    if not 0 < index < len(glyphs):
        return [segment]
    return segments_of(glyphs[:index], size) + segments_of(glyphs[index:], size)


def release_glyphs(lines: Sequence[Line]) -> None:
    """Drop the glyphs the lines' segments keep (only the reading order needs them)."""
    for ln in lines:
        for seg in ln.segments:
            seg.glyphs = ()


def line_from_segments(template: Line, segments: list[Segment]) -> Line:
    """A part of a line (one page column's share of it) as a line of its own, with the
    font of its own segments when the reader gave them (a column's bold section title
    on the baseline of another column's text is bold)."""
    size, bold, font = template.size, template.bold, template.font
    if all(s.size > 0 for s in segments):
        weight: Counter[tuple[float, str]] = Counter()
        for s in segments:
            weight[(s.size, s.font)] += len(s.text)
        size, font = weight.most_common(1)[0][0]
        bold_chars = sum(len(s.text) for s in segments if s.bold)
        bold = bold_chars >= 0.6 * sum(len(s.text) for s in segments)
    return Line(
        text=" ".join(s.text for s in segments),
        top=template.top,
        bottom=template.bottom,
        x0=segments[0].x0,
        size=size,
        bold=bold,
        font=font,
        segments=segments,
        seq=template.seq,
    )


def join_baselines(lines: list[Line]) -> list[Line]:
    """Lines side by side on one baseline in different font sizes become one line.

    pdfplumber clusters characters by their top, so in l2kurz's table of font
    sizes the 10 pt command and its description in 14-25 pt on the same baseline
    came out as separate lines, and every row from \\large on took the next
    row's description. Only neighbours in reading order are joined: a page
    column's lines are split before (their parts know no baseline), so text of
    two columns on one baseline stays apart. And only where both pieces start
    where other rows of the page have a cell (the table's columns): an example
    set beside its source code (bibleref-german) stays two texts.
    `rows._same_baseline` does not do this: it joins only pieces inline with
    their row (no wider apart than a segment gap), and the cells of a table row
    stand a column gap apart.
    """
    starts = [s.x0 for ln in lines if len(ln.segments) >= 2 for s in ln.segments]
    out: list[Line] = []
    for ln in lines:
        partner = next(
            (p for p in reversed(out[-3:]) if _one_baseline(p, ln) and _in_columns(p, ln, starts)),
            None,
        )
        if partner is None:
            out.append(ln)
            continue
        out[out.index(partner)] = _joined(partner, ln)
    return out


def _in_columns(a: Line, b: Line, starts: list[float]) -> bool:
    return all(any(abs(ln.x0 - x) <= 2.0 for x in starts) for ln in (a, b))


def _one_baseline(a: Line, b: Line) -> bool:
    if not (a.baseline and b.baseline and a.segments and b.segments):
        return False
    apart = a.x1 <= b.x0 or b.x1 <= a.x0
    return apart and abs(a.baseline - b.baseline) <= 1.0 and abs(a.size - b.size) >= 0.5


def _joined(a: Line, b: Line) -> Line:
    left, right = (a, b) if a.x0 <= b.x0 else (b, a)
    main = max((a, b), key=lambda ln: len(ln.text))  # the line's font: most of its text
    return Line(
        text=f"{left.text} {right.text}",
        top=min(a.top, b.top),
        bottom=max(a.bottom, b.bottom),
        x0=left.x0,
        size=main.size,
        bold=main.bold,
        font=main.font,
        segments=[*left.segments, *right.segments],
        seq=min(a.seq, b.seq),
        baseline=a.baseline,
    )
