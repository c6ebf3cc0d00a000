"""Block segmentation of canonical text: the atoms of chunking.

The canonical text is markdown-like (samdocs/architecture.md,
"The canonical text"). Block type is
recovered from the text itself, so chunking stays a pure function of a string.
One pass over the lines, no backtracking: linear in the input size.

A heading starts a block: an ATX heading line directly under a paragraph or
list line belongs to that paragraph or list (Markdown input is given the blank
line before such a heading when it is extracted).

Documented results for malformed input:
- an unclosed code fence runs to the end of the text (one code block);
- a pipe line without a `|---|` separator line is prose, not a table;
- ragged table rows are kept as they are (rows are atoms, cells are not parsed).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from chunkwise.canonical import FENCE, HEADING, LINEAR_ROW, LIST_ITEM, is_table_start


class BlockType(StrEnum):
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    LIST = "list"
    CODE = "code"
    TABLE = "table"
    LINEAR_TABLE = "linear_table"


@dataclass(frozen=True, slots=True)
class Line:
    start: int  # code point offset of the first character
    end: int  # offset just past the content, line terminator excluded
    next_start: int  # offset of the following line
    content: str


@dataclass(slots=True)
class Block:
    type: BlockType
    start: int
    end: int
    # Offsets of sub-units a too-large block may be cut at: table rows, list
    # items, code lines. Each is a (start, end) span inside the block.
    units: list[tuple[int, int]] = field(default_factory=list)
    # For tables: the span of the header row plus its separator line.
    header: tuple[int, int] | None = None
    heading_level: int = 0
    heading_title: str = ""


def iter_lines(text: str) -> Iterator[Line]:
    """Lines with their offsets; '\\r\\n', '\\n' and '\\r' all end a line."""
    pos = 0
    for raw in text.splitlines(keepends=True):
        content = raw.rstrip("\r\n")
        # splitlines also breaks on \v, \f, \x1c-\x1e, \x85, \u2028, \u2029; they
        # are kept as part of the line content's terminator span.
        if len(content) == len(raw):
            content = raw[:-1] if raw and raw[-1] in "\v\f\x1c\x1d\x1e\x85\u2028\u2029" else raw
        yield Line(pos, pos + len(content), pos + len(raw), content)
        pos += len(raw)


def _is_blank(line: Line) -> bool:
    return not line.content.strip()


def parse_blocks(text: str) -> list[Block]:
    """Split canonical text into typed blocks with exact code-point spans."""
    lines = list(iter_lines(text))
    blocks: list[Block] = []
    i = 0
    n = len(lines)
    while i < n:
        line = lines[i]
        if _is_blank(line):
            i += 1
            continue
        heading = HEADING.match(line.content)
        if heading:
            level = len(heading.group(1))
            title = (heading.group(2) or "").strip()
            blocks.append(
                Block(
                    BlockType.HEADING,
                    line.start,
                    line.end,
                    heading_level=level,
                    heading_title=title,
                )
            )
            i += 1
            continue
        fence = FENCE.match(line.content)
        if fence:
            i = _take_code(lines, i, fence.group(1), blocks)
            continue
        if i + 1 < n and _is_table_start(line, lines[i + 1]):
            i = _take_table(lines, i, blocks)
            continue
        if LINEAR_ROW.match(line.content):
            i = _take_run(lines, i, blocks, BlockType.LINEAR_TABLE, LINEAR_ROW)
            continue
        if LIST_ITEM.match(line.content):
            i = _take_list(lines, i, blocks)
            continue
        i = _take_paragraph(lines, i, blocks)
    return blocks


def _is_table_start(line: Line, nxt: Line) -> bool:
    return is_table_start(line.content, nxt.content)


def _starts_other_block(lines: list[Line], i: int) -> bool:
    """Does line i end the paragraph or list above it?

    A heading does not: in the canonical text a heading starts a block (after
    a blank line, or another block's end). So a line of a paragraph that only
    starts with "#" -- a shell prompt, a comment of a listing -- stays prose
    and keeps its "#" unescaped; Markdown input gets the blank line before an
    interrupting heading from the extractor (extract/markdown.py).
    """
    content = lines[i].content
    if FENCE.match(content):
        return True
    return i + 1 < len(lines) and _is_table_start(lines[i], lines[i + 1])


def _take_code(lines: list[Line], i: int, fence: str, blocks: list[Block]) -> int:
    first = lines[i]
    units = [(first.start, first.end)]
    j = i + 1
    closing = re.compile(r" {0,3}" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
    while j < len(lines):
        units.append((lines[j].start, lines[j].end))
        if closing.match(lines[j].content):
            j += 1
            break
        j += 1
    blocks.append(Block(BlockType.CODE, first.start, lines[j - 1].end, units=units))
    return j


def _take_table(lines: list[Line], i: int, blocks: list[Block]) -> int:
    header_line, separator = lines[i], lines[i + 1]
    j = i + 2
    units: list[tuple[int, int]] = []
    while j < len(lines) and not _is_blank(lines[j]) and "|" in lines[j].content:
        if HEADING.match(lines[j].content):
            break
        units.append((lines[j].start, lines[j].end))
        j += 1
    blocks.append(
        Block(
            BlockType.TABLE,
            header_line.start,
            lines[j - 1].end,
            units=units,
            header=(header_line.start, separator.end),
        )
    )
    return j


def _take_run(
    lines: list[Line], i: int, blocks: list[Block], kind: BlockType, pattern: re.Pattern[str]
) -> int:
    j = i
    units: list[tuple[int, int]] = []
    while j < len(lines) and pattern.match(lines[j].content):
        units.append((lines[j].start, lines[j].end))
        j += 1
    blocks.append(Block(kind, lines[i].start, lines[j - 1].end, units=units))
    return j


def _take_list(lines: list[Line], i: int, blocks: list[Block]) -> int:
    j = i
    units: list[tuple[int, int]] = []
    item_start = lines[i].start
    while j < len(lines) and not _is_blank(lines[j]):
        if j > i and _starts_other_block(lines, j):
            break
        if j > i and LIST_ITEM.match(lines[j].content):
            units.append((item_start, lines[j - 1].end))
            item_start = lines[j].start
        j += 1
    units.append((item_start, lines[j - 1].end))
    blocks.append(Block(BlockType.LIST, lines[i].start, lines[j - 1].end, units=units))
    return j


def _take_paragraph(lines: list[Line], i: int, blocks: list[Block]) -> int:
    j = i + 1
    while j < len(lines) and not _is_blank(lines[j]) and not _starts_other_block(lines, j):
        j += 1
    blocks.append(Block(BlockType.PARAGRAPH, lines[i].start, lines[j - 1].end))
    return j
