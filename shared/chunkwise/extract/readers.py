"""The `Reader` entry points of the formats read before the registry existed.

PDF and DOCX keep their own signatures (their modules are large and change on
their own); these functions adapt them to ``(data, ctx) -> str``. HTML,
Markdown and plain text get the text the dispatcher decoded (``ctx.text``).
"""

from __future__ import annotations

from chunkwise.canonical import table_headers

from .formats import ReadContext
from .markdown import extract_markdown
from .model import TableInfo
from .text import extract_text


def read_pdf(data: bytes, ctx: ReadContext) -> str:
    from .pdf import extract_pdf

    return extract_pdf(
        data, report=ctx.report, limits=ctx.limits, ocr=ctx.ocr, deadline=ctx.deadline
    )


def read_docx(data: bytes, ctx: ReadContext) -> str:
    from .docx import extract_docx

    return extract_docx(data, report=ctx.report, limits=ctx.limits)


def read_html(data: bytes, ctx: ReadContext) -> str:
    from .html import extract_html

    out, _ = extract_html(_decoded(ctx))
    _report_tables(out, ctx)
    return out


def read_markdown(data: bytes, ctx: ReadContext) -> str:
    out = extract_markdown(_decoded(ctx))
    _report_tables(out, ctx)
    return out


def read_text(data: bytes, ctx: ReadContext) -> str:
    return extract_text(_decoded(ctx))


def _decoded(ctx: ReadContext) -> str:
    if ctx.text is None:  # pragma: no cover - the dispatcher decodes every text format
        raise TypeError("a text reader was called without the decoded text")
    return ctx.text


def _report_tables(text: str, ctx: ReadContext) -> None:
    ctx.report.tables = table_infos(text, table_headers(text))
    ctx.report.tables_found = len(ctx.report.tables)


def table_infos(text: str, headers: list[str]) -> list[TableInfo]:
    """TableInfo for each GFM table of a non-paged text, located by its header."""
    infos: list[TableInfo] = []
    pos = 0
    for i, header in enumerate(headers):
        start = text.find(header + "\n", pos)
        if start < 0:
            continue
        end = text.find("\n\n", start)
        end = len(text.rstrip("\n")) if end < 0 else end
        block = text[start:end].split("\n")
        infos.append(
            TableInfo(
                index=i,
                header=header,
                columns=max(1, header.count(" | ") + 1),
                rows=max(0, len(block) - 2),
                start=start,
                end=end,
            )
        )
        pos = end
    return infos
