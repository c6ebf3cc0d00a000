"""The page readers: which library reads a page, and the page's lines and tables.

A page without vector paths has no ruled table, and PDFium (pypdfium2) reads
its text ~40x faster than pdfminer: it goes to PDFium (`FastPage`, with
`pdfium.read_page_fast`). Every other page goes to pdfplumber (`PlumberPage`):
its characters are made ready for reading (hidden content left out, symbols
restored, mirrored glyphs turned upright, accents joined, rules drawn as images
added, spaces drawn over glyphs removed), its ruled tables are found, and the
rest becomes text lines (`rows.text_lines`). A page naming a hidden optional
content group goes to pdfplumber, which leaves that content out (PDFium's text
page would keep it), and so does a page with an ActualText of TeX source
(PDFium would put it in place of the glyphs, which are the text).

Where PDFium cannot map some glyphs, pdfminer reads the page too and wins when
it leaves fewer unmapped ("(cid:NN)"): it maps more glyph names (TeX ligatures:
"o cial" -> "official"), PDFium more math fonts. Both readers get the symbols
the page's fonts name but cannot map (`symbols`). The "(cid:NN)" stand-ins
left are dropped before the text is assembled (`drop_unmapped_glyphs`).

`read_page` reads one page: its lines in reading order (`columns`,
`lines.join_baselines`) and its tables (`tables.find_tables`).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from . import pdfium
from .columns import reading_order
from .decor import overlaid_spaces
from .items import Item
from .lines import Line, join_baselines, release_glyphs
from .marked import names_hidden, tex_source_strings, visible_text
from .pdfium import has_paths, read_page_fast
from .rows import WS, join_accents, text_lines, upright_mirrored
from .symbols import PageSymbols
from .tables import PageText, RuledFinder, find_tables
from .tables.frames import horizontal_rules
from .tables.image_rules import has_rule_images, with_image_rules

_CID = re.compile(r"\(cid:\d+\)")
_CID_BULLET = re.compile(r"^\(cid:\d+\)\s+(?=\S)")
# Slot 32 is the space slot: TeX's typewriter fonts draw a visible space there
# ("\abkii AB" in a verbatim example), which has no Unicode mapping; it parts words.
_CID_SPACE = re.compile(r"\(cid:32\)")


@dataclass
class PageRead:
    """One page as read: its text lines and tables, and how it was read."""

    lines: list[Line]  # outside the tables, in reading order
    tables: list[Item]
    has_images: bool
    fast: bool  # read by PDFium
    unmapped: int  # glyphs PDFium could not map and left out


def read_page(
    page: Any, fast_page: Any, hidden: frozenset[int], symbols: PageSymbols, number: int
) -> PageRead:
    """One page through PDFium when it has no vector paths, else through pdfplumber."""
    hides = bool(hidden) and names_hidden(page.page_obj.resources, hidden)
    ruled = fast_page is not None and (has_paths(fast_page) or has_rule_images(fast_page))
    reader: FastPage | PlumberPage
    if fast_page is not None and not hides and not ruled and not tex_source_strings(page.page_obj):
        reader = FastPage(page, fast_page, hidden, symbols, number)
    else:
        reader = PlumberPage(page, hidden, symbols, number)
    found = find_tables(reader)  # the reader reads the page as the tables need it
    release_glyphs(found.lines)  # after the tables: a row may be cut at a glyph
    facts = reader.facts
    return PageRead(found.lines, found.tables, facts.has_images, facts.fast, facts.unmapped)


@dataclass
class _Facts:
    has_images: bool = False
    fast: bool = False
    unmapped: int = 0


class _Reader:
    """What both readers hold of a page, and pdfplumber's reading of it."""

    def __init__(self, page: Any, hidden: frozenset[int], symbols: PageSymbols, number: int):
        self.number = number
        self.facts = _Facts()
        self._page, self._hidden, self._symbols = page, hidden, symbols

    def _plumber_read(self, find_ruled: RuledFinder) -> tuple[list[Line], list[Item], bool]:
        """Text lines outside the ruled tables, the ruled tables, has_images."""
        page = visible_text(self._page, self._hidden)
        # after visible_text: it makes the page's layout itself
        self._symbols.restore_chars(page.chars)
        upright_mirrored(page.chars)
        page = join_accents(with_image_rules(page))
        overlaid = overlaid_spaces(page.chars)
        if overlaid:  # spaces drawn over glyphs split words ("chromiu m")
            page = page.filter(lambda obj: id(obj) not in overlaid)
        ruled = find_ruled(page)
        lines = text_lines(ruled.text_page)
        return lines, ruled.tables, bool(page.images)

    def _in_reading_order(self, lines: list[Line]) -> list[Line]:
        return join_baselines(reading_order(lines, float(self._page.width)))


class PlumberPage(_Reader):
    """A page pdfplumber reads: its ruled tables first, then the text they leave."""

    def read_text(self, find_ruled: RuledFinder) -> PageText:
        lines, tables, has_images = self._plumber_read(find_ruled)
        self.facts = _Facts(has_images=has_images)
        rules = horizontal_rules(with_image_rules(self._page))
        return PageText(self._in_reading_order(lines), tables, rules)


class FastPage(_Reader):
    """A page PDFium reads (no vector paths), unless pdfminer maps more of its glyphs."""

    def __init__(
        self, page: Any, fast_page: Any, hidden: frozenset[int], symbols: PageSymbols, number: int
    ):
        super().__init__(page, hidden, symbols, number)
        self._fast = fast_page

    def read_text(self, find_ruled: RuledFinder) -> PageText:
        fast_lines, unmapped = read_page_fast(self._fast, self._symbols)
        has_images = pdfium.has_images(self._fast)
        if unmapped:
            lines, tables, slow_images = self._plumber_read(find_ruled)
            if _count_unmapped(lines, tables) < unmapped:
                self.facts = _Facts(has_images=slow_images)
                rules = horizontal_rules(self._page)
                return PageText(self._in_reading_order(lines), tables, rules)
        self.facts = _Facts(has_images=has_images, fast=True, unmapped=unmapped)
        return PageText(self._in_reading_order(fast_lines), [], [])


def _count_unmapped(lines: list[Line], tables: list[Item]) -> int:
    cells = (
        cell for item in tables if item.table is not None for row in item.table.rows for cell in row
    )
    return sum(
        len(_CID.findall(text)) for text in itertools.chain((ln.text for ln in lines), cells)
    )


def drop_unmapped_glyphs(lines: list[Line], tables: list[Item]) -> int:
    """Remove pdfminer's "(cid:NN)" stand-ins for glyphs that have no Unicode text.

    They are not characters of the document (a font's internal glyph number),
    so they must not reach the canonical text; returns how many were dropped.
    """
    dropped = 0

    def clean(text: str) -> str:
        nonlocal dropped
        # A lone unmapped glyph before a line's text is how TeX fonts set a
        # list bullet: it stays a bullet.
        text = _CID_BULLET.sub("\u2022 ", text)
        text = _CID_SPACE.sub(" ", text)
        out, n = _CID.subn("", text)
        dropped += n
        return WS.sub(" ", out).strip() if n else text

    for ln in lines:
        ln.text = clean(ln.text)
    lines[:] = [ln for ln in lines if ln.text]
    for item in tables:
        if item.table is not None:
            item.table.rows = [[clean(cell) for cell in row] for row in item.table.rows]
    return dropped
