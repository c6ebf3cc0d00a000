"""A PDF's pages as canonical text: page anchors, headings, paragraphs, lists, tables.

Each page starts with its `## Page N` anchor; a page transcribed by OCR is a
`### Page N (transcribed by OCR)` section. A stitched table is written once,
where its first fragment is (no page anchors inside a table), and listed in
the report with its offsets, columns, rows and page range.
"""

from __future__ import annotations

import re

from chunkwise.canonical import escape_paragraph, page_anchor, transcribed_heading

from ..model import ExtractionReport, TableInfo
from ..tables import caption_paragraph, is_caption
from .items import PageContent
from .rows import WS
from .tables.stitch import StitchedTable

_LIST_MARKER = re.compile(r"^[-*+]\s")


def _render_ocr(text: str, number: int) -> str:
    paras = [WS.sub(" ", p).strip() for p in re.split(r"\n\s*\n", text.replace("\r", ""))]
    body = "\n\n".join(re.sub(r"^(#+)", r"\\\1", p) for p in paras if p)
    heading = transcribed_heading(number)
    return heading + ("\n\n" + body if body else "")


def _escape_list_marker(text: str) -> str:
    """A paragraph that starts like a Markdown list item ("* cell *") is not one."""
    return "\\" + text if _LIST_MARKER.match(text) else text


def render_pages(
    pages: list[PageContent],
    levels: dict[float, int],
    tables: dict[int, StitchedTable],
    report: ExtractionReport,
) -> str:
    blocks: list[str] = []
    offset = 0

    def add(block: str) -> int:
        nonlocal offset
        start = offset
        blocks.append(block)
        offset += len(block) + 2  # blocks are joined by "\n\n"
        return start

    for page in pages:
        add(page_anchor(page.number))
        if page.ocr_text is not None:
            add(_render_ocr(page.ocr_text, page.number))
            continue
        for i, it in enumerate(page.items):
            nxt = page.items[i + 1] if i + 1 < len(page.items) else None
            if it.kind == "heading":
                level = it.level or levels.get(round(it.size, 1), 3)
                add("#" * level + " " + it.text)
            elif it.kind == "item":
                bullet = "- " + it.text
                if blocks and blocks[-1].startswith("- ") and it.kind == "item":
                    blocks[-1] += "\n" + bullet
                    offset += len(bullet) + 1
                else:
                    add(bullet)
            elif it.kind == "para":
                if nxt is not None and nxt.kind == "table" and is_caption(it.text):
                    add(caption_paragraph(it.text))
                else:
                    add(escape_paragraph(_escape_list_marker(it.text)))
            elif it.kind == "table" and id(it) in tables:
                table = tables[id(it)]
                rendered = table.render()
                start = add(rendered)
                report.tables.append(
                    TableInfo(
                        index=len(report.tables),
                        header=table.header_line(),
                        columns=table.columns,
                        rows=len(table.rows),
                        caption=table.caption,
                        page_start=table.page_start,
                        page_end=table.page_end,
                        fragments=table.fragments,
                        repeated_headers_dropped=table.repeated_headers_dropped,
                        start=start,
                        end=start + len(rendered),
                    )
                )
    return "\n\n".join(blocks) + "\n"
