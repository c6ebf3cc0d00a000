"""List items and numbered headings: the numbers Word keeps out of the text.

word/numbering.xml gives each list (w:num) and level its format and start;
the numbers are counted here in document order (`Numbering`). A paragraph is a
list item by its numbering (w:numPr, its own or its style's) or by a List style
name (`list_item`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .ooxml import int_attr, int_property, w
from .styles import style_names

_MAX_LIST_DEPTH = 6  # two spaces per level: the chunker reads up to 12 as one list


@dataclass(frozen=True)
class _Level:
    fmt: str  # w:numFmt: bullet, decimal, lowerLetter, upperRoman, none, ...
    start: int
    text: str  # w:lvlText: "%1.%2." for a second-level number


_ROMAN = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip


def _format_number(value: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter") and value > 0:
        letters = chr(ord("a") + (value - 1) % 26) * ((value - 1) // 26 + 1)
        return letters.upper() if fmt == "upperLetter" else letters
    if fmt in ("lowerRoman", "upperRoman") and 0 < value < 4000:
        out = ""
        for amount, digits in _ROMAN:
            while value >= amount:
                out, value = out + digits, value - amount
        return out.upper() if fmt == "upperRoman" else out
    if fmt == "decimalZero":
        return f"{value:02d}"
    return str(value)


class Numbering:
    """Numbers of list items and headings from word/numbering.xml.

    Word keeps the numbers out of the text; they are counted here per list
    (w:num) and level, a deeper level restarting under each new parent item.
    """

    def __init__(self, document: Any) -> None:
        self._levels: dict[tuple[str, int], _Level] = {}
        self._counters: dict[tuple[str, int], int] = {}
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            return  # no numbering part: every list item is a bullet
        abstract: dict[str, dict[int, _Level]] = {}
        for an in root.iterchildren(w("abstractNum")):
            levels: dict[int, _Level] = {}
            for lvl in an.iterchildren(w("lvl")):
                fmt = lvl.find(w("numFmt"))
                text = lvl.find(w("lvlText"))
                levels[int_attr(lvl, "ilvl")] = _Level(
                    fmt.get(w("val"), "bullet") if fmt is not None else "bullet",
                    int_property(lvl, "start", 1),
                    text.get(w("val"), "") if text is not None else "",
                )
            abstract[an.get(w("abstractNumId"), "")] = levels
        for num in root.iterchildren(w("num")):
            ref = num.find(w("abstractNumId"))
            levels = abstract.get(ref.get(w("val"), "") if ref is not None else "", {})
            for ilvl, level in levels.items():
                self._levels[(num.get(w("numId"), ""), ilvl)] = level

    def _level(self, num_id: str, ilvl: int) -> _Level:
        return self._levels.get((num_id, ilvl), _Level("bullet", 1, ""))

    def _advance(self, num_id: str, ilvl: int) -> None:
        for key in [k for k in self._counters if k[0] == num_id and k[1] > ilvl]:
            del self._counters[key]  # a deeper level restarts under a new parent item
        start = self._level(num_id, ilvl).start
        self._counters[(num_id, ilvl)] = self._counters.get((num_id, ilvl), start - 1) + 1

    def _value(self, num_id: str, ilvl: int) -> int:
        return self._counters.get((num_id, ilvl), self._level(num_id, ilvl).start)

    def marker(self, num_id: str, ilvl: int) -> str:
        """A list item's marker: "-" for bullets, "N." for any numbered level."""
        if self._level(num_id, ilvl).fmt in ("bullet", "none"):
            return "-"
        self._advance(num_id, ilvl)
        return f"{self._value(num_id, ilvl)}."

    def label(self, num_id: str, ilvl: int) -> str:
        """A numbered heading's number as Word shows it ("2.6."), or ""."""
        level = self._level(num_id, ilvl)
        if level.fmt in ("bullet", "none") or not level.text:
            return ""
        self._advance(num_id, ilvl)

        def number(m: re.Match[str]) -> str:
            k = int(m.group(1)) - 1
            return _format_number(self._value(num_id, k), self._level(num_id, k).fmt)

        return _LVL_PLACEHOLDER.sub(number, level.text).strip()


_LVL_PLACEHOLDER = re.compile(r"%([1-9])")


# "List Bullet 2", "Liste 2", "Listenabsatz", "Aufzählungszeichen"; not "Listing" (code)
_LIST_STYLE = re.compile(r"^(?:list(?!ing)|aufzählung).*?(\d)?$", re.IGNORECASE)


def list_item(paragraph: Any, chain: list[Any]) -> tuple[str, int, int] | None:
    """(numbering id, numbering level, depth) of a list paragraph, or None.

    Numbering comes from the paragraph (w:numPr) or its style; numId 0 switches
    numbering off. Word's "List Bullet 2"-style names give the depth where the
    numbering level does not (they use their own list at level 0).
    """
    names = style_names(chain)
    num_id, ilvl = _numbering_of(paragraph._p.pPr)
    for style in chain:
        if num_id is not None:
            break
        num_id, style_ilvl = _numbering_of(style.element.pPr)
        ilvl = ilvl if ilvl is not None else style_ilvl
    if num_id == "0":
        return None
    depth = ilvl or 0
    style_match = _LIST_STYLE.match(names[0]) if names else None
    if style_match and style_match.group(1):
        depth = max(depth, int(style_match.group(1)) - 1)
    if num_id is None and style_match is None:
        return None
    return num_id or "", ilvl or 0, min(depth, _MAX_LIST_DEPTH)


def _numbering_of(ppr: Any) -> tuple[str | None, int | None]:
    numpr = ppr.find(w("numPr")) if ppr is not None else None
    if numpr is None:
        return None, None
    num = numpr.find(w("numId"))
    lvl = numpr.find(w("ilvl"))
    num_id = num.get(w("val")) if num is not None else None
    return num_id, (int_attr(lvl, "val") if lvl is not None else None)
