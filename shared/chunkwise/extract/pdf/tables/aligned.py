"""Tables set by alignment alone: no rules (l2kurz) or horizontal rules only (booktabs).

pdfplumber's line finder needs vertical rules or a frame; TeX's tabular,
booktabs and longtable set most tables without either. Such a table is a run
of lines that share vertical *gutters*: x ranges that no line's segments (see
`lines`) cover, while at least three lines have text on both sides of them.
The gutters split the run into columns; a line whose first column is empty,
or that follows a cell ending in a hyphen or comma, continues the row above
(cells of several lines): `gutters`, which `banded` shares. The header is what
lies above the first full rule inside the table (booktabs' midrule), or the
first row when it is set apart (bold, or followed by a wider gap); otherwise
the table has no header row and its caption names it.

Not tables: code listings (nearly every segment in a typewriter font), prose (a
line crossing a gutter ends the run; one table row alone is not a table),
tables of contents (dot leaders, or a second column of page numbers only) and lists (a
first column of bullets or item numbers).
"""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import pairwise
from statistics import median

from chunkwise.extract.tables import (
    caption_breaks_off,
    combine_header_rows,
    is_caption,
    is_continuation_note,
)

from ..items import TableFragment
from ..lines import WORD_GAP_EM, Line, Segment, is_bold_font, split_at
from .gutters import (
    START_SLACK,
    AlignedTable,
    column_of,
    crosses_gutter,
    gutter_columns,
    has_ruled_text_head,
    is_contents,
    is_list,
    is_listing,
    line_cells,
    rule_across,
    table_rows,
)

_MIN_ROWS = 3  # lines with text in two or more columns
_MAX_LINE_GAP = 1.6  # a wider vertical gap (in line heights) ends a table
_HEADING_SIZE = 1.15  # a bold line this much larger than a table's first line is a title
_MIN_SHARE = 0.4  # of a run's lines have two or more segments
_MAX_HEAD_LINES = 3  # header lines between a top rule and the cmidrules that close them
_PROSE_WIDTH = 0.6  # of a table's width: a first column this wide of ...
_PROSE_CHARS = 40  # ... pieces this long on average is running text
# A group title inside a table (longtable's summary: "Parameters", "Commands to
# end table rows", each centred over a rule that opens its rows) sits this close
# to the table's centre, as a share of its width; a table needs two to be grouped.
_GROUP_CENTRE = 0.1
_MIN_GROUPS = 2
# A column start: at least this many segments of a run start there, within
# START_SLACK points. Where a column's cells come closer to the next column than
# a cell gap (TeX tables with a small \tabcolsep: "WordInitial init", "TS1 n, it"),
# a line's segment runs over the gutter; it is cut at the word starting there.
_START_SEGMENTS = 3
_START_SHARE = 0.3  # ... and at least this share of its rows of several segments


def _header_lines(lines: list[Line], rules: list[tuple[float, float, float]]) -> int:
    """How many of the table's lines are its header."""
    left = min(ln.x0 for ln in lines)
    right = max(ln.x1 for ln in lines)
    heights = _rule_heights(rules, right - left)
    for at, (y, full, pieced) in enumerate(heights):
        above = sum(1 for ln in lines if ln.bottom <= y + 1)
        if full and pieced and 0 < above < len(lines) and _heads_over(lines[:above], heights):
            return above
        if full and not pieced and 0 < above < len(lines):
            # booktabs' cmidrules under the column heads, a line or two below the
            # rule under a title over the table, still close the header (unless a
            # caption lies between: the rules are the next tables' side by side).
            for y2, full2, pieced2 in heights[at + 1 :]:
                more = sum(1 for ln in lines if ln.bottom <= y2 + 1)
                heads = lines[above:more]
                closes = full2 and pieced2 and more - above <= 2 and more < len(lines)
                if closes and not any(is_caption(ln.text) for ln in heads):
                    return more
            return above
    if len(lines) < 3:
        return 0
    if lines[0].bold and not any(ln.bold for ln in lines[1:3]):
        return 1
    gaps = [b.top - a.bottom for a, b in pairwise(lines[1:])]
    pitch = median(gaps) if gaps else 0.0
    return 1 if lines[1].top - lines[0].bottom > pitch + 0.5 * lines[0].size else 0


