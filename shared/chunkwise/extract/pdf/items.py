"""What a PDF page is read into: its items (headings, paragraphs, list items, tables).

The page readers and the table strategies (`tables/`) make them, the block
grouping (`blocks`) orders and merges them, stitching (`tables/stitch`) joins
a table's fragments across pages, and `render` writes them as canonical text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .lines import Line

Kind = Literal["heading", "para", "item", "table"]


@dataclass
class TableFragment:
    """A table as found on one page (first row = header candidate)."""

    rows: list[list[str]]
    page: int
    x_edges: list[float] = field(default_factory=list)  # column boundaries, if known
    caption: str = ""
    header_rows: int = 1  # 0: no header row (rows[0] is an empty stand-in)

    @property
    def columns(self) -> int:
        return max((len(r) for r in self.rows), default=0)


@dataclass
class Item:
    kind: Kind
    top: float
    bottom: float
    text: str = ""
    size: float = 0.0
    level: int = 0
    lines: list[Line] = field(default_factory=list)
    table: TableFragment | None = None
    order: float = -1.0  # place among the page's lines (Line.seq), when known


@dataclass
class PageContent:
    number: int
    items: list[Item]
    has_text: bool
    has_images: bool
    ocr_text: str | None = None
