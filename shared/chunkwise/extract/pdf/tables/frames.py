"""Rules, frames and shading: which strokes and filled boxes bound a ruled table.

pdfplumber's table finder takes a table's cells from the lines drawn around and
inside it. TeX and DocBook tables often have no outer border (rules between
the columns only, or none at all): each stack of horizontal rules gets vertical
lines at both ends (`outer_borders`, fed to the finder by `table_settings`),
unless a drawn frame is there already or the sides are those of shaded rows
(colortbl) rather than of a frame. A caption line between two stacks parts
two tables. `horizontal_rules` are the page's rules without text underlines:
the tables between rules and the aligned tables use them too.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from chunkwise.extract.tables import is_caption

from ..decor import underline_keys
from ..lines import WORD_GAP_EM

Rule = tuple[float, float, float]  # a horizontal rule: y, x0, x1

_MIN_RULE = 20.0  # points: shorter horizontal strokes are underlines or glyph parts
_RULE_WIDTH = 2.0  # points: a filled box wider than this is shading, not a rule
_ROW_REACH = 60.0  # points: the farthest two rules of one table can be apart
_MIN_CAPTION_GAP = 20.0  # points between two rules with a caption line between them


def _rule_groups(page: Any) -> list[tuple[float, float, float, float]]:
    """(left, top, right, bottom) of each stack of horizontal rules on a page.

    A table's first rule spans it; the following rules within its width and
    less than _ROW_REACH apart belong to the same table (row separators, or
    only the mid and bottom rules of booktabs). A wider rule starts anew: a
    code box's frame next to a table is not part of it.
    """
    rules = sorted((y, x0, x1) for y, x0, x1 in horizontal_rules(page))
    groups: list[list[float]] = []
    closed: list[list[float]] = []  # tables that ended at their caption
    for top, x0, x1 in rules:
        # The narrowest open table that holds the rule, even if another rule
        # (a page footer's, a box's) came between.
        open_groups = [
            g
            for g in groups
            if top - g[3] <= _ROW_REACH and _same_table(g, x0, x1) and not _in(g, closed)
        ]
        # The next segment of a row rule broken at the column rules (it starts where
        # the last rule of a table ended, on its line) stays in that table, not in a
        # slightly narrower box above it. Groups: x0, top, x1, bottom, last rule's x1.
        same_row = [g for g in open_groups if abs(g[3] - top) <= 0.5 and abs(g[4] - x0) <= 2]
        owner = min(same_row or open_groups, key=lambda g: g[2] - g[0], default=None)
        if owner is not None and _caption_between(page, owner, top):
            closed.append(owner)  # the table above ends at its caption; this rule starts the next
            owner = None
        if owner is not None:
            owner[3], owner[4] = top, x1
        else:
            groups.append([x0, top, x1, top, x1])
    return [(g[0], g[1], g[2], g[3]) for g in groups if g[3] > g[1]]


def _in(group: list[float], groups: list[list[float]]) -> bool:
    return any(g is group for g in groups)


def _caption_between(page: Any, group: list[float], top: float) -> bool:
    """A caption line ("Tabelle 1.18: ...") between the group's last rule and `top`:
    two tables, one below the other's caption (debian-reference p56), not one."""
    if top - group[3] < _MIN_CAPTION_GAP:
        return False  # rows between rules: no room for a caption line and its space
    px0, ptop, px1, pbottom = (float(v) for v in page.bbox)
    box = (max(group[0], px0), max(group[3] + 0.5, ptop), min(group[2], px1), min(top, pbottom))
    if box[2] <= box[0] or box[3] <= box[1]:
        return False
    text = page.within_bbox(box).extract_text(x_tolerance_ratio=WORD_GAP_EM)
    return any(is_caption(line) for line in str(text).split("\n"))


def _same_table(group: list[float], x0: float, x1: float) -> bool:
    """A rule within the group's width: a segment of it, or one as wide (not a nested frame)."""
    left, right = group[0], group[2]
    if x0 < left - 2 or x1 > right + 2:
        return False
    spans = x1 - x0 >= 0.9 * (right - left)
    return not spans or (abs(x0 - left) <= 3 and abs(x1 - right) <= 3)


