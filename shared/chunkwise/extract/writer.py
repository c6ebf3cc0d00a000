"""Blocks of canonical text written in order, with the tables' offsets (pure).

The readers of structured documents (ODT, and the slides of PPTX and ODP)
collect headings, paragraphs, lists and tables here instead of joining strings
themselves: every block is written with the helpers of chunkwise/canonical.py
and extract/tables.py, blocks are separated by one blank line, and each
table's `TableInfo` gets its exact ``[start, end)`` in the text as it is built.

Tables: ``header_rows`` leading rows are combined into the header line
(``A / B``, extract/tables.py); 0 names the columns ``Column 1..n``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chunkwise.canonical import escape_paragraph

from .model import TableInfo
from .tables import LAYOUT_SPACE, combine_header_rows, header_line, render_gfm

#: Nesting a list is written to: two spaces per level, the chunker reads 12.
MAX_LIST_LEVEL = 5


@dataclass(frozen=True)
class ListItem:
    text: str
    level: int = 0
    numbered: bool = False
    start: int | None = None  # the number of the first item of a numbered run


@dataclass
class CanonicalWriter:
    """Blocks in order; ``tables`` holds the TableInfo of each table written."""

    blocks: list[str] = field(default_factory=list)
    tables: list[TableInfo] = field(default_factory=list)
    _length: int = 0  # characters written, separators included

    def _add(self, block: str) -> int:
        """Append a block; return its offset."""
        start = self._length + (2 if self.blocks else 0)
        self.blocks.append(block)
        self._length = start + len(block)
        return start

    def raw(self, line: str) -> None:
        """A line already in canonical form (an anchor)."""
        self._add(line)

    def heading(self, level: int, text: str) -> None:
        title = one_line(text)
        if title:
            self._add("#" * max(1, min(level, 6)) + " " + title)

    def paragraph(self, text: str) -> None:
        lines = [one_line(line) for line in text.split("\n")]
        body = "\n".join(line for line in lines if line)
        if body:
            self._add(escape_paragraph(body))

    def list_items(self, items: list[ListItem]) -> None:
        lines = []
        counters: dict[int, int] = {}
        for item in items:
            text = one_line(item.text)
            if not text:
                continue
            level = max(0, min(item.level, MAX_LIST_LEVEL))
            for deeper in [k for k in counters if k > level]:
                del counters[deeper]  # a new sub-list numbers from its start again
            marker = "-"
            if item.numbered:
                counters[level] = counters[level] + 1 if level in counters else item.start or 1
                marker = f"{counters[level]}."
            else:
                counters.pop(level, None)
            lines.append(f"{'  ' * level}{marker} {text}")
        if lines:
            self._add("\n".join(lines))

    def table(
        self, rows: list[list[str]], header_rows: int = 1, *, page: int | None = None,
        caption: str = "",
    ) -> None:  # fmt: skip
        rows = [row for row in rows if any(cell.strip() for cell in row)]
        if not rows:
            return
        width = max(len(row) for row in rows)
        rows = [row + [""] * (width - len(row)) for row in rows]
        count = max(0, min(header_rows, len(rows)))
        if count == 0:
            header = [f"Column {i}" for i in range(1, width + 1)]
        else:
            header = combine_header_rows(rows[:count]) if count > 1 else rows[0]
        if caption:
            self._add(caption)
        body = render_gfm(header, rows[count:])
        start = self._add(body)
        self.tables.append(
            TableInfo(
                index=len(self.tables),
                header=header_line(header, width),
                header_rows=count,
                columns=width,
                rows=len(rows) - count,
                caption=caption,
                page_start=page,
                page_end=page,
                start=start,
                end=start + len(body),
            )
        )

    def text(self) -> str:
        return "\n\n".join(self.blocks)


def one_line(text: str) -> str:
    """Whitespace runs (line breaks too) as one space; no-break spaces stay."""
    return LAYOUT_SPACE.sub(" ", text).strip()