def _heads_over(heads: list[Line], heights: list[tuple[float, bool, bool]]) -> bool:
    """Column heads between booktabs' top rule and cmidrules (one per column, trimmed
    at the gutters, no midrule: l2tabu's tables): at most _MAX_HEAD_LINES lines, no
    caption, directly under a full rule of one piece. Rules of two tables side by side
    are pieced too, but their tables have no top rule right above the line before."""
    if len(heads) > _MAX_HEAD_LINES or any(is_caption(ln.text) for ln in heads):
        return False
    first = heads[0]
    return any(
        full and not pieced and 0 <= first.top - y <= first.size for y, full, pieced in heights
    )


def _head_cells(
    lines: list[Line],
    k: int,
    columns: list[tuple[float, float]],
    rules: list[tuple[float, float, float]],
) -> list[str]:
    """Header cells of line k; a head over a cmidrule that spans several columns, not
    all ("Ersatz in LaTeX" over "lokal" and "global/Schalter"), names each of them."""
    cells = line_cells(lines[k], columns, spread=True)
    if k + 1 >= len(lines):
        return cells
    low, high = lines[k].bottom - 1, lines[k + 1].top + 1
    for _y, x0, x1 in (r for r in rules if low <= r[0] <= high):
        under = [i for i, (a, b) in enumerate(columns) if min(b, x1) - max(a, x0) > 0.5 * (b - a)]
        named = [i for i in under if cells[i]]
        if 2 <= len(under) < len(columns) and len(named) == 1:  # a title over all: once
            for i in under:
                cells[i] = cells[named[0]]
    return cells


def _rule_heights(
    rules: list[tuple[float, float, float]], width: float
) -> list[tuple[float, bool, bool]]:
    """(y, full, pieced) per height with rules: pieces at one height (cmidrules under
    column groups, trimmed at the gutters) together make one rule; it is full when
    it covers 80 % of the table's width, pieced when it has two or more pieces."""
    out: list[tuple[float, bool, bool]] = []
    ordered = sorted(rules)
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][0] - ordered[i][0] <= 1.0:
            j += 1
        pieces: list[list[float]] = []
        for _y, x0, x1 in sorted(ordered[i:j], key=lambda r: r[1]):
            if pieces and x0 <= pieces[-1][1] + 1.0:
                pieces[-1][1] = max(pieces[-1][1], x1)
            else:
                pieces.append([x0, x1])
        if len(pieces) == 1:  # one rule (drawn in touching pieces or twice)
            full = any(x1 - x0 >= 0.8 * width for _y, x0, x1 in ordered[i:j])
        else:
            covered = sum(b - a for a, b in pieces)
            full = pieces[-1][1] - pieces[0][0] >= 0.8 * width and covered >= 0.6 * width
        out.append((ordered[i][0], full, len(pieces) >= 2))
        i = j
    return out


def _head_rule_edges(run: list[Line], rules: list[tuple[float, float, float]]) -> list[float]:
    """Where each column starts, when the run's heads stand over a rule of one piece per
    head (a rule under each column's head, none across the gutters): the pieces' left
    ends. A gutter inside a column (a cell's justified line, "american,    USenglish,")
    then splits nothing, and a cell running up to the next column's text without a
    gap ("Spanien, Frankreich, An-" "catalan") is cut there. Empty: no such rules."""
    if not has_ruled_text_head(run, rules):
        return []
    head, below = run[0], run[1]
    under = sorted((x0, x1) for y, x0, x1 in rules if head.bottom - 1 <= y <= below.top + 1)
    pieces: list[list[float]] = []
    for x0, x1 in under:
        if pieces and x0 <= pieces[-1][1] + 1.0:
            pieces[-1][1] = max(pieces[-1][1], x1)
        else:
            pieces.append([x0, x1])
    if len(pieces) < 2 or len(pieces) != len(head.segments):
        return []
    for seg, (x0, x1) in zip(head.segments, pieces, strict=True):
        if not x0 - 1.0 <= seg.x0 < x1:
            return []
    return [x0 for x0, _x1 in pieces]


def _cut_at_edges(run: list[Line], edges: list[float]) -> list[Line]:
    """The run's lines (copied) with each segment cut at a glyph starting on a column's
    edge (within START_SLACK), gap or none."""
    out: list[Line] = []
    for ln in run:
        segments = [part for seg in ln.segments for part in _cut_on_edges(seg, edges, ln.size)]
        out.append(replace(ln, segments=segments) if len(segments) != len(ln.segments) else ln)
    return out


