"""The `Reader` entry point of every format the registry (extract/formats.py) reads.

Each imports its reader module when it is first called, with a plain import
statement: a Lambda that reads PDFs never loads openpyxl, and every import stays
visible in the source. PDF and DOCX keep their own signatures (their packages are
large and change on their own); these functions adapt them to
``(data, ctx) -> str``. HTML, Markdown and plain text get the text the dispatcher
decoded (``ctx.text``).
"""

from __future__ import annotations

from chunkwise.canonical import table_headers

from .context import ReadContext
from .markdown import extract_markdown
from .tables import table_infos
from .text import extract_text


def read_pdf(data: bytes, ctx: ReadContext) -> str:
    from .pdf import extract_pdf

    return extract_pdf(
        data, report=ctx.report, limits=ctx.limits, ocr=ctx.ocr, deadline=ctx.deadline
    )


def read_docx(data: bytes, ctx: ReadContext) -> str:
    from .docx import extract_docx

    return extract_docx(data, report=ctx.report, limits=ctx.limits)


def read_xlsx(data: bytes, ctx: ReadContext) -> str:
    from .xlsx import read_xlsx as read

    return read(data, ctx)


def read_xls(data: bytes, ctx: ReadContext) -> str:
    from .xls import read_xls as read

    return read(data, ctx)


def read_pptx(data: bytes, ctx: ReadContext) -> str:
    from .pptx import read_pptx as read

    return read(data, ctx)


def read_odt(data: bytes, ctx: ReadContext) -> str:
    from .odt import read_odt as read

    return read(data, ctx)


def read_ods(data: bytes, ctx: ReadContext) -> str:
    from .ods import read_ods as read

    return read(data, ctx)


def read_odp(data: bytes, ctx: ReadContext) -> str:
    from .odp import read_odp as read

    return read(data, ctx)


def read_epub(data: bytes, ctx: ReadContext) -> str:
    from .epub import read_epub as read

    return read(data, ctx)


def read_csv(data: bytes, ctx: ReadContext) -> str:
    from .delimited import read_csv as read

    return read(data, ctx)


def read_tsv(data: bytes, ctx: ReadContext) -> str:
    from .delimited import read_tsv as read

    return read(data, ctx)


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
