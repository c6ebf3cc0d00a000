"""How the tables of a PDF page are found: `find_tables(page)`, the one entry.

The page reader (`pdf/pages.py`: pdfplumber, or PDFium for pages without vector
paths) calls `find_tables` with its page; the strategies run in this order, and
each table's lines leave the page's text:

1. **Ruled** (`ruled.py`: `find_ruled_tables`), on the pdfplumber page, while
   the reader reads it: rules, frames and shading bound a table (`frames.py`;
   rules drawn as images count too, `image_rules.py`), pdfplumber's table
   finder gives its cells, each word going to the cell where it starts; merged
   cells and header rows of several lines (`spans.py`), columns the rules leave
   out (`subcolumns.py`), entries of one cell told apart (`entries.py`), row
   labels beside the frame (`labels.py`), a header block in a frame of its own
   joined to its body. The words put into cells leave the page, and the reader
   reads what is left into lines in reading order. A page PDFium reads has no
   vector paths, so no ruled tables (unless PDFium left glyphs unmapped and
   pdfplumber's reading of the page wins after all).
2. **Banded** (`banded.py`), on those lines: a stack of four or more horizontal
   rules with the same ends (DocBook's rule under every row, LaTeX's rules
   between row groups); the lines between two rules are one row (a wrapped
   cell beside its row label) or a row each.
3. **Aligned** (`aligned.py`), on the lines left: a run of lines that share
   vertical gutters, with no rules (TeX's tabular) or horizontal rules only
   (booktabs); the header is what lies above a midrule, or a first row set
   apart. Banded and aligned tables get their columns and rows from the lines'
   gutters (`gutters.py`).

A ruled table sits in the page's reading order before the first line below its
top, a banded or aligned table where its first line was.

Marked content (`pdf/marked.py`) yields no tables: it decides which text a page
has (hidden layers, replacement text) before any strategy runs; a tagged PDF's
table structure is not read.

Across pages, `stitch.py` joins a table's fragments on consecutive pages (same
columns) into one table; every format renders its tables as GFM with
`chunkwise.extract.tables`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..items import Item
from ..lines import Line
from .aligned import find_aligned_tables
from .banded import find_banded_tables
from .frames import Rule
from .ruled import RuledTables, find_ruled_tables

RuledFinder = Callable[[Any], RuledTables]  # a pdfplumber page -> its ruled tables


@dataclass
class PageText:
    """What a reader read of a page around its ruled tables."""

    lines: list[Line]  # text lines outside the ruled tables, in reading order
    ruled: list[Item]  # the ruled tables (none when the reader read no pdfplumber page)
    rules: list[Rule]  # the page's horizontal rules, for the banded and aligned tables


class TablePage(Protocol):
    """A page as its reader hands it to `find_tables`."""

    number: int  # 1-based

    def read_text(self, find_ruled: RuledFinder) -> PageText:
        """Read the page, looking for ruled tables with `find_ruled` on the pdfplumber
        page (ready for reading) before its text becomes lines, if the reader reads
        one."""
        ...


@dataclass
class PageTables:
    """A page's tables, and its text lines outside them."""

    lines: list[Line]  # in reading order, each with its place in it (`Line.seq`)
    tables: list[Item]  # the ruled tables, then the banded and the aligned ones


def find_tables(page: TablePage) -> PageTables:
    """The tables of one page, found by the strategies in the order the module names."""
    text = page.read_text(find_ruled_tables)
    lines, ruled = text.lines, text.ruled
    for i, ln in enumerate(lines):
        ln.seq = float(i)
    for item in ruled:
        below = [ln.seq for ln in lines if ln.top > item.top]
        item.order = min(below) - 0.5 if below else float(len(lines))
    rest, banded = find_banded_tables(lines, page.number, text.rules)
    prose, aligned = find_aligned_tables(rest, page.number, text.rules)
    found = [
        Item("table", t.top, t.bottom, table=t.fragment, order=t.lines[0].seq)
        for t in banded + aligned
    ]
    return PageTables(prose, ruled + found)