def _cut_on_edges(seg: Segment, edges: list[float], size: float) -> list[Segment]:
    for k in range(1, len(seg.glyphs)):
        glyph = seg.glyphs[k]
        if glyph.text.strip() and any(abs(glyph.x0 - x) <= START_SLACK for x in edges):
            head, *tail = split_at(seg, k, size)
            head = replace(head, x1=min(head.x1, glyph.x0))  # a hyphen's box overlaps it
            return [head, *(p for t in tail for p in _cut_on_edges(t, edges, size))]
    return [seg]


def _columns_at(run: list[Line], edges: list[float]) -> list[tuple[float, float]]:
    """Columns from their left edges: each reaches to the next one's edge, the last to
    the run's right end; the first starts at the run's left end. A glyph touching an
    edge (a hyphen protruding into the gutter) does not reach over it."""
    left = min([ln.x0 for ln in run] + edges[:1])
    right = max(s.x1 for ln in run for s in ln.segments)
    starts = [left, *(x + START_SLACK for x in edges[1:])]
    ends = [x - START_SLACK for x in edges[1:]] + [max(right, edges[-1] + 1.0)]
    return list(zip(starts, ends, strict=True))


def _margin_notes(lines: list[Line], columns: list[tuple[float, float]]) -> bool:
    """A paragraph with notes in the margin beside it (fntguide's "New description
    1998/12/01"), not a table: the first column is running prose (over 60 % of the
    width, its pieces 40 characters long on average) and the columns beside it hold
    text on at most half of the lines."""
    first = [s for ln in lines for s in ln.segments if column_of(s, columns)[0] == 0]
    if not first or len(columns) < 2:
        return False
    width = columns[-1][1] - columns[0][0]
    wide = columns[0][1] - columns[0][0] >= _PROSE_WIDTH * width
    prose = sum(len(s.text) for s in first) / len(first) >= _PROSE_CHARS
    beside = sum(1 for ln in lines if any(column_of(s, columns)[0] > 0 for s in ln.segments))
    return wide and prose and 2 * beside <= len(lines)


def _run_end(lines: list[Line], start: int) -> int:
    """End (exclusive) of the run of table-like lines starting at `start`."""
    end = start + 1
    while end < len(lines):
        prev, ln = lines[end - 1], lines[end]
        if ln.top - prev.bottom > _MAX_LINE_GAP * max(ln.size, 1.0) + 2:
            break
        if ln.bottom < prev.top:
            break  # back up the page: the next page column starts
        if _is_title(lines, end, start):
            break  # the title of what follows (reference cards)
        end += 1
    return end


def _table_in(
    run: list[Line], page: int, rules: list[tuple[float, float, float]], groups_only: bool = False
) -> AlignedTable | None:
    """The table the run starts with, if any (`groups_only`: only a table of row groups)."""
    prepared = _prepared(run, rules)
    if prepared is None:
        return None
    caption, run, dropped, columns = prepared
    # Cut the run where a line crosses a gutter (prose after the table); a
    # header or spanning line may do so in the first two lines.
    kept = [run[0]]
    for i, ln in enumerate(run[1:], start=1):
        crosses = crosses_gutter(ln, columns) and not _is_group_title(run, i, columns, rules)
        if (crosses and i > 1) or is_continuation_note(ln.text):
            break
        if i > 1 and _below_table(run[i - 1], ln, columns, rules):
            break
        kept.append(ln)
    while kept and len(kept[-1].segments) < 2 and crosses_gutter(kept[-1], columns):
        kept.pop()
    if sum(1 for ln in kept if len(ln.segments) >= 2) < _MIN_ROWS or is_listing(kept, rules):
        return None
    if _margin_notes(kept, columns):
        return None
    titles = [k for k in range(len(kept)) if _is_group_title(kept, k, columns, rules)]
    if len(titles) >= _MIN_GROUPS:
        return _grouped_table(kept, titles, columns, page)
    if groups_only:
        return None
    if caption is not None:  # the caption's own rule in the margin is not the table's
        rules = [r for r in rules if r[2] > columns[0][0] + 1]
    n_head = _header_lines(kept, rules)
    head = [_head_cells(kept, k, columns, rules) for k in range(n_head)]
    body = table_rows(kept[n_head:], columns, rules)
    if not body or is_contents(body) or is_list(body):
        return None
    header = combine_header_rows(head) if head else [""] * len(columns)
    frag = TableFragment(rows=[header, *body], page=page, header_rows=1 if head else 0)
    return AlignedTable(kept[0].top, kept[-1].bottom, frag, kept, caption, dropped)


