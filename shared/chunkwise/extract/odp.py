"""ODP -> one ``## Slide N`` section per slide (content.xml with lxml; extract/slides.py writes it).

Each ``draw:page`` is a slide, numbered in deck order. A slide whose
drawing-page style says ``presentation:visibility="hidden"`` is left out and
reported. The frame of class ``title`` is the heading; every other shape is
read where it sits (``svg:x``/``svg:y``): text boxes (``draw:frame`` with a
``draw:text-box``) and the text of drawing shapes (``draw:custom-shape``, as
LibreOffice writes a PPTX's text boxes, and ``draw:rect``, ``draw:ellipse``,
...), tables (``table:table``: the header rows it marks, else as
extract/slides.py says), groups (``draw:g``) by their members; pictures, charts and
other objects, and media are counted. Footer, date and page-number frames are
boilerplate. The ``presentation:notes`` frame of class ``notes`` gives the
speaker notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .context import ReadContext
from .errors import CorruptDocument
from .limits import ExtractLimits
from .odf import (
    DRAW,
    LIST,
    OFFICE,
    PRESENTATION,
    STYLE,
    STYLES_CAP,
    SVG,
    TABLE_TABLE,
    H,
    ListStyles,
    P,
    check_not_encrypted,
    inline_text,
    is_chart,
    length_cm,
    list_paragraphs,
    list_styles,
    object_types,
    q,
    read_part,
    table_grid,
)
from .slides import (
    Block,
    Paragraphs,
    Placed,
    Slide,
    TableBlock,
    TextBlock,
    assemble_deck,
    check_slides,
    header_rows_of,
    reading_order,
)
from .writer import one_line

_CLASS = q(PRESENTATION, "class")
_BOILERPLATE = frozenset({"footer", "date-time", "page-number", "header", "page", "handout"})
_TEXT_SHAPES = frozenset(
    q(DRAW, t)
    for t in ("custom-shape", "rect", "ellipse", "circle", "polygon", "polyline", "path",
              "regular-polygon", "caption", "measure", "line", "connector")
)  # fmt: skip


def read_odp(data: bytes, ctx: ReadContext) -> str:
    container = ctx.container
    if container is None:  # pragma: no cover - the dispatcher always opens the ZIP
        raise CorruptDocument("ODP reader called without its container")
    check_not_encrypted(container, "ODP")
    content = read_part(container, "content.xml")
    if content is None:
        raise CorruptDocument("ODP has no content.xml")
    parts = _Parts(
        list_styles(content, read_part(container, "styles.xml", cap=STYLES_CAP)),
        ctx.limits,
        object_types(container),
    )
    hidden = _hidden_page_styles(content)
    pages = list(content.iter(q(DRAW, "page")))
    pages = [p for p in pages if p.getparent().tag == q(OFFICE, "presentation")]
    check_slides(len(pages), ctx)
    deck = []
    for number, page in enumerate(pages, start=1):
        ctx.check_time(f"slide {number}")
        deck.append(_read_page(page, number, hidden, parts))
    return assemble_deck(deck, ctx)


def _hidden_page_styles(content: Any) -> set[str]:
    out = set()
    for style in content.iter(q(STYLE, "style")):
        props = style.find(q(STYLE, "drawing-page-properties"))
        if props is not None and props.get(q(PRESENTATION, "visibility")) == "hidden":
            out.add(style.get(q(STYLE, "name"), ""))
    return out


@dataclass(frozen=True)
class _Parts:
    """What every slide is read with: list styles, limits, the embedded objects' types."""

    styles: ListStyles
    limits: ExtractLimits
    objects: dict[str, str]


def _read_page(page: Any, number: int, hidden: set[str], parts: _Parts) -> Slide:
    slide = Slide(number, hidden=page.get(q(DRAW, "style-name")) in hidden)
    if slide.hidden:
        return slide
    slide.shapes = _shapes(page, slide, parts)
    notes = page.find(q(PRESENTATION, "notes"))
    if notes is not None:
        for frame in notes.iter(q(DRAW, "frame")):
            if frame.get(_CLASS) == "notes":
                slide.notes.extend(_text_paragraphs(frame, parts.styles))
    return slide


def _shapes(parent: Any, slide: Slide, parts: _Parts) -> list[Placed]:
    placed = []
    for shape in parent:
        tag = shape.tag
        if tag == q(DRAW, "g"):
            members = _shapes(shape, slide, parts)
            blocks = [b for m in reading_order(members) for b in m.blocks]
            if blocks:
                first = reading_order(members)[0]
                placed.append(Placed(blocks, first.top, first.left, first.height))
        elif tag == q(DRAW, "frame"):
            item = _frame(shape, slide, parts)
            if item is not None:
                placed.append(item)
        elif tag in _TEXT_SHAPES:
            paragraphs = _text_paragraphs(shape, parts.styles)
            if paragraphs:
                placed.append(_place(shape, [TextBlock(paragraphs)]))
    return placed


def _place(shape: Any, blocks: list[Block]) -> Placed:
    return Placed(
        blocks,
        top=length_cm(shape.get(q(SVG, "y"))),
        left=length_cm(shape.get(q(SVG, "x"))),
        height=length_cm(shape.get(q(SVG, "height"))),
    )


def _frame(shape: Any, slide: Slide, parts: _Parts) -> Placed | None:
    kind = shape.get(_CLASS)
    if kind in _BOILERPLATE:
        return None
    box = shape.find(q(DRAW, "text-box"))
    if kind == "title" and not slide.title and box is not None:
        slide.title = one_line(" ".join(inline_text(p) for p in box.iter(P, H)))
        if slide.title:
            return None
    table = shape.find(TABLE_TABLE)
    if table is not None:
        return _place(shape, [_table(table, parts.limits)])
    if box is not None:
        paragraphs = _text_paragraphs(box, parts.styles)
        return _place(shape, [TextBlock(paragraphs)]) if paragraphs else None
    _count_object(shape, slide, parts.objects)
    return None


def _count_object(shape: Any, slide: Slide, objects: dict[str, str]) -> None:
    if is_chart(shape, objects):
        slide.charts += 1
    elif shape.find(q(DRAW, "plugin")) is not None:
        slide.media += 1
    elif shape.find(q(DRAW, "image")) is not None:
        slide.images += 1
    elif len(shape):
        slide.other += 1


def _text_paragraphs(element: Any, styles: ListStyles) -> Paragraphs:
    """Paragraphs and lists of a text box or shape (or of the text box in a frame)."""
    out: Paragraphs = []
    for child in element:
        if child.tag in (P, H):
            text = inline_text(child)
            if text.strip():
                out.append(text)
        elif child.tag == LIST:
            list_paragraphs(child, styles, out)
        elif child.tag == q(DRAW, "text-box"):
            out.extend(_text_paragraphs(child, styles))
    return out


def _table(table: Any, limits: ExtractLimits) -> TableBlock:
    grid = table_grid(table, limits)
    return TableBlock(
        grid.rows, grid.header_rows or header_rows_of(grid.rows, grid.groups_first_row)
    )
