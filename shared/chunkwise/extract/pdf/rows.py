"""pdfplumber characters -> text lines (`text_lines`).

Accents drawn as separate glyphs joined to their letter (`join_accents`),
mirrored glyphs set upright (`upright_mirrored`), rows that share a top but not
a baseline split (stacked rows), pieces of one row joined back (super- and
subscripts, inline pieces: `_same_baseline`), turned text read as lines, and the
line's glyphs with their font facts (size, font, bold, ligatures).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import replace
from statistics import median
from typing import Any

from .lines import (
    CELL_GAP_EM,
    WORD_GAP_EM,
    Glyph,
    Line,
    Segment,
    accent_over,
    can_take_accent,
    is_bold_font,
    is_mono_font,
    is_spacing_accent,
    segments_of,
    strip_subset,
    with_accent,
)

WS = re.compile(r"\s+")
BAND = 8  # points
_SCRIPT_SIZE = 0.85  # of a line's size: a superscript's or subscript's glyphs at most
_JOIN_BACK = 3  # rows looked back at for one on the same baseline (`_same_baseline`)


def _line_size(chars: list[dict[str, Any]]) -> float:
    sizes = [round(float(c.get("size", 0.0)), 1) for c in chars if str(c.get("text", "")).strip()]
    if not sizes:
        return 0.0
    return Counter(sizes).most_common(1)[0][0]


def _line_font(chars: list[dict[str, Any]]) -> str:
    fonts = Counter(str(c.get("fontname", "")) for c in chars if str(c.get("text", "")).strip())
    return strip_subset(fonts.most_common(1)[0][0]) if fonts else ""


def _line_bold(chars: list[dict[str, Any]]) -> bool:
    visible = [c for c in chars if str(c.get("text", "")).strip()]
    bold = sum(1 for c in visible if is_bold_font(str(c.get("fontname", ""))))
    return bool(visible) and bold >= 0.6 * len(visible)


def join_accents(page: Any) -> Any:
    """The page with every spacing accent drawn over a letter joined into that letter.

    Fonts without precomposed letters (TeX's OT1 fonts) set "ü" as "u" with a
    "¨" glyph over it; read apart, "für" came out as "fu¨r". The letter's
    character takes the accent (pdfplumber's cached character, so that words,
    lines and table cells all see it) and the accent glyph leaves the page.
    """
    chars = page.chars
    accents = [c for c in chars if is_spacing_accent(str(c.get("text", "")))]
    if not accents:
        return page
    rows: dict[int, list[dict[str, Any]]] = {}
    for c in chars:
        if can_take_accent(str(c.get("text", ""))):
            rows.setdefault(int(_baseline(c) // BAND), []).append(c)
    joined: set[int] = set()
    for accent in accents:
        letter = _letter_under(accent, rows)
        if letter is not None:
            letter["text"] = with_accent(str(letter["text"]), str(accent["text"]))
            joined.add(id(accent))
    return page.filter(lambda obj: id(obj) not in joined) if joined else page


def upright_mirrored(chars: list[dict[str, Any]]) -> None:
    """Glyphs drawn mirrored left to right, not rotated, read as upright (in place).

    XeTeX's logo sets its "E" reflected (text matrix -1 0 0 1); pdfminer calls such
    a glyph not upright, and pdfplumber groups characters by uprightness first, so
    the logo came out as three words, "X E TEX", in prose and table heads alike.
    """
    for c in chars:
        matrix = c.get("matrix")
        if c.get("upright") or not matrix or len(matrix) < 4:
            continue
        a, b, cc, d = (float(v) for v in matrix[:4])
        if a < 0 < d and b == 0 and cc == 0:
            c["upright"] = True


def _letter_under(
    accent: dict[str, Any], rows: dict[int, list[dict[str, Any]]]
) -> dict[str, Any] | None:
    # TeX raises an accent over a capital: its baseline may sit a few points higher.
    size = max(float(accent.get("size", 0.0)), 1.0)
    base = _baseline(accent)
    span = (float(accent["x0"]), float(accent["x1"]))
    row = int(base // BAND)
    for c in itertools.chain.from_iterable(rows.get(r, []) for r in (row - 1, row, row + 1)):
        near = abs(_baseline(c) - base) <= 0.6 * size
        if near and can_take_accent(str(c["text"])) and accent_over(span, (c["x0"], c["x1"])):
            return c
    return None


def text_lines(text_page: Any) -> list[Line]:
    """The page's text lines: pdfplumber's, split where it chained two rows
    (`_stacked_rows`) and joined where it split one row (`_same_baseline`)."""
    rows: list[tuple[list[dict[str, Any]], str | None]] = []
    turned: list[tuple[list[dict[str, Any]], str]] = []
    for raw in text_page.extract_text_lines(
        return_chars=True,
        strip=True,
        x_tolerance_ratio=WORD_GAP_EM,
        char_dir_rotated=_rotated_direction(text_page.chars),
    ):
        text = WS.sub(" ", str(raw.get("text", ""))).strip()
        if not text:
            continue
        if not any(c.get("upright", True) for c in raw.get("chars", [])):
            turned.append((list(raw["chars"]), text))  # a line of turned text
            continue
        stacked = _stacked_rows(list(raw.get("chars", [])))
        if len(stacked) == 1:
            rows.append((stacked[0], text))
        else:
            rows += [(row, None) for row in stacked]
    lines = [_line_of(chars, text) for chars, text in _same_baseline(rows)]
    return _with_turned(lines, turned) if turned else lines


def _with_turned(lines: list[Line], turned: list[tuple[list[dict[str, Any]], str]]) -> list[Line]:
    """The page's lines with its turned text put in, each block of turned lines side
    by side (a table's rotated column heads) as one line: the lines read left to
    right, each one word of it, placed where the block's highest glyph is."""
    turned.sort(key=lambda row: min(float(c["top"]) for c in row[0]))
    blocks: list[list[tuple[list[dict[str, Any]], str]]] = []
    bottom = -1.0
    for chars, text in turned:
        if not blocks or min(float(c["top"]) for c in chars) > bottom:
            blocks.append([])  # below the block so far: a block of its own
        blocks[-1].append((chars, text))
        bottom = max(bottom, max(float(c["bottom"]) for c in chars))
    keyed = [(ln.top, ln.x0, ln) for ln in lines]
    keyed += [(ln.top, ln.x0, ln) for ln in map(_turned_line, blocks)]
    return [ln for _, _, ln in sorted(keyed, key=lambda k: (k[0], k[1]))]


def _turned_line(block: list[tuple[list[dict[str, Any]], str]]) -> Line:
    """One line of turned text lines: each is a segment of its own (a column's head),
    made of one glyph as wide as the line is drawn."""
    segments = []
    for chars, text in block:
        first = _glyphs(chars[:1])[0]
        x0, x1 = min(float(c["x0"]) for c in chars), max(float(c["x1"]) for c in chars)
        glyph = replace(first, x0=x0, x1=x1, text=text)
        font = (glyph.mono, glyph.size, glyph.bold, glyph.font)
        segments.append(Segment(x0, x1, text, *font, glyphs=(glyph,)))
    segments.sort(key=lambda seg: seg.x0)
    every = [c for chars, _ in block for c in chars]
    size = _line_size(every)
    return Line(
        text=" ".join(seg.text for seg in segments),
        top=min(float(c["top"]) for c in every),
        bottom=max(float(c["bottom"]) for c in every),
        x0=segments[0].x0,
        size=size,
        bold=_line_bold(every),
        font=_line_font(every),
        segments=segments,
    )


def _rotated_direction(chars: list[dict[str, Any]]) -> str:
    """How the page's turned glyphs read: upwards ("btt", text turned a quarter to
    the left, as rotated column heads of tables are set) or downwards ("ttb")."""
    up = down = 0
    for c in chars:
        matrix = c.get("matrix")
        if c.get("upright", True) or not matrix or len(matrix) < 4:
            continue
        if float(matrix[1]) > 0:
            up += 1
        elif float(matrix[1]) < 0:
            down += 1
    return "btt" if up > down else "ttb"


def _same_baseline(
    rows: list[tuple[list[dict[str, Any]], str | None]],
) -> list[tuple[list[dict[str, Any]], str | None]]:
    """Rows on one baseline that pdfplumber split, joined (text rebuilt from segments).

    It clusters characters into lines by their tops (3 pt): a word set inline in a
    font with a taller or shorter box (hausarbeit-jura's \\texttt in Bera Sans Mono
    at 8.5 pt among Linux Libertine at 10 pt: tops 3.3 pt apart, one baseline) came
    out as a line of its own, and then as a paragraph in the middle of a sentence.
    A row is joined to one of the `_JOIN_BACK` rows before it whose baseline (the
    median of its glyphs') is within 0.5 pt, as PDFium's reader makes that line.
    `lines.join_baselines` cannot do this: it sees lines only after reading
    order and joins them only where both start at a table column, which an inline
    word or a footnote mark in running prose does not.
    """
    out: list[tuple[list[dict[str, Any]], str | None]] = []
    bases: list[float | None] = []
    for chars, text in rows:
        base = _row_baseline(chars)
        same = _same_row(out, bases, chars, base)
        if same is not None:
            out[same] = (out[same][0] + chars, None)
            continue
        if out and base is not None and _scripts_of(chars, base, out[-1][0]):
            out[-1], bases[-1] = (out[-1][0] + chars, None), base  # raised marks above
            continue
        if out and bases[-1] is not None and _scripts_of(out[-1][0], bases[-1], chars):
            out[-1] = (out[-1][0] + chars, None)  # lowered marks below
            continue
        out.append((chars, text))
        bases.append(base)
    return out


def _scripts_of(row: list[dict[str, Any]], base: float, part: list[dict[str, Any]]) -> bool:
    """`part` holds only superscripts or subscripts of `row` (smaller glyphs, raised or
    lowered by less than half the row's size) and glyphs on its baseline, inline with
    its text. pdfplumber clusters by top: l2tabu's footnote mark "12" and the "2" of
    "LaTeX 2e" beside it made a line "12 2" between the two lines of a paragraph, and a
    word hyphenated over them ("unterstüt-" / "zen") was not joined."""
    size = max(_line_size(row), 1.0)
    visible = [c for c in part if str(c.get("text", "")).strip()]
    if not visible or len(visible) >= len(row):
        return False
    for c in visible:
        shift = abs(_baseline(c) - base)
        small = float(c.get("size", 0.0)) <= _SCRIPT_SIZE * size
        if shift > 0.5 and not (small and shift <= 0.5 * size):
            return False
    return _inline(row, part)


def _same_row(
    out: list[tuple[list[dict[str, Any]], str | None]],
    bases: list[float | None],
    chars: list[dict[str, Any]],
    base: float | None,
) -> int | None:
    """The latest of the last `_JOIN_BACK` rows that `chars` continue: on the same
    baseline (within 0.5 pt) and inline, not a page column or a margin note apart."""
    if base is None:
        return None
    for i in range(len(out) - 1, max(-1, len(out) - 1 - _JOIN_BACK), -1):
        other = bases[i]
        if other is not None and abs(other - base) <= 0.5 and _inline(out[i][0], chars):
            return i
    return None


def _inline(row: list[dict[str, Any]], part: list[dict[str, Any]]) -> bool:
    """`part` sits in `row`'s text: next to one of its glyphs, no wider apart than a
    segment gap (`CELL_GAP_EM`), and over none of them."""
    em = max(_line_size(row), 1.0)
    glyphs = sorted(
        [(float(c["x0"]), float(c["x1"]), 0) for c in row if str(c.get("text", "")).strip()]
        + [(float(c["x0"]), float(c["x1"]), 1) for c in part if str(c.get("text", "")).strip()]
    )
    touching = False
    for a, b in itertools.pairwise(glyphs):
        if a[2] != b[2]:
            gap = b[0] - a[1]
            if gap < -0.5:
                return False  # glyphs over each other: two lines, not one
            touching = touching or gap <= CELL_GAP_EM * em
    return touching


def _row_baseline(chars: list[dict[str, Any]]) -> float | None:
    """The median baseline of the row's visible glyphs (a footnote mark does not move it)."""
    bases = [_baseline(c) for c in chars if str(c.get("text", "")).strip()]
    return median(bases) if bases else None


def _line_of(chars: list[dict[str, Any]], text: str | None) -> Line:
    """A line from its characters; `text` None: from its segments (a line split by
    `_stacked_rows`, whose pdfplumber text interleaves two rows)."""
    size = _line_size(chars)
    segments = segments_of(_glyphs(chars), size)
    return Line(
        text=text if text is not None else " ".join(seg.text for seg in segments),
        top=min(float(c["top"]) for c in chars),
        bottom=max(float(c["bottom"]) for c in chars),
        x0=min(float(c["x0"]) for c in chars),
        size=size,
        bold=_line_bold(chars),
        font=_line_font(chars),
        segments=segments,
        baseline=median(_baseline(c) for c in chars),
    )


def _baseline(char: dict[str, Any]) -> float:
    matrix = char.get("matrix")
    return -float(matrix[5]) if matrix else float(char["bottom"])  # PDF y grows upwards


def _stacked_rows(chars: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The rows of a line that pdfplumber chained together, else the line itself.

    Its lines are clusters of tops less than 3 pt apart, chained: on a page of
    three columns with their own leading, the rows of one column (9 pt apart)
    are linked by the other columns' rows in between, and two rows come out as
    one line with their glyphs interleaved. Such a line has glyphs over each
    other on different baselines; it is split by baseline.
    """
    visible = sorted((c for c in chars if str(c.get("text", "")).strip()), key=lambda c: c["x0"])
    size = max(_line_size(chars), 1.0)
    stacked = any(
        float(b["x0"]) < float(a["x1"]) - 0.5 and abs(_baseline(a) - _baseline(b)) > 0.5 * size
        for a, b in itertools.pairwise(visible)
    )
    if not stacked:
        return [chars]
    rows: list[list[dict[str, Any]]] = []
    last = -1e9
    for c in sorted(chars, key=_baseline):
        if _baseline(c) - last > 0.15 * size:  # glyphs of a row share a baseline
            rows.append([])
        rows[-1].append(c)
        last = _baseline(c)
    return [r for r in rows if any(str(c.get("text", "")).strip() for c in r)]


_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}
)


def _glyphs(chars: list[dict[str, Any]]) -> list[Glyph]:
    """pdfplumber's characters of a line, ligatures expanded as in its line text."""
    return [
        Glyph(
            float(c["x0"]),
            float(c["x1"]),
            str(c.get("text", "")).translate(_LIGATURES),
            is_mono_font(str(c.get("fontname", ""))),
            round(float(c.get("size", 0.0)), 1),
            strip_subset(str(c.get("fontname", ""))),
            is_bold_font(str(c.get("fontname", ""))),
        )
        for c in chars
    ]
