"""Reading order of pages set in columns: the left column, then the next.

Both readers give lines from left to right across the page: on a two-column
page a "line" is a line of the left column and one of the right column on the
same baseline, and reading them in that order interleaves two texts. A page
is two-column when its lines leave a vertical gutter free near the middle,
with prose lines filling both sides of it (a whitespace-aligned table has
narrow cells, a code listing has nothing on the right). Lines that cross the
gutter (a title over both columns, a wide figure caption) are read in their
place: the columns above them first, left then right.

Pages of three or more columns (reference cards) are found from all the free
gaps of the x-histogram (`find_columns`); there the columns hold small tables
and titles rather than prose, so the test is that each column has lines of its
own baseline, which a table's columns do not.
"""

from __future__ import annotations

import re
from collections import Counter
from statistics import median

from .lines import Glyph, Line, Segment, line_from_segments, split_at

_SEARCH = (0.25, 0.75)  # share of the page width where a gutter may sit
_MIN_GUTTER = 6.0  # points
_MIN_LINES = 6  # lines on each side
_MAX_CROSSING = 0.15  # share of the lines that may cross the gutter
_FILL = 0.6  # median share of its column a line fills: prose, not table cells
_MIN_COLUMN = 0.3  # share of the text width each page column spans
_MIN_K_COLUMN = 0.2  # the same on a page of three or more columns
# Lines with text in one page column only: each column at least this many, and
# this share of all lines (a table's columns share their rows' baselines).
_MIN_ALONE = 3
_ALONE_SHARE = 0.3
# A glyph this close to the x where a page column's lines start begins that
# column's text (TeX sets a column's lines flush at its left edge).
_EDGE = 1.0


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


def _free_gaps(cover: list[int], lo: int, hi: int, limit: int) -> list[tuple[float, float]]:
    """Runs of x in [lo, hi) that at most `limit` lines cover, at least `_MIN_GUTTER` wide."""
    gaps: list[tuple[float, float]] = []
    start: int | None = None
    for x in range(lo, hi + 1):
        free = x < hi and cover[x] <= limit
        if free and start is None:
            start = x
        elif not free and start is not None:
            if x - start >= _MIN_GUTTER:
                gaps.append((float(start), float(x)))
            start = None
    return gaps


def _split_widest(
    gaps: list[tuple[float, float]], margin: float, end: float
) -> list[tuple[float, float]]:
    """The gaps that cut [margin, end] into columns of at least `_MIN_K_COLUMN` of it, widest
    first: a table's gutter inside a page column leaves a narrow piece and is not taken."""
    chosen: list[tuple[float, float]] = []
    least = _MIN_K_COLUMN * (end - margin)
    for gap in sorted(gaps, key=lambda g: g[0] - g[1]):
        trial = sorted([*chosen, gap])
        edges = [margin, *[x for g in trial for x in g], end]
        if all(b - a >= least for a, b in zip(edges[::2], edges[1::2], strict=True)):
            chosen = trial
    return chosen


def _column_index(seg: Segment, gutters: list[tuple[float, float]]) -> int | None:
    """The page column that holds the segment, None if it crosses a gutter."""
    for i in range(len(gutters) + 1):
        after = i == 0 or seg.x0 >= gutters[i - 1][1] - 0.5
        before = i == len(gutters) or seg.x1 <= gutters[i][0] + 0.5
        if after and before:
            return i
    return None


def _column_of_start(seg: Segment, gutters: list[tuple[float, float]]) -> int:
    """The page column where the segment starts: on a card, text running into the
    gutter (a long cell, a word set without the usual gap) belongs to its column."""
    return sum(1 for left, _right in gutters if seg.x0 >= left)


def _alone_counts(lines: list[Line], gutters: list[tuple[float, float]]) -> list[int]:
    """Per page column: the lines with text in that column only."""
    alone = [0] * (len(gutters) + 1)
    for ln in lines:
        cols = {_column_of_start(s, gutters) for s in ln.segments}
        if len(cols) == 1:
            alone[cols.pop()] += 1
    return alone