def _margin_caption(run: list[Line]) -> tuple[Line | None, list[Line], int]:
    """A caption set in the margin beside the head of the table (microtype's "Table 3:"
    over "Type 1 fonts with / tailored protrusion settings", left of the table's
    first column): taken out of the run as a line of its own, with the run's lines
    left of the table removed and how many lines that removed entirely."""
    first = run[0]
    if len(first.segments) < 2 or not is_caption(first.segments[0].text):
        return None, run, 0
    edge = first.segments[1].x0
    heads = run[:_MAX_HEAD_LINES]
    if any(s.x1 >= edge - 1 and s.x0 < edge - 1 for ln in run for s in ln.segments):
        return None, run, 0  # text crosses the caption's edge: no margin
    if any(s.x1 < edge - 1 for ln in run[len(heads) :] for s in ln.segments):
        return None, run, 0  # text left of the table further down
    parts = [s.text for ln in heads for s in ln.segments if s.x1 < edge - 1]
    kept: list[Line] = []
    for ln in run:
        right = [s for s in ln.segments if s.x0 >= edge - 1]
        if right and len(right) < len(ln.segments):
            ln = replace(ln, text=" ".join(s.text for s in right), x0=right[0].x0, segments=right)
        if right:
            kept.append(ln)
    caption = replace(
        first, text=" ".join(parts), segments=[first.segments[0]], seq=first.seq - 0.25
    )
    return caption, kept, len(run) - len(kept)


def _notes_start(run: list[Line], rules: list[tuple[float, float, float]]) -> int:
    """Index of the first table note of the run (or its length): a line under a rule
    across the table, set smaller than the lines above, starting with a mark of one or
    two characters ("a Aliases: ...", "† These options ..."). Notes cross the
    gutters of the rows above; counted with them, the columns are lost."""
    for i in range(1, len(run)):
        ln, prev = run[i], run[i - 1]
        mark = ln.text.split(maxsplit=1)[0] if ln.text.strip() else ""
        smaller = ln.size < 0.95 * median(a.size for a in run[:i])
        if smaller and 0 < len(mark) <= 2 and rule_across(prev, ln, prev.x0, prev.x1, rules):
            return i
    return len(run)


def _column_starts(run: list[Line]) -> list[float]:
    """x where at least _START_SEGMENTS segments of the run's rows of several cells
    start, and a share of those rows (not at the rows' left edge)."""
    multi = [ln for ln in run if len(ln.segments) >= 2]
    left = min(ln.x0 for ln in multi) if multi else 0.0
    starts = sorted(s.x0 for ln in multi for s in ln.segments if s.x0 > left + START_SLACK)
    need = max(_START_SEGMENTS, math.ceil(_START_SHARE * len(multi)))
    out: list[float] = []
    for i in range(len(starts) - need + 1):
        window = starts[i : i + need]
        if window[-1] - window[0] <= START_SLACK and not (out and window[0] - out[-1] <= 1.0):
            out.append(window[0])
    return out


def _cut_at_column_starts(run: list[Line], starts: list[float]) -> list[Line]:
    """The run's lines with each segment cut where one of its words starts at a column
    start after a word gap, between the first and the last line of several segments
    (a line of prose after the table keeps its words together, and ends the table).
    Lines are copied, so a run that is no table leaves the page's lines as they were."""
    rows = [k for k, ln in enumerate(run) if len(ln.segments) >= 2]
    if not starts or not rows:
        return run
    out: list[Line] = []
    for k, ln in enumerate(run):
        if not rows[0] <= k <= rows[-1]:
            out.append(ln)
            continue
        segments: list[Segment] = []
        for i, seg in enumerate(ln.segments):
            # Only a cell that starts a row or a column is cut: a wider entry set
            # right or centred ("48 to 57" under "33") is one cell.
            anchored = i == 0 or any(abs(seg.x0 - x) <= START_SLACK for x in starts)
            segments.extend(_cut_segment(seg, starts, ln.size) if anchored else [seg])
        out.append(replace(ln, segments=segments) if len(segments) != len(ln.segments) else ln)
    return out