def outer_borders(page: Any) -> list[dict[str, Any]]:
    """Vertical lines at both ends of every stack of horizontal rules.

    TeX and DocBook tables are often drawn without outer borders (rules
    between the columns only, or none at all): pdfplumber's line finder then
    drops the first and last column. Closing each stack of rules at its ends
    restores them; a framed table just gets its borders twice.
    """
    lines: list[dict[str, Any]] = []
    shading = _shading_sides(page)
    verticals = [
        e for e in page.edges if e.get("orientation") == "v" and _side_key(e) not in shading
    ]
    for left, top, right, bottom in _rule_groups(page):
        for x in (left, right):
            if _framed(verticals, x, top, bottom):
                continue
            lines.append(
                {
                    "object_type": "line",
                    "x0": x,
                    "x1": x,
                    "top": top,
                    "bottom": bottom,
                    "width": 0.0,
                    "height": bottom - top,
                }
            )
    return lines


def _side_key(obj: dict[str, Any], x: str = "x0") -> tuple[float, float, float]:
    return (round(float(obj[x]), 1), round(float(obj["top"]), 1), round(float(obj["bottom"]), 1))


def _shading_sides(page: Any) -> set[tuple[float, float, float]]:
    """(x, top, bottom) of the sides of filled, unstroked boxes wider than a rule.

    Such a box is a shaded row or cell (colortbl's \\rowcolors), not a frame:
    its sides must not count as a drawn border (`_framed`), or a stack of
    rules with shaded rows at its ends gets no outer borders and falls apart
    into one table per shaded row. A rule drawn as a thin filled box stays one."""
    sides: set[tuple[float, float, float]] = set()
    for rect in page.rects:
        if rect.get("fill") and not rect.get("stroke") and float(rect["width"]) > _RULE_WIDTH:
            sides.add(_side_key(rect, "x0"))
            sides.add(_side_key(rect, "x1"))
    return sides


def table_settings(borders: list[dict[str, Any]]) -> dict[str, Any]:
    """pdfplumber settings with the added outer borders.

    pdfplumber snaps vertical lines each less than 3 pt from the next to their
    mean, whatever their heights and wherever on the page: a note box's border
    2.7 pt right of the table below it and a listing's frame 2.6 pt further
    (dblatex) moved the table's right border off its rules' ends, and its last
    column was lost (debian-reference-en p136). Where borders of different
    stacks stand that close, lines are snapped only within 1 pt."""
    settings: dict[str, Any] = {"explicit_vertical_lines": borders}
    if any(_near_apart(a, b) for a, b in combinations(borders, 2)):
        settings["snap_x_tolerance"] = 1.0
    return settings


def _near_apart(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two vertical lines 1 to 3 pt apart that do not overlap in height."""
    close = 1.0 < abs(float(a["x0"]) - float(b["x0"])) <= 3.0
    return close and (a["bottom"] < b["top"] or b["bottom"] < a["top"])


def _framed(verticals: list[dict[str, Any]], x: float, top: float, bottom: float) -> bool:
    """Drawn vertical borders at x meet the stack's first and its last rule: the frame is
    there.

    Adding one anyway would join framed tables stacked closer than _ROW_REACH
    (office documents: a heading between two framed tables, whose borders
    leave only the gap between them open) into one. A stack whose first or last
    rows have no border (colortbl's multi-column rows) still gets its border."""
    at_x = [
        (float(e["top"]), float(e["bottom"])) for e in verticals if abs(float(e["x0"]) - x) <= 2
    ]
    # A border meets the rule from below or above (the rule is a framed table's bottom).
    opens = any(a - 2 <= top <= b + 2 for a, b in at_x)
    closes = any(a - 2 <= bottom <= b + 2 for a, b in at_x)
    return opens and closes


def horizontal_rules(page: Any) -> list[tuple[float, float, float]]:
    """(y, x0, x1) of the page's horizontal rules (booktabs' top, mid and bottom rules);
    underlines (links in office documents) are text decoration, not rules."""
    rules = [
        e
        for e in page.edges
        if e.get("orientation") == "h" and float(e["x1"]) - float(e["x0"]) >= _MIN_RULE
    ]
    decoration = underline_keys(page.chars, rules) if rules else set()
    return [
        (float(e["top"]), float(e["x0"]), float(e["x1"])) for e in rules if id(e) not in decoration
    ]
