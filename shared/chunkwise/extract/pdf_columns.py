"""Reading order of pages set in two columns: the left column, then the right.

Both readers give lines from left to right across the page: on a two-column
page a "line" is a line of the left column and one of the right column on the
same baseline, and reading them in that order interleaves two texts. A page
is two-column when its lines leave a vertical gutter free near the middle,
with prose lines filling both sides of it (a whitespace-aligned table has
narrow cells, a code listing has nothing on the right). Lines that cross the
gutter (a title over both columns, a wide figure caption) are read in their
place: the columns above them first, left then right.
"""

from __future__ import annotations

from statistics import median

from .pdf_lines import Line, Segment, line_from_segments

_SEARCH = (0.25, 0.75)  # share of the page width where a gutter may sit
_MIN_GUTTER = 6.0  # points
_MIN_LINES = 6  # lines on each side
_MAX_CROSSING = 0.15  # share of the lines that may cross the gutter
_FILL = 0.6  # median share of its column a line fills: prose, not table cells
_MIN_COLUMN = 0.3  # share of the text width each page column spans


def _coverage(lines: list[Line], width: float) -> list[int]:
    cover = [0] * (int(width) + 2)
    for ln in lines:
        seen: set[int] = set()
        for seg in ln.segments:
            seen.update(range(max(0, int(seg.x0)), min(len(cover), int(seg.x1) + 1)))
        for x in seen:
            cover[x] += 1
    return cover


def _middle_gap(cover: list[int], width: float, limit: int) -> tuple[float, float] | None:
    lo, hi = int(_SEARCH[0] * width), int(_SEARCH[1] * width)
    best: tuple[float, float] | None = None
    start: int | None = None
    for x in range(lo, hi + 1):
        free = cover[x] <= limit
        if free and start is None:
            start = x
        if (not free or x == hi) and start is not None:
            end = x if free else x - 1
            if end - start >= _MIN_GUTTER and (
                best is None or abs(start + end - width) < abs(best[0] + best[1] - width)
            ):
                best = (float(start), float(end + 1))  # the free gap nearest the middle
            start = None
    return best


def find_gutter(lines: list[Line], width: float) -> tuple[float, float] | None:
    """(left, right) x of the gutter of a two-column page, or None."""
    with_text = [ln for ln in lines if ln.segments]
    if len(with_text) < 2 * _MIN_LINES or width <= 0:
        return None
    gap = _middle_gap(_coverage(with_text, width), width, max(1, len(with_text) // 20))
    if gap is None:
        return None
    left_edge, right_edge = gap
    lefts = [s for ln in with_text for s in ln.segments if s.x1 <= left_edge + 0.5]
    rights = [s for ln in with_text for s in ln.segments if s.x0 >= right_edge - 0.5]
    crossing = sum(
        1 for ln in with_text if any(s.x0 < left_edge and s.x1 > right_edge for s in ln.segments)
    )
    if min(len(lefts), len(rights)) < _MIN_LINES or crossing > _MAX_CROSSING * len(with_text):
        return None
    margin = min(s.x0 for s in lefts)
    end = max(s.x1 for s in rights)
    if min(left_edge - margin, end - right_edge) < _MIN_COLUMN * (end - margin):
        return None  # a narrow first column: a table's keys, not a page column
    sides = [_side(ln, left_edge, right_edge) for ln in with_text]
    left_sides = [x for x, _ in sides if x is not None]
    right_sides = [x for _, x in sides if x is not None]
    for parts, span in ((left_sides, left_edge - margin), (right_sides, end - right_edge)):
        if median(w for w, _n in parts) < _FILL * span or median(n for _w, n in parts) > 2:
            return None  # short pieces, or many per line: table cells, not prose
        # (two per line is a contents entry and its page number)
    return gap


def _side(
    ln: Line, left_edge: float, right_edge: float
) -> tuple[tuple[float, int] | None, tuple[float, int] | None]:
    """(extent, segments) of the line's part left and right of the gutter."""
    out: list[tuple[float, int] | None] = []
    for segs in (
        [s for s in ln.segments if s.x1 <= left_edge + 0.5],
        [s for s in ln.segments if s.x0 >= right_edge - 0.5],
    ):
        out.append((segs[-1].x1 - segs[0].x0, len(segs)) if segs else None)
    return out[0], out[1]


def reading_order(lines: list[Line], width: float) -> list[Line]:
    """The page's lines column by column (unchanged on a one-column page)."""
    gutter = find_gutter(lines, width)
    if gutter is None:
        return lines
    left_edge, right_edge = gutter
    out: list[Line] = []
    left: list[Line] = []
    right: list[Line] = []
    for ln in sorted(lines, key=lambda x: x.top):
        lsegs: list[Segment] = [s for s in ln.segments if s.x1 <= left_edge + 0.5]
        rsegs: list[Segment] = [s for s in ln.segments if s.x0 >= right_edge - 0.5]
        if not ln.segments or len(lsegs) + len(rsegs) < len(ln.segments):
            out += left + right  # a line over both columns ends the band above it
            left, right = [], []
            out.append(ln)
            continue
        if lsegs:
            left.append(ln if not rsegs else line_from_segments(ln, lsegs))
        if rsegs:
            right.append(ln if not lsegs else line_from_segments(ln, rsegs))
    return out + left + right