def _cut_segment(seg: Segment, starts: list[float], size: float) -> list[Segment]:
    glyphs = seg.glyphs
    for k in range(1, len(glyphs)):
        gap = glyphs[k].x0 - glyphs[k - 1].x1
        at_start = any(abs(glyphs[k].x0 - x) <= START_SLACK for x in starts)
        if at_start and gap > WORD_GAP_EM * size and glyphs[k].text.strip():
            head, *tail = split_at(seg, k, size)
            return [head, *(p for t in tail for p in _cut_segment(t, starts, size))]
    return [seg]


def _is_group_title(
    lines: list[Line],
    k: int,
    columns: list[tuple[float, float]],
    rules: list[tuple[float, float, float]],
) -> bool:
    """Line k titles the rows below it: one piece, centred over the table, not at its
    left edge (a row label), with a rule across the table between it and its rows."""
    ln = lines[k]
    if len(ln.segments) != 1 or k + 1 >= len(lines):
        return False
    left, right = columns[0][0], columns[-1][1]
    seg = ln.segments[0]
    centred = abs((seg.x0 + seg.x1) / 2 - (left + right) / 2) <= _GROUP_CENTRE * (right - left)
    if not centred or seg.x0 <= left + ln.size:
        return False
    return rule_across(ln, lines[k + 1], left, right, rules)


def _grouped_table(
    lines: list[Line], titles: list[int], columns: list[tuple[float, float]], page: int
) -> AlignedTable | None:
    """A table of row groups: each group's title goes into a first column of every row
    of its group, so that a row read alone (a retrieved fragment, the row index) still
    says which group it is in. Lines above the first title are the column heads."""
    head = [line_cells(ln, columns, spread=True) for ln in lines[: titles[0]]]
    body: list[list[str]] = []
    for at, end in pairwise([*titles, len(lines)]):
        rows = table_rows(lines[at + 1 : end], columns)
        if not rows or is_contents(rows) or is_list(rows):
            return None
        body.extend([lines[at].text, *row] for row in rows)
    header = ["", *combine_header_rows(head)] if head else [""] * (len(columns) + 1)
    frag = TableFragment(rows=[header, *body], page=page, header_rows=1 if head else 0)
    return AlignedTable(lines[0].top, lines[-1].bottom, frag, lines)


def _prepared(
    run: list[Line], rules: list[tuple[float, float, float]]
) -> tuple[Line | None, list[Line], int, list[tuple[float, float]]] | None:
    """The run without its notes and margin caption, its segments cut at the column
    starts, and its columns (None: the run is no table): the caption, the lines, how
    many lines the caption took, the columns."""
    run = run[: _notes_start(run, rules)]
    caption, run, dropped = _margin_caption(run)
    rows = sum(1 for ln in run if len(ln.segments) >= 2)
    # Column heads over a rule open a table of typewriter cells that may run over
    # many lines (a column of field names beside one option): few lines then have
    # two segments. Rows in the text font keep the share (a section title and its
    # prose below two rows of a coloured table are no table).
    typewriter = has_ruled_text_head(run, rules) and is_listing(run[1:])
    sparse = rows < _MIN_SHARE * len(run) and not typewriter
    if rows < _MIN_ROWS or sparse or is_listing(run, rules):
        return None
    starts = _column_starts(run)
    cut = _cut_at_column_starts(run, starts)
    # The columns come from the rows that had several cells before the cut: a line of
    # prose cut at a chance column start would add its words to the gutters.
    multi = [c for c, ln in zip(cut, run, strict=True) if len(ln.segments) >= 2]
    columns = gutter_columns(multi, starts)
    edges = _head_rule_edges(run, rules)
    # The rules under the heads give the columns, where the rows' gutters find at most
    # one more (a justified gap inside a cell); group heads over cmidrules that span
    # several columns each ("TeX engine" over three) leave many more.
    if edges and len(columns) <= len(edges) + 1:
        cut = _cut_at_edges(run, edges)
        return caption, cut, dropped, _columns_at(cut, edges)
    return (caption, cut, dropped, columns) if len(columns) >= 2 else None


def _below_table(
    prev: Line,
    ln: Line,
    columns: list[tuple[float, float]],
    rules: list[tuple[float, float, float]],
) -> bool:
    """`ln` lies below the table's bottom rule and starts left of its first column by
    more than an em: a table footnote ("a Nur in den article-Klassen") or the next
    paragraph, which no gutter crossing ends when it is short."""
    left, right = columns[0][0], columns[-1][1]
    if ln.x0 >= left - ln.size:
        return False
    spanning = (y for y, x0, x1 in rules if min(x1, right) - max(x0, left) >= 0.8 * (right - left))
    return any(prev.bottom - 1 <= y <= ln.top + 1 for y in spanning)


