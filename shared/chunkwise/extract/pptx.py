"""PPTX -> one ``## Slide N`` section per slide, with python-pptx (extract/slides.py writes it).

The container was guarded and verified before (extract/containers.py);
python-pptx gets its verified members as a stored ZIP, so it inflates nothing,
and parses XML with entity resolution off. Nothing is run: macros
(``.pptm`` parts), OLE objects and media are never opened.

Per slide, in deck order: a hidden slide (``show="0"``) is left out and
reported. The title placeholder is the heading. Every other shape is read
where it sits: text frames paragraph by paragraph (a paragraph is a list item
when it has an explicit bullet or number, or sits in a body placeholder that
does not switch bullets off; ``lvl`` is its depth), tables as tables (merged
cells filled; header rows as extract/slides.py says), groups
by their members, SmartArt by the text of its data model; charts, pictures,
media and OLE objects are counted. Date, footer and slide-number placeholders
are boilerplate and left out. The notes placeholder of the notes slide gives
the speaker notes.

A shape python-pptx cannot read (a 3-D bar chart raises ValueError in
python-pptx 1.0.2) is left out with a warning naming it: the rest of the
slide and of the deck is still read.
"""

from __future__ import annotations

import io
from typing import Any

from lxml import etree

from .context import ReadContext
from .errors import CorruptDocument, ExtractionError, LimitExceeded
from .limits import ExtractLimits
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
from .writer import ListItem, one_line

_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_DGM = "{http://schemas.openxmlformats.org/drawingml/2006/diagram}"
_GRAPHIC = "http://schemas.openxmlformats.org/drawingml/2006/"
_SHAPES = frozenset(_P + t for t in ("sp", "grpSp", "graphicFrame", "cxnSp", "pic"))
_TITLES = frozenset({"title", "ctrTitle"})
_BOILERPLATE = frozenset({"dt", "ftr", "sldNum", "hdr"})
_BULLETED = frozenset({"body", "obj", None})  # a placeholder without a type is a body
_MEDIA = ("videoFile", "audioFile", "quickTimeFile", "audioCd", "wavAudioFile")
_XML = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


def read_pptx(data: bytes, ctx: ReadContext) -> str:
    package = ctx.container.repacked() if ctx.container is not None else data
    presentation = _open(package)
    try:
        slides = list(presentation.slides)
    except Exception as exc:
        raise CorruptDocument(f"PPTX slide list could not be read: {_reason(exc)}") from None
    check_slides(len(slides), ctx)
    deck = []
    for number, slide in enumerate(slides, start=1):
        ctx.check_time(f"slide {number}")
        deck.append(_read_slide(slide, number, ctx.limits))
    return assemble_deck(deck, ctx)


def _open(data: bytes) -> Any:
    from pptx import Presentation

    try:
        return Presentation(io.BytesIO(data))
    except ExtractionError:
        raise
    except Exception as exc:  # python-pptx, lxml and zipfile raise many types
        raise CorruptDocument(f"PPTX could not be opened: {_reason(exc)}") from None


def _reason(exc: Exception) -> str:
    return f"{type(exc).__name__}: {str(exc)[:200]}"


def _read_slide(slide: Any, number: int, limits: ExtractLimits) -> Slide:
    out = Slide(number, hidden=(slide._element.get("show") or "1").lower() in ("0", "false"))
    if out.hidden:
        return out
    out.shapes = _read_shapes(slide.shapes, slide.shapes._spTree, out, limits, slide.part)
    out.notes = _notes(slide, out)
    return out


def _members(tree: Any) -> list[Any]:
    """The shape elements of a shape tree in document order; a shape wrapped in
    mc:AlternateContent (an equation, a newer shape kind) is read from its Choice."""
    out = []
    for element in tree.iterchildren():
        if element.tag in _SHAPES:
            out.append(element)
        elif element.tag == _MC + "AlternateContent":
            choice = element.find(_MC + "Choice")
            fallback = element.find(_MC + "Fallback")
            for branch in (choice, fallback):
                found = [e for e in branch if e.tag in _SHAPES] if branch is not None else []
                if found:
                    out.extend(found)
                    break
    return out


def _read_shapes(
    shapes: Any, tree: Any, slide: Slide, limits: ExtractLimits, part: Any
) -> list[Placed]:
    placed = []
    for element in _members(tree):
        try:
            shape = shapes._shape_factory(element)
            item = _read_shape(shape, element, slide, limits, part)
        except ExtractionError:
            raise
        except Exception as exc:  # one unreadable shape must not lose the deck
            name = element.find(".//" + _P + "cNvPr")
            label = name.get("name", "?") if name is not None else "?"
            slide.warnings.append(f"shape {label!r} could not be read ({_reason(exc)}): left out")
            continue
        if item is not None:
            placed.append(item)
    return placed


def _place(shape: Any, blocks: list[Block]) -> Placed:
    def coordinate(name: str) -> float:
        try:
            return float(getattr(shape, name) or 0)
        except Exception:  # an inherited position that the layout does not give
            return 0.0

    return Placed(blocks, coordinate("top"), coordinate("left"), coordinate("height"))


def _read_shape(
    shape: Any, element: Any, slide: Slide, limits: ExtractLimits, part: Any
) -> Placed | None:
    tag = element.tag
    if tag == _P + "grpSp":
        members = _read_shapes(shape.shapes, element, slide, limits, part)
        return _place(shape, [b for m in reading_order(members) for b in m.blocks])
    if tag == _P + "graphicFrame":
        return _graphic_frame(shape, element, slide, limits, part)
    if tag == _P + "pic":
        media = any(element.find(f".//{_A}{kind}") is not None for kind in _MEDIA)
        slide.media += media
        slide.images += not media
        return None
    ph_type = _placeholder_type(element)
    if ph_type in _BOILERPLATE:
        return None
    if ph_type in _TITLES and not slide.title:
        slide.title = _frame_text(element)
        if slide.title:
            return None
    bulleted = ph_type in _BULLETED
    paragraphs = _paragraphs(element.find(_P + "txBody"), bulleted)
    return _place(shape, [TextBlock(paragraphs)]) if paragraphs else None


