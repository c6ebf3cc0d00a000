"""Pass: blocks -> plans, each content block with the heading context in force.

Headings are not content: their text rides with the next content block (a
plan may start before its block), and they open a section. A PDF's page
anchor heading sets the page and does not end the sections above it; a
slide anchor (a deck's ``## Slide N``) sets the page and does.
"""

from __future__ import annotations

from chunkwise.canonical import is_slide_anchor, is_transcribed, page_number, runs_on
from chunkwise.chunking.blocks import Block, BlockType
from chunkwise.chunking.context import Document
from chunkwise.chunking.model import Frame, Plan, Section
from chunkwise.chunking.rows import split_cells
from chunkwise.chunking.spans import cap_heading
from chunkwise.chunking.split import TABLES, count_plan

_CAPTION_MAX_CHARS = 300


def plan_blocks(doc: Document, blocks: list[Block]) -> list[Plan]:
    """Heading context and the spans to count for every content block."""
    stack: list[Frame] = []
    page: int | None = None
    pending: int | None = None
    pending_page: int | None = None  # the page of the first pending heading that is text
    table_id = 0
    plans: list[Plan] = []
    for position, block in enumerate(blocks):
        if block.type is BlockType.HEADING:
            if (
                pending is not None
                and pending_page is not None
                and is_slide_anchor(block.heading_title)
            ):
                # A slide whose title is all it holds (its pictures and charts are not
                # text): the title is that slide's content, not the next slide's lead.
                plans.append(
                    _headings_alone(doc, stack, page, pending, blocks[position - 1], table_id)
                )
                pending = pending_page = None
            page = _push_heading(stack, block, page)
            pending = block.start if pending is None else pending
            if pending_page is None and page_number(block.heading_title) is None:
                pending_page = page  # a title is text of its page; a bare anchor is not
            continue
        start = pending if pending is not None else block.start
        table_id += block.type in TABLES
        caption = _is_caption(doc.text, block, blocks[position + 1 : position + 2])
        if caption:
            _name_headerless(doc.text, blocks[position + 1], block)
        section = _section(stack, page, doc.lang_at(start))
        pieces = count_plan(doc, block, start)
        lead = _lead_page(pending, pending_page, page)
        continues = _runs_on(doc.text, blocks, position)
        opens = pending is not None and not continues
        plan = Plan(block, start, section, table_id, caption, opens, pieces, lead, continues)
        plans.append(plan)
        pending = pending_page = None
    if pending is not None:  # trailing heading(s) without content
        lead = _lead_page(pending, pending_page, page)
        plans.append(_headings_alone(doc, stack, page, pending, blocks[-1], table_id, lead))
    return plans


def _headings_alone(
    doc: Document,
    stack: list[Frame],
    page: int | None,
    pending: int,
    last: Block,
    table_id: int = 0,
    lead: int | None = None,
) -> Plan:
    """Pending headings with no content of their own under them, as a plan of their text."""
    alone = Block(BlockType.PARAGRAPH, pending, last.end)
    section = _section(stack, page, doc.lang_at(pending))
    pieces = count_plan(doc, alone, pending)
    return Plan(alone, pending, section, table_id, False, True, pieces, lead)


def _runs_on(text: str, blocks: list[Block], position: int) -> bool:
    """The paragraph at `position` goes on with the one before the page anchor just
    above it: a sentence run on over a page break (`canonical.runs_on`)."""
    if position < 2:
        return False
    before, anchor, block = blocks[position - 2], blocks[position - 1], blocks[position]
    if not (before.type is block.type is BlockType.PARAGRAPH):
        return False
    if anchor.type is not BlockType.HEADING or page_number(anchor.heading_title) is None:
        return False
    if is_slide_anchor(anchor.heading_title):
        return False
    return runs_on(text[before.start : before.end], text[block.start : block.end])


def _lead_page(pending: int | None, pending_page: int | None, page: int | None) -> int | None:
    """The page the leading headings opened on, when their content is on a later one."""
    if pending is None or pending_page is None or pending_page == page:
        return None
    return pending_page


def _push_heading(stack: list[Frame], block: Block, page: int | None) -> int | None:
    popped: list[Frame] = []
    while stack and stack[-1].level >= block.heading_level:
        popped.append(stack.pop())
    anchor = page_number(block.heading_title)
    if anchor is not None:
        page = anchor
    transcribed = is_transcribed(block.heading_title) or any(f.transcribed for f in stack)
    title = cap_heading(block.heading_title)
    stack.append(Frame(block.heading_level, title, transcribed, page))
    if anchor is not None and not is_slide_anchor(block.heading_title):
        stack.extend(_carried_sections(popped, block.heading_level))
    return page


def _carried_sections(popped: list[Frame], anchor_level: int) -> list[Frame]:
    """Sections that continue past a page anchor: a page break does not end a section.

    A PDF's `## Page N` anchor is a citation, not a section: the headings below
    the previous anchor stay the context of the text that follows on the new
    page, until a heading of their level replaces them. Transcribed (OCR)
    sections are not carried: they belong to their page only.
    """
    carried: list[Frame] = []
    for frame in reversed(popped):  # outermost first
        if frame.level <= anchor_level or page_number(frame.title) is not None:
            continue
        if frame.transcribed:
            break
        carried.append(frame)
    return carried


def _section(stack: list[Frame], page: int | None, lang: str) -> Section:
    transcribed = any(f.transcribed for f in stack)
    return Section(tuple(f.title for f in stack if f.title), transcribed, page, lang)


def _name_headerless(text: str, table: Block, caption: Block) -> None:
    """A table whose header names no column is named only by its caption: no header
    row (every header cell empty: a slot table) or a title across the table in its
    first cell (array's "Unchanged options", a group label). The header its later
    fragments repeat then starts at the caption, so their rows still say which
    table they are. The first fragment holds both in its body; a table whose header
    names its columns is left as is."""
    if table.header is None:
        return
    start, end = table.header
    cells = split_cells(text[start:end].split("\n", 1)[0])
    if len(cells) >= 2 and not any(cell.strip() for cell in cells[1:]):
        table.header = (caption.start, end)


def _is_caption(text: str, block: Block, following: list[Block]) -> bool:
    """A short one-line paragraph right before a table is that table's caption."""
    return (
        block.type is BlockType.PARAGRAPH
        and bool(following)
        and following[0].type in TABLES
        and block.end - block.start <= _CAPTION_MAX_CHARS
        and "\n" not in text[block.start : block.end]
    )