def find_aligned_tables(
    lines: list[Line], page: int, rules: list[tuple[float, float, float]] | None = None
) -> tuple[list[Line], list[AlignedTable]]:
    """Split a page's lines into the lines that stay text and the aligned tables."""
    rules = rules or []
    text: list[Line] = []
    tables: list[AlignedTable] = []
    i = 0
    while i < len(lines):
        if len(lines[i].segments) < 2:
            text.append(lines[i])
            i += 1
            continue
        # A header line of one (spanning) segment may sit directly above.
        above = text and text[-1] is lines[i - 1]
        end = _run_end(lines, i)
        found = None
        if above and _group_title_above(lines[i - 1], lines[i], rules):
            found = _table_in(lines[i - 1 : end], page, rules, groups_only=True)
        start = i - 1 if above and (found or _header_candidate(lines, i, rules)) else i
        found = found or _table_in(lines[start:end], page, rules)
        if found is None and start != i:
            found = _table_in(lines[i:end], page, rules)
            start = i
        if found is None:
            text.append(lines[i])
            i += 1
            continue
        if start != i:
            text.pop()
        if found.caption is not None:
            text.append(found.caption)
        tables.append(found)
        i = start + len(found.lines) + found.dropped
    return text, tables


def _is_title(lines: list[Line], at: int, start: int) -> bool:
    """A bold line of one piece in a text font, larger than the run's first line: a
    section title (mostly bold: "Wichtige documentclass Optionen" names a command in
    typewriter). A table of font sizes has rows in ever larger fonts, with its
    commands in a bold typewriter font."""
    ln = lines[at]
    if len(ln.segments) != 1 or ln.segments[0].mono:
        return False
    bold = ln.bold or is_bold_font(ln.segments[0].font) or is_bold_font(ln.font)
    return bold and ln.size > _HEADING_SIZE * lines[start].size


def _group_title_above(prev: Line, ln: Line, rules: list[tuple[float, float, float]]) -> bool:
    """`prev` may title the first group of a table of row groups starting at `ln`: one
    piece centred over `ln`, a rule as wide as `ln` between them."""
    if len(prev.segments) != 1 or is_caption(prev.text):
        return False
    centred = abs((prev.x0 + prev.x1) / 2 - (ln.x0 + ln.x1) / 2) <= _GROUP_CENTRE * (ln.x1 - ln.x0)
    return centred and rule_across(prev, ln, ln.x0, ln.x1, rules)


def _header_candidate(lines: list[Line], i: int, rules: list[tuple[float, float, float]]) -> bool:
    prev, ln = lines[i - 1], lines[i]
    if is_caption(prev.text) or prev.bold != ln.bold or abs(prev.size - ln.size) >= 0.5:
        return False  # a caption or a section heading above the table
    if _between_rules(prev, ln, rules):
        return True  # a title over the table, between booktabs' top rule and a midrule
    if i >= 2 and _ends_paragraph(lines[i - 2], prev):
        return False  # "... lists all token classes and their / corresponding numbers."
    if i >= 2 and caption_breaks_off(lines[i - 2].text):
        return False  # the caption's second line
    short = prev.x1 - prev.x0 < 0.5 * (ln.x1 - ln.x0)
    return short and ln.top - prev.bottom <= _MAX_LINE_GAP * max(ln.size, 1.0)


def _ends_paragraph(above: Line, prev: Line) -> bool:
    """`prev` is the last line of the paragraph above: it starts where that paragraph's
    line starts and follows it at the paragraph's line pitch."""
    tight = prev.top - above.bottom < 0.6 * max(prev.size, 1.0)
    return tight and len(above.segments) == 1 and abs(above.x0 - prev.x0) <= 1.0


def _between_rules(prev: Line, ln: Line, rules: list[tuple[float, float, float]]) -> bool:
    """A rule as wide as `ln` lies between `prev` and `ln`, and one directly above `prev`."""
    wide = [y for y, x0, x1 in rules if x0 <= ln.x0 + 2 and x1 >= ln.x1 - 2]
    below = any(prev.bottom - 1 <= y <= ln.top + 1 for y in wide)
    over = any(0 <= prev.top - y <= prev.size for y in wide)
    return below and over
