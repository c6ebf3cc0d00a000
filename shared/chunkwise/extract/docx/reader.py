"""DOCX -> canonical text with python-docx: the body in document order.

Output: headings from the paragraph style (Title = level 1; Heading N or
outline level N-1 = N+1 when the document has a Title, else N; Subtitle is a
paragraph), with their number when the heading is numbered ("2.1 Auswahl");
paragraphs; list items (List styles or numbering: "-" for bullets, "N." for
numbered levels, two spaces per level); tables as GFM with every leading
w:tblHeader row combined into the header line (else the first row) and every
merged cell filled in each row and column it covers; a Caption paragraph
kept directly before its table (moved up when Word put it below). Content
controls and custom XML are read through; a table of contents is skipped.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

from chunkwise.canonical import escape_paragraph

from ..containers import ZipContainer
from ..errors import CorruptDocument, EmptyDocument, ExtractionError
from ..limits import ExtractLimits
from ..model import ExtractionReport, TableInfo
from ..tables import caption_paragraph, render_gfm
from .grid import table_grid
from .numbering import Numbering, list_item
from .ooxml import one_line, w
from .styles import StyleChains, heading_level, is_caption_style, is_title, style_names


class _Body:
    """Blocks of the canonical text, each with its kind, in document order."""

    def __init__(self, numbering: Numbering, styles: StyleChains, heading_shift: int) -> None:
        self.blocks: list[str] = []
        self.kinds: list[str] = []
        self.header_rows: list[int] = []  # per table block, in order
        self.numbering = numbering
        self.styles = styles
        self.heading_shift = heading_shift
        self.pending_caption: str | None = None

    def add(self, block: str, kind: str) -> None:
        self.blocks.append(block)
        self.kinds.append(kind)

    def flush_caption(self, kind: str = "para") -> None:
        if self.pending_caption is not None:
            text = self.pending_caption
            self.add(caption_paragraph(text) if kind == "caption" else text, kind)
            self.pending_caption = None

    def paragraph(self, paragraph: Any) -> None:
        text = one_line(paragraph.text)
        if not text:
            return
        chain = self.styles.of(paragraph)
        if is_caption_style(chain):
            if self.kinds and self.kinds[-1] == "table":
                # Word put the caption below the table: move it above.
                table_block = self.blocks.pop()
                self.kinds.pop()
                self.add(caption_paragraph(text), "caption")
                self.add(table_block, "table")
            else:
                self.pending_caption = text
            return
        self.flush_caption()
        level = heading_level(paragraph, chain, self.heading_shift)
        item = list_item(paragraph, chain)
        if level is not None:
            number = self.numbering.label(item[0], item[1]) if item is not None else ""
            self.add("#" * level + " " + (f"{number} {text}" if number else text), "heading")
        elif item is not None:
            num_id, ilvl, depth = item
            line = f"{'  ' * depth}{self.numbering.marker(num_id, ilvl)} {text}"
            if self.kinds and self.kinds[-1] == "list":
                self.blocks[-1] += "\n" + line
            else:
                self.add(line, "list")
        else:
            self.add(escape_paragraph(text), "para")

    def table(self, table: Any) -> None:
        grid = table_grid(table)
        self.flush_caption("caption")
        if grid is not None:
            header, rows, header_rows = grid
            self.add(render_gfm(header, rows), "table")
            self.header_rows.append(header_rows)


def _is_toc_part(sdt: Any) -> bool:
    """A content control holding Word's table of contents (docPartGallery)."""
    gallery = sdt.find(f"{w('sdtPr')}/{w('docPartObj')}/{w('docPartGallery')}")
    return gallery is not None and "contents" in (gallery.get(w("val")) or "").lower()


def _body_content(document: Any, styles: StyleChains) -> Iterator[Any]:
    """Paragraphs and tables of the body in order, also those inside content
    controls (w:sdt: Word's cover pages put Title and Subtitle there) and custom
    XML, but not a table of contents (it repeats the headings as entries)."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    body = document._body

    def walk(parent: Any) -> Iterator[Any]:
        for child in parent.iterchildren():
            if child.tag == w("p"):
                paragraph = Paragraph(child, body)
                names = style_names(styles.of(paragraph))
                if not (names and _TOC_STYLE.match(names[0])):
                    yield paragraph
            elif child.tag == w("tbl"):
                yield Table(child, body)
            elif child.tag == w("sdt") and not _is_toc_part(child):
                content = child.find(w("sdtContent"))
                if content is not None:
                    yield from walk(content)
            elif child.tag == w("customXml"):
                yield from walk(child)

    yield from walk(body._element)


# Entries of a table of contents (Word "TOC 1", LibreOffice "Contents 1",
# German "Verzeichnis 1") and its heading ("TOC Heading", "Contents Heading").
_TOC_STYLE = re.compile(
    r"^(?:toc|contents|verzeichnis|inhaltsverzeichnis)\s*(?:\d|heading|überschrift)",
    re.IGNORECASE,
)


def _open(data: bytes) -> Any:
    import docx

    try:
        return docx.Document(io.BytesIO(data))
    except ExtractionError:
        raise
    except Exception as exc:  # python-docx/lxml/zipfile raise many types
        raise CorruptDocument(f"DOCX could not be opened: {type(exc).__name__}: {exc}") from None


def extract_docx(data: bytes, *, report: ExtractionReport, limits: ExtractLimits) -> str:
    # The shared ZIP guard (extract/containers.py); python-docx then reads a stored copy.
    data = ZipContainer.open(data, limits, label="DOCX").repacked()
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = _open(data)
    try:
        styles = StyleChains()
        content = list(_body_content(document, styles))
    except Exception as exc:
        raise CorruptDocument(f"DOCX body could not be read: {type(exc).__name__}: {exc}") from None
    has_title = any(isinstance(e, Paragraph) and is_title(styles.of(e)) for e in content)
    body = _Body(Numbering(document), styles, heading_shift=1 if has_title else 0)
    for element in content:
        if isinstance(element, Paragraph):
            body.paragraph(element)
        elif isinstance(element, Table):
            body.table(element)
    body.flush_caption()

    text = "\n\n".join(body.blocks)
    if not text.strip():
        raise EmptyDocument("the DOCX has no text in its body")
    _report_tables(body, report)
    return text + "\n"


def _report_tables(body: _Body, report: ExtractionReport) -> None:
    offset = 0
    header_rows = iter(body.header_rows)
    for idx, (block, kind) in enumerate(zip(body.blocks, body.kinds, strict=True)):
        if kind == "table":
            first = block.split("\n", 1)[0]
            caption = ""
            if idx > 0 and body.kinds[idx - 1] == "caption":
                caption = body.blocks[idx - 1]
            report.tables.append(
                TableInfo(
                    index=len(report.tables),
                    header=first,
                    header_rows=next(header_rows),
                    columns=max(1, first.count(" | ") + 1),
                    rows=max(0, block.count("\n") - 1),
                    caption=caption,
                    start=offset,
                    end=offset + len(block),
                )
            )
        offset += len(block) + 2
    report.tables_found = len(report.tables)