def _placeholder_type(element: Any) -> str | None:
    ph = element.find(f"./{_P}nvSpPr/{_P}nvPr/{_P}ph")
    if ph is None:
        return "none"  # not a placeholder
    kind: str | None = ph.get("type")
    return kind


def _graphic_frame(
    shape: Any, element: Any, slide: Slide, limits: ExtractLimits, part: Any
) -> Placed | None:
    data = element.find(f".//{_A}graphicData")
    uri = data.get("uri", "") if data is not None else ""
    if uri == _GRAPHIC + "table":
        return _place(shape, [_table(shape.table, limits)])
    if uri.endswith("/chart"):
        slide.charts += 1
        return None
    if uri == _GRAPHIC + "diagram" and data is not None:
        paragraphs = _diagram_paragraphs(data, part)
        if paragraphs:
            return _place(shape, [TextBlock(paragraphs)])
    slide.other += 1
    return None


# ----------------------------------------------------------------------------- text


def _run_text(paragraph: Any) -> str:
    parts = []
    for child in paragraph.iterchildren():
        if child.tag in (_A + "r", _A + "fld"):
            parts.append(child.findtext(_A + "t") or "")
        elif child.tag == _A + "br":
            parts.append("\n")
    return "".join(parts)


def _frame_text(element: Any) -> str:
    body = element.find(_P + "txBody")
    if body is None:
        return ""
    return one_line(" ".join(_run_text(p) for p in body.iterchildren(_A + "p")))


def _bullet(ppr: Any, default: bool) -> tuple[bool, int | None] | None:
    """(numbered, start) of a list paragraph, None for a plain paragraph."""
    if ppr is not None:
        if ppr.find(_A + "buNone") is not None:
            return None
        number = ppr.find(_A + "buAutoNum")
        if number is not None:
            start = number.get("startAt")
            return True, int(start) if start and start.isdigit() else None
        if ppr.find(_A + "buChar") is not None or ppr.find(_A + "buBlip") is not None:
            return False, None
    return (False, None) if default else None


def _paragraphs(body: Any, bulleted: bool) -> Paragraphs:
    """The paragraphs of a text body (a:p), each a ListItem or a string."""
    out: Paragraphs = []
    if body is None:
        return out
    for p in body.iterchildren(_A + "p"):
        text = _run_text(p)
        if not text.strip():
            continue
        ppr = p.find(_A + "pPr")
        bullet = _bullet(ppr, bulleted)
        if bullet is None:
            out.append(text)
            continue
        level = ppr.get("lvl", "0") if ppr is not None else "0"
        numbered, start = bullet
        out.append(ListItem(text, int(level) if level.isdigit() else 0, numbered, start))
    return out


def _notes(slide: Any, out: Slide) -> Paragraphs:
    try:
        if not slide.has_notes_slide:
            return []
        placeholder = slide.notes_slide.notes_placeholder
        if placeholder is None:
            return []
        return _paragraphs(placeholder._element.find(_P + "txBody"), False)
    except Exception as exc:
        out.warnings.append(f"speaker notes could not be read ({_reason(exc)}): left out")
        return []


def _diagram_paragraphs(data: Any, part: Any) -> Paragraphs:
    """SmartArt: the text of the nodes of its data model, in their order."""
    ids = data.find(_DGM + "relIds")
    if ids is None or part is None:
        return []
    blob = part.related_part(ids.get(_R + "dm")).blob
    model = etree.fromstring(blob, parser=_XML)
    out: Paragraphs = []
    for point in model.iter(_DGM + "pt"):
        if point.get("type", "node") not in ("node", "asst"):
            continue
        body = point.find(_DGM + "t")
        text = (
            one_line(" ".join(_run_text(p) for p in body.iter(_A + "p")))
            if body is not None
            else ""
        )
        if text:
            out.append(ListItem(text))
    return out


# ----------------------------------------------------------------------------- tables


def _table(table: Any, limits: ExtractLimits) -> TableBlock:
    rows = list(table.rows)
    width = len(table.columns)
    if len(rows) > limits.max_table_rows:
        raise LimitExceeded("max_table_rows", limits.max_table_rows, len(rows), "rows of a table")
    if width > limits.max_table_columns:
        raise LimitExceeded("max_table_columns", limits.max_table_columns, width, "table columns")
    grid = [[""] * width for _ in rows]
    groups = [False] * len(rows)  # a row with a cell spanning columns
    for r, row in enumerate(rows):
        for c, cell in enumerate(list(row.cells)[:width]):
            if cell.is_spanned:
                continue
            text = _cell_text(cell, limits)
            down = cell.span_height if cell.is_merge_origin else 1
            across = cell.span_width if cell.is_merge_origin else 1
            groups[r] |= across > 1
            for rr in range(r, min(r + down, len(rows))):
                for cc in range(c, min(c + across, width)):
                    grid[rr][cc] = text
    return TableBlock(grid, header_rows_of(grid, groups[0] if groups else False))


def _cell_text(cell: Any, limits: ExtractLimits) -> str:
    body = cell._tc.find(_A + "txBody")
    text = one_line(" ".join(_run_text(p) for p in body.iter(_A + "p"))) if body is not None else ""
    if len(text) > limits.max_cell_chars:
        raise LimitExceeded("max_cell_chars", limits.max_cell_chars, len(text), "a table cell")
    return text