def find_columns(lines: list[Line], width: float) -> list[tuple[float, float]] | None:
    """The gutters of a page set in three or more columns (reference cards), or None.

    Gutters are the x ranges (nearly) no line covers from the top of the page to
    the bottom, each column at least a fifth of the text width. The columns'
    lines keep their own baselines (headings, tables and prose of different
    sizes), so in every column many lines have text there alone; the columns of
    a table share their rows' baselines and are rejected, as is a page where
    lines cross the gutters (prose over the whole width around a table).
    """
    with_text = [ln for ln in lines if ln.segments]
    if len(with_text) < 3 * _MIN_LINES or width <= 0:
        return None
    margin = min(s.x0 for ln in with_text for s in ln.segments)
    end = max(s.x1 for ln in with_text for s in ln.segments)
    cover = _coverage(with_text, width)
    limit = max(1, len(with_text) // 20)
    gaps = _free_gaps(cover, int(margin) + 1, min(len(cover) - 1, int(end)), limit)
    gutters = _split_widest(gaps, margin, end)
    if len(gutters) < 2:
        return None
    crossing = sum(1 for ln in with_text if _reaches_over(ln, gutters))
    alone = _alone_counts(with_text, gutters)
    if crossing > _MAX_CROSSING * len(with_text) or min(alone) < _MIN_ALONE:
        return None
    if sum(alone) < _ALONE_SHARE * len(with_text):
        return None  # the columns share their baselines: a table's rows
    return gutters


def _reaches_over(ln: Line, gutters: list[tuple[float, float]]) -> bool:
    """A segment running past the gutter after the column it starts in: text over the
    columns (a segment ending inside a gutter is a long cell of its column)."""
    for seg in ln.segments:
        col = _column_of_start(seg, gutters)
        if col < len(gutters) and seg.x1 > gutters[col][1] + 0.5:
            return True
    return False


def _indices(ln: Line, gutters: list[tuple[float, float]]) -> list[int | None]:
    return [_column_index(s, gutters) for s in ln.segments]


def reading_order(lines: list[Line], width: float) -> list[Line]:
    """The page's lines column by column (unchanged on a one-column page).

    On a two-column page a line crossing the gutter (a title, a wide caption)
    ends the band above it; on a page of three or more columns a segment goes
    to the column it starts in.
    """
    gutter = find_gutter(lines, width)
    gutters = [gutter] if gutter is not None else find_columns(lines, width)
    if not gutters:
        return margin_order(lines)
    out: list[Line] = []
    bands: list[list[Line]] = [[] for _ in range(len(gutters) + 1)]
    edges = _column_edges(lines, gutters) if gutter is None else []
    for ln in sorted(lines, key=lambda x: x.top):
        if gutter is None:
            ln = _cut_at_edges(ln, gutters, edges)
            index: list[int | None] = [_column_of_start(s, gutters) for s in ln.segments]
        else:
            index = _indices(ln, gutters)
        if not ln.segments or None in index:
            out += [x for band in bands for x in band]  # a line over the columns ends the band
            bands = [[] for _ in bands]
            out.append(ln)
            continue
        for col, band in enumerate(bands):
            segs: list[Segment] = [s for s, i in zip(ln.segments, index, strict=True) if i == col]
            if segs:
                band.append(ln if len(segs) == len(ln.segments) else line_from_segments(ln, segs))
    return out + [x for band in bands for x in band]


def _column_edges(lines: list[Line], gutters: list[tuple[float, float]]) -> list[float | None]:
    """Per gutter: the x where the lines of the page column after it start (most of
    its segments start there), None when fewer than `_MIN_ALONE` segments share one x."""
    starts: list[Counter[int]] = [Counter() for _ in gutters]
    for ln in lines:
        for seg in ln.segments:
            col = _column_of_start(seg, gutters)
            if col > 0:
                starts[col - 1][round(seg.x0)] += 1
    edges: list[float | None] = []
    for counts in starts:
        x, n = counts.most_common(1)[0] if counts else (0, 0)
        edges.append(float(x) if n >= _MIN_ALONE else None)
    return edges


def _cut_at_edges(ln: Line, gutters: list[tuple[float, float]], edges: list[float | None]) -> Line:
    """The line with each segment that runs from its page column into the next one
    cut where the next column's text starts.

    On a reference card a long cell can run into the gutter and on into the next
    column's text with no gap a segment would end at (latexsheet-de: "...{bild}"
    and "Der ort bestimmt ..." 4 pt apart, less than a cell gap): the gutter is
    still free on the page's other lines, and the glyph on the column's left edge,
    where the column's other lines start, is where the next column begins.
    """
    out: list[Segment] = []
    todo = list(ln.segments)
    while todo:
        seg = todo.pop(0)
        col = _column_of_start(seg, gutters)
        edge = edges[col] if col < len(gutters) else None
        if edge is None or seg.x1 <= gutters[col][1] + 0.5:
            out.append(seg)
            continue
        at = next((i for i, g in enumerate(seg.glyphs) if g.x0 >= edge - _EDGE), None)
        if at is None or abs(seg.glyphs[at].x0 - edge) > _EDGE:
            out.append(seg)  # text over the columns (a title), not the next column's start
            continue
        head, *tail = split_at(seg, at, ln.size)
        out.append(head)
        todo[:0] = tail  # the rest may run over the next gutter too
    return ln if len(out) == len(ln.segments) else line_from_segments(ln, out)


# Margin notes (option or command names set in the left margin beside the text,
# hausarbeit-jura, bibleref-german; remarks in a smaller font in the outer margin,
# classicthesis' and hyperref's "New in version" notes): the text block's left edge
# is where at least this share of the lines start (its right edge: where they end),
# and nothing but the notes lies beyond it.
_BODY_SHARE = 0.3
_MARGIN_GAP = 3.0  # points between a note and the text block's edge
_NOTE_SIZE = 0.95  # a note not in typewriter is set at most this share of the text's size
_FOLIO = re.compile(r"(\d+|[ivxlc]+|[IVXLC]+)$")
_NOTE_LETTER = re.compile(r"[^\W\d_]")  # remarks have letters (hanging numbers do not)


def find_margin(lines: list[Line]) -> float | None:
    """The left edge of the text block of a page with notes in its left margin, or None.

    The edge is the leftmost x where many lines start (a key/description table starts
    its keys there too, so it is never taken for notes); the notes are segments that
    end left of it, on at least two lines; a segment from the margin into the text is
    cut at the glyph on the edge, and no line may cross it otherwise; the notes are
    set in typewriter (command and option names) or in a smaller font than the text.
    """
    with_text = [ln for ln in lines if ln.segments]
    if len(with_text) < 2 * _MIN_LINES:
        return None
    starts: Counter[int] = Counter(round(ln.segments[0].x0) for ln in with_text)
    frequent = [
        x for x in starts if sum(starts[x + d] for d in (-1, 0, 1)) >= _BODY_SHARE * len(with_text)
    ]
    if not frequent:
        return None
    edge = float(min(frequent)) - 1.0
    notes = [
        ln.segments[0]
        for ln in with_text
        if ln.segments[0].x0 < edge - _MARGIN_GAP and not _folio(ln.segments[0].text)
    ]
    crossing = sum(1 for ln in with_text if _margin_part(ln.segments[0], edge) is None)
    if len(notes) < 2 or len(notes) > 0.6 * len(with_text) or crossing > 0:
        return None
    # Command and option names in typewriter, or remarks in a smaller font: hanging
    # section numbers in a contents list or a running header's dots are not notes.
    return edge if _read_as_notes(notes, edge, _text_size(with_text)) else None


def find_right_margin(lines: list[Line]) -> float | None:
    """The right edge of the text block of a page with notes in its right margin, or None.

    The edge is where many lines have a segment end (justified text; a line with a
    note beside it ends its text there too); the notes are segments that start right
    of it, set in typewriter or in a smaller font than the text, on at most 60 % of
    the lines; no segment may run from the text over it. Notes that end together on
    many lines (grfguide's "New feature" over its date beside every key) make such
    an x of their own: an x with nothing right of it is passed for the next one left.
    """
    with_text = [ln for ln in lines if ln.segments]
    if len(with_text) < 2 * _MIN_LINES:
        return None
    ends: Counter[int] = Counter(x for ln in with_text for x in {round(s.x1) for s in ln.segments})
    frequent = [
        x for x in ends if sum(ends[x + d] for d in (-1, 0, 1)) >= _BODY_SHARE * len(with_text)
    ]
    segments = [s for ln in with_text for s in ln.segments]
    for x in sorted(frequent, reverse=True):
        edge = float(x) + 1.0
        notes = [s for s in segments if _right_note(s, edge)]
        if not notes:
            continue  # the page's own right edge, or the notes' (nothing beyond it)
        crossing = any(s.x0 <= edge + _MARGIN_GAP < s.x1 for s in segments)
        if len(notes) > 0.6 * len(with_text) or crossing:
            return None
        return edge if _read_as_notes(notes, -1.0, _text_size(with_text)) else None
    return None


def _folio(text: str) -> bool:
    """A page number (arabic or roman) alone: set in the outer margin (classicthesis' running
    header and foot) is no note and stays where it is."""
    return bool(_FOLIO.match(text.strip()))


def _right_note(seg: Segment, edge: float) -> bool:
    return seg.x0 > edge + _MARGIN_GAP and not _folio(seg.text)


def _text_size(lines: list[Line]) -> float:
    """The font size most of the page's text is set in (0.0 when the reader gave none)."""
    weight: Counter[float] = Counter()
    for ln in lines:
        for seg in ln.segments:
            weight[round(seg.size or ln.size, 1)] += len(seg.text)
    return weight.most_common(1)[0][0] if weight else 0.0


def _read_as_notes(notes: list[Segment], edge: float, body: float) -> bool:
    """Each note in typewriter (command names) or in a smaller font than the text, and
    those not in typewriter have a letter among them (a remark's date sits on a line of
    its own; hanging section numbers have no letters)."""
    remarks: list[tuple[str, float]] = []  # (text, size) of the notes not in typewriter
    for seg in notes:
        glyphs = _margin_glyphs(seg, edge)
        if (sum(g.mono for g in glyphs) >= 0.6 * len(glyphs)) if glyphs else seg.mono:
            continue
        size = median([g.size for g in glyphs if g.size > 0] or [seg.size])
        remarks.append(("".join(g.text for g in glyphs) or seg.text, size))
    if not remarks:
        return True
    smaller = all(0 < size <= _NOTE_SIZE * body for _text, size in remarks)
    return smaller and any(_NOTE_LETTER.search(text) for text, _size in remarks)


def _margin_glyphs(seg: Segment, edge: float) -> list[Glyph]:
    """The segment's glyphs in the margin; `edge` < 0: all of them (a right note)."""
    inside = [g for g in seg.glyphs if g.x1 <= edge + 0.5] if edge >= 0 else []
    return inside or list(seg.glyphs)


def _margin_part(seg: Segment, edge: float) -> int | None:
    """How many of the segment's glyphs lie in the margin (0: none, all: a note), None
    when it runs from the margin into the text without a glyph starting on the edge."""
    if seg.x0 >= edge - _MARGIN_GAP:
        return 0
    if seg.x1 <= edge:
        return len(seg.glyphs) or 1
    at = next((i for i, g in enumerate(seg.glyphs) if g.x0 >= edge - _EDGE), None)
    if at is None or at == 0 or seg.glyphs[at - 1].x1 > edge + 0.5:
        return None
    return at if seg.glyphs[at].x0 <= edge + _MARGIN_GAP * 2 else None


def margin_order(lines: list[Line]) -> list[Line]:
    """The page's lines with its margin notes (left or right) taken out of the text's
    lines and put before the block of text they stand beside (a block ends at a
    vertical gap), so a note neither splits a paragraph nor runs into its sentences.
    A note set in the gap between two blocks, level with no line of text (LaTeX's
    \\marginpar beside a display set after a table: its first notes stand in the gap
    under the table's last row), goes with the block below, as do its next lines;
    before the block above it stood between that block's head and its rows."""
    left, right = find_margin(lines), find_right_margin(lines)
    if left is None and right is None:
        return lines
    split = [(ln, *_split_notes(ln, left, right)) for ln in sorted(lines, key=lambda x: x.top)]
    blocks: list[tuple[list[Line], list[Line]]] = [([], [])]  # (notes, text lines)
    last: Line | None = None
    waiting: list[Line] = []  # notes in the gap below the last text line
    into: list[Line] = []  # where the last note line went: its next line goes there too
    for i, (_ln, notes, text) in enumerate(split):
        for note in notes:
            note.note = True
        if text is None:
            after = next((t for _l, _n, t in split[i + 1 :] if t is not None), None)
            if not (into and notes[0].top - into[-1].bottom < 0.6 * notes[0].size):
                gap = last is not None and _in_gap(notes[0], last, after)
                into = waiting if gap else blocks[-1][0]
            into.extend(notes)
            continue
        if last is not None and text.top - last.bottom >= 0.6 * text.size:
            blocks.append(([], []))
        blocks[-1][0].extend(waiting + notes)
        into = blocks[-1][0] if notes or into is waiting else into
        waiting = []
        blocks[-1][1].append(text)
        last = text
    blocks[-1][0].extend(waiting)
    return [x for notes, text in blocks for x in notes + text]


def _in_gap(note: Line, above: Line, below: Line | None) -> bool:
    """The note lies between two blocks: under the line above, over the line below,
    and that line opens a block of its own."""
    if below is None or note.top < above.bottom or note.bottom > below.top:
        return False
    return below.top - above.bottom >= 0.6 * below.size


def _split_notes(
    ln: Line, left: float | None, right: float | None
) -> tuple[list[Line], Line | None]:
    """(the line's margin notes, its text or None when it has none)."""
    notes: list[Line] = []
    text: Line | None = ln
    if left is not None:
        note, text = _split_note(ln, left)
        notes += [note] if note is not None else []
    if right is not None and text is not None and text.segments:
        outside = [s for s in text.segments if _right_note(s, right)]
        if outside:
            inside = [s for s in text.segments if not _right_note(s, right)]
            notes.append(line_from_segments(text, outside))
            text = line_from_segments(text, inside) if inside else None
    if notes and text is not None:
        text.text = _line_text_without(ln.text, [n.text for n in notes], text.text)
    return notes, text


def _line_text_without(whole: str, notes: list[str], rebuilt: str) -> str:
    """The reader's own text of the line with its notes cut off its ends, where it has
    them there: it keeps what the segments' text may lack (a ligature's letters, a word
    space); otherwise the text rebuilt from the segments."""
    rest = whole.strip()
    for note in notes:
        if rest.startswith(note):
            rest = rest[len(note) :].strip()
        elif rest.endswith(note):
            rest = rest[: -len(note)].strip()
        else:
            return rebuilt
    return rest


def _split_note(ln: Line, edge: float) -> tuple[Line | None, Line | None]:
    """(the line's margin note, its text), either None when absent."""
    if not ln.segments:
        return None, ln
    first = ln.segments[0]
    n = _margin_part(first, edge)
    if not n or _folio(first.text):
        return None, ln
    if n >= len(first.glyphs):
        rest = ln.segments[1:]
        note = line_from_segments(ln, [first])
        return note, (line_from_segments(ln, rest) if rest else None)
    head, *tail = split_at(first, n, ln.size)
    return line_from_segments(ln, [head]), line_from_segments(ln, tail + ln.segments[1:])
