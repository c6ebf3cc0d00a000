"""A deck's slides -> ``## Slide N`` sections (pure); shared by the PPTX and ODP readers.

The readers turn each slide's shapes into `Placed` blocks (text frames as
paragraphs and list items, tables as rows with merged cells filled, groups as
the blocks of their members) and count what they do not read (charts,
pictures, media, other objects). Here:

- every slide keeps its number in the deck; a hidden slide is left out and
  listed (report.slides, warnings), so the slide after it is still cited with
  its own number;
- ``## Slide N`` is the citation anchor (canonical.py: a page anchor, so a
  chunk's page_start/page_end are slide numbers, which also ends the sections
  of the slide before); the slide's title is the heading below it (``###``);
- tables keep their header rows (`header_rows_of`), merged cells filled;
- the other blocks follow in reading order: rows of shapes from top to bottom
  (a shape that starts in the upper half of the first shape of a row is in
  that row), each row left to right;
- speaker notes follow under a ``#### Notes`` sub-heading, so they are
  searchable and marked as notes in heading_path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chunkwise.canonical import NOTES_TITLE, page_number, slide_anchor

from .context import ReadContext
from .errors import EmptyDocument, LimitExceeded
from .model import SlideInfo
from .writer import CanonicalWriter, ListItem, one_line

Paragraphs = list[ListItem | str]  # a list item, or a paragraph of text


@dataclass
class TextBlock:
    paragraphs: Paragraphs


@dataclass
class TableBlock:
    rows: list[list[str]]
    header_rows: int = 1


def header_rows_of(rows: list[list[str]], first_row_groups: bool) -> int:
    """A slide table's header: its first row, and the row below when the first
    groups columns with a cell merged across them (``Class1`` over ``A | B``).

    As for DOCX, the first row is the header whether or not the table is styled
    so (PowerPoint's first-row flag, ODF's first-row styles): slide tables are
    small, written for people, and their first row names the columns, also when
    it holds years (``Kennzahl | 2023 | 2024``), which the spreadsheet rule
    (extract/grids.py) would take for data.
    """
    return 2 if first_row_groups and len(rows) > 2 else 1


Block = TextBlock | TableBlock


@dataclass
class Placed:
    """Blocks at one place on the slide (a shape, or a group of shapes)."""

    blocks: list[Block]
    top: float = 0.0
    left: float = 0.0
    height: float = 0.0


@dataclass
class Slide:
    number: int
    hidden: bool = False
    title: str = ""
    shapes: list[Placed] = field(default_factory=list)
    notes: Paragraphs = field(default_factory=list)
    charts: int = 0
    images: int = 0
    media: int = 0
    other: int = 0  # objects neither text, table, chart, picture nor media (OLE, diagrams)
    warnings: list[str] = field(default_factory=list)


def reading_order(shapes: list[Placed]) -> list[Placed]:
    """Rows from top to bottom, each row left to right (stable for equal places)."""
    pending = sorted(shapes, key=lambda s: (s.top, s.left))
    ordered: list[Placed] = []
    while pending:
        first = pending[0]
        reach = first.top + max(first.height, 0.0) / 2
        row = [s for s in pending if s is first or s.top < reach]
        ordered.extend(sorted(row, key=lambda s: s.left))
        pending = [s for s in pending if all(s is not r for r in row)]
    return ordered


def check_slides(count: int, ctx: ReadContext) -> None:
    if count > ctx.limits.max_pages:
        raise LimitExceeded("max_pages", ctx.limits.max_pages, count, "slides in the deck")


def write_paragraphs(writer: CanonicalWriter, paragraphs: Paragraphs) -> None:
    """Paragraphs as paragraphs, runs of list items as one list each."""
    run: list[ListItem] = []
    for paragraph in [*paragraphs, ""]:
        if isinstance(paragraph, ListItem):
            run.append(paragraph)
            continue
        if run:
            writer.list_items(run)
            run = []
        writer.paragraph(paragraph)


def _write_slide(writer: CanonicalWriter, slide: Slide) -> None:
    writer.raw(slide_anchor(slide.number))
    title = one_line(slide.title)
    if title and page_number(title) is None:
        writer.heading(3, title)
    elif title:
        writer.paragraph(title)  # "Slide 7" as a title would read as an anchor
    for placed in reading_order(slide.shapes):
        for block in placed.blocks:
            if isinstance(block, TableBlock):
                writer.table(block.rows, block.header_rows, page=slide.number)
            else:
                write_paragraphs(writer, block.paragraphs)
    if any(one_line(p if isinstance(p, str) else p.text) for p in slide.notes):
        writer.heading(4, NOTES_TITLE)
        write_paragraphs(writer, slide.notes)


def _info(slide: Slide, tables: int) -> SlideInfo:
    return SlideInfo(
        number=slide.number,
        title=one_line(slide.title),
        read=not slide.hidden,
        tables=tables,
        notes=any(one_line(p if isinstance(p, str) else p.text) for p in slide.notes),
        charts=slide.charts,
        images=slide.images,
        media=slide.media,
        other=slide.other,
    )


def _report(slide: Slide, ctx: ReadContext) -> None:
    ctx.report.warnings.extend(f"slide {slide.number}: {w}" for w in slide.warnings)
    if slide.hidden:
        ctx.report.warnings.append(f"slide {slide.number} is hidden: left out")
        return
    parts = [
        f"{count} {name}"
        for count, name in (
            (slide.charts, "chart(s)"),
            (slide.images, "picture(s)"),
            (slide.media, "media object(s)"),
            (slide.other, "other object(s)"),
        )
        if count
    ]
    if parts:
        ctx.report.warnings.append(f"slide {slide.number}: {', '.join(parts)} not read")


def assemble_deck(slides: list[Slide], ctx: ReadContext) -> str:
    """The visible slides' sections; the report gets slides, tables, pages, warnings."""
    writer = CanonicalWriter()
    for slide in slides:
        before = len(writer.tables)
        if not slide.hidden:
            _write_slide(writer, slide)
        ctx.report.slides.append(_info(slide, len(writer.tables) - before))
        _report(slide, ctx)
    ctx.report.pages = len(slides)
    ctx.report.tables = writer.tables
    ctx.report.tables_found = len(writer.tables)
    anchors = {slide_anchor(s.number) for s in slides}
    if all(block in anchors for block in writer.blocks):
        raise EmptyDocument("no visible slide holds any text")
    return writer.text() + "\n"
