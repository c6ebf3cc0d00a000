"""DOCX -> canonical text with python-docx, behind zip-bomb checks.

Before python-docx sees the bytes, the ZIP central directory is inspected:
member count, declared uncompressed size per member and in total, and the
compression ratio of each member are bounded (ExtractLimits). zipfile never
inflates a member past its declared size (it stops and fails the CRC check), so
bounding the declared sizes bounds memory. python-docx parses XML with
entity resolution off (no billion-laughs expansion).

Output: headings from the paragraph style (Title, Heading 1-9, or an outline
level), paragraphs, list items (List styles or numbering), tables as GFM (first
row = header, horizontally merged cells written once), a Caption paragraph
kept directly before its table (moved up when Word put it below).
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from .errors import (
    CorruptDocument,
    EmptyDocument,
    ExtractionError,
    LimitExceeded,
    UnsupportedFormat,
)
from .limits import ExtractLimits
from .model import ExtractionReport, TableInfo
from .tables import caption_paragraph, escape_paragraph, render_gfm

_HEADING = re.compile(r"^(?:heading|überschrift)\s*(\d)$", re.IGNORECASE)
_WS = re.compile(r"\s+")
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def check_container(data: bytes, limits: ExtractLimits) -> None:
    """Reject non-DOCX ZIPs and zip bombs from the central directory alone."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise CorruptDocument(f"not a readable ZIP container: {exc}") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_zip_members:
            raise LimitExceeded(
                "max_zip_members", limits.max_zip_members, len(infos), "too many ZIP entries"
            )
        names = {i.filename for i in infos}
        if "word/document.xml" not in names:
            kind = (
                "XLSX"
                if "xl/workbook.xml" in names
                else "PPTX"
                if "ppt/presentation.xml" in names
                else "ODF"
                if "mimetype" in names
                else "ZIP archive"
            )
            raise UnsupportedFormat(f"ZIP container is a {kind}, not a DOCX (no word/document.xml)")
        total = 0
        for info in infos:
            total += info.file_size
            if info.file_size > limits.max_member_bytes:
                raise LimitExceeded(
                    "max_member_bytes",
                    limits.max_member_bytes,
                    info.file_size,
                    f"{info.filename} would inflate to {info.file_size} bytes (zip bomb?)",
                )
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > 1_000_000 and ratio > limits.max_compression_ratio:
                raise LimitExceeded(
                    "max_compression_ratio",
                    limits.max_compression_ratio,
                    round(ratio),
                    f"{info.filename} compresses {ratio:.0f}:1 (zip bomb?)",
                )
        if total > limits.max_decompressed_bytes:
            raise LimitExceeded(
                "max_decompressed_bytes",
                limits.max_decompressed_bytes,
                total,
                "DOCX members inflate too much (zip bomb?)",
            )


def _text(value: str) -> str:
    return _WS.sub(" ", value).strip()


def _heading_level(paragraph: Any) -> int | None:
    style = paragraph.style
    names: list[str] = []
    while style is not None and len(names) < 5:
        names.append(str(style.name or ""))
        style = style.base_style
    for name in names:
        if name.lower() == "title":
            return 1
        m = _HEADING.match(name.strip())
        if m:
            return min(6, max(1, int(m.group(1))))
    ppr = paragraph._p.pPr
    if ppr is not None:
        lvl = ppr.find(f"{_W}outlineLvl")
        if lvl is not None:
            try:
                return min(6, int(lvl.get(f"{_W}val", "9")) + 1)
            except ValueError:
                return None
    return None


def _is_list(paragraph: Any) -> bool:
    name = str(paragraph.style.name or "") if paragraph.style is not None else ""
    if name.lower().startswith(("list", "liste", "aufzählung")):
        return True
    ppr = paragraph._p.pPr
    return ppr is not None and ppr.find(f"{_W}numPr") is not None


def _is_caption(paragraph: Any) -> bool:
    name = str(paragraph.style.name or "").lower() if paragraph.style is not None else ""
    return name in ("caption", "beschriftung")


def _table_rows(table: Any) -> list[list[str]]:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:
            key = id(cell._tc)
            cells.append("" if key in seen else _text(cell.text))
            seen.add(key)
        if any(c for c in cells):
            rows.append(cells)
    return rows


def extract_docx(data: bytes, *, report: ExtractionReport, limits: ExtractLimits) -> str:
    check_container(data, limits)
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(io.BytesIO(data))
    except ExtractionError:
        raise
    except Exception as exc:  # python-docx/lxml/zipfile raise many types
        raise CorruptDocument(f"DOCX could not be opened: {type(exc).__name__}: {exc}") from None

    blocks: list[str] = []
    kinds: list[str] = []
    try:
        content = list(document.iter_inner_content())
    except Exception as exc:
        raise CorruptDocument(f"DOCX body could not be read: {type(exc).__name__}: {exc}") from None
    pending_caption: str | None = None
    for element in content:
        if isinstance(element, Paragraph):
            text = _text(element.text)
            if not text:
                continue
            if _is_caption(element):
                if kinds and kinds[-1] == "table":
                    # Word put the caption below the table: move it above.
                    table_block = blocks.pop()
                    kinds.pop()
                    blocks += [caption_paragraph(text), table_block]
                    kinds += ["caption", "table"]
                else:
                    pending_caption = text
                continue
            if pending_caption is not None:
                blocks.append(pending_caption)
                kinds.append("para")
                pending_caption = None
            level = _heading_level(element)
            if level is not None:
                blocks.append("#" * level + " " + text)
                kinds.append("heading")
            elif _is_list(element):
                if kinds and kinds[-1] == "list":
                    blocks[-1] += "\n- " + text
                else:
                    blocks.append("- " + text)
                    kinds.append("list")
            else:
                blocks.append(escape_paragraph(text))
                kinds.append("para")
        elif isinstance(element, Table):
            rows = _table_rows(element)
            if pending_caption is not None:
                blocks.append(caption_paragraph(pending_caption))
                kinds.append("caption")
                pending_caption = None
            if rows:
                blocks.append(render_gfm(rows[0], rows[1:]))
                kinds.append("table")
    if pending_caption is not None:
        blocks.append(pending_caption)
        kinds.append("para")

    text = "\n\n".join(blocks)
    if not text.strip():
        raise EmptyDocument("the DOCX has no text in its body")
    offset = 0
    for idx, (block, kind) in enumerate(zip(blocks, kinds, strict=True)):
        if kind == "table":
            first = block.split("\n", 1)[0]
            body_rows = block.count("\n") - 1
            caption = ""
            if idx > 0 and kinds[idx - 1] == "caption":
                caption = blocks[idx - 1]
            report.tables.append(
                TableInfo(
                    index=len(report.tables),
                    header=first,
                    columns=max(1, first.count(" | ") + 1),
                    rows=max(0, body_rows),
                    caption=caption,
                    start=offset,
                    end=offset + len(block),
                )
            )
        offset += len(block) + 2
    report.tables_found = len(report.tables)
    return text + "\n"
