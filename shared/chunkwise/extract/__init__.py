"""Extraction: document bytes -> canonical text + report.

Step 5 of one upload (samdocs/architecture.md); the grammar: "The canonical text".

    from chunkwise.extract import extract
    result = extract(data, filename="manual.pdf")
    result.text            # canonical markdown-like text; chunk offsets refer to it
    result.report_json()   # format, pages, tables, pages without text, warnings, ...
    result.content_sha256  # sha256 of result.text (UTF-8)

The format is detected from the bytes (magic numbers); the file name only
breaks ties between text formats. Heavy parsers are imported lazily, so plain
text and Markdown need no optional dependency.
"""

from __future__ import annotations

import re
import time
from importlib import metadata

from chunkwise.canonical import table_headers

from .errors import (
    CorruptDocument,
    EmptyDocument,
    EncryptedDocument,
    ExtractionError,
    LimitExceeded,
    UnsupportedEncoding,
    UnsupportedFormat,
)
from .limits import ExtractLimits
from .markdown import extract_markdown
from .model import (
    CANONICAL_VERSION,
    DocFormat,
    Extraction,
    ExtractionReport,
    TableInfo,
    sha256_bytes,
    sha256_text,
)
from .ocr import OcrPort
from .sniff import sniff, text_kind
from .text import decode_text, extract_text

__all__ = [
    "CANONICAL_VERSION",
    "CorruptDocument",
    "DocFormat",
    "EmptyDocument",
    "EncryptedDocument",
    "ExtractLimits",
    "Extraction",
    "ExtractionError",
    "ExtractionReport",
    "LimitExceeded",
    "OcrPort",
    "TableInfo",
    "UnsupportedEncoding",
    "UnsupportedFormat",
    "extract",
]

_LIBRARIES: dict[DocFormat, tuple[str, ...]] = {
    DocFormat.HTML: ("lxml",),
    DocFormat.DOCX: ("python-docx", "lxml"),
    DocFormat.PDF: ("pdfplumber", "pdfminer.six", "pypdfium2"),
}
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([A-Za-z0-9_\-]+)", re.IGNORECASE)


def _versions(fmt: DocFormat) -> dict[str, str]:
    out = {"chunkwise": _version("chunkwise")}
    for name in _LIBRARIES.get(fmt, ()):
        out[name] = _version(name)
    return out


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def _table_infos(text: str, headers: list[str]) -> list[TableInfo]:
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


def extract(
    data: bytes,
    *,
    filename: str | None = None,
    limits: ExtractLimits | None = None,
    ocr: OcrPort | None = None,
) -> Extraction:
    """Extract canonical text from document bytes.

    Raises an ExtractionError subclass (all PermanentError) with a `reason`:
    EmptyDocument, UnsupportedFormat, UnsupportedEncoding, EncryptedDocument,
    CorruptDocument, LimitExceeded.
    """
    limits = limits or ExtractLimits()
    deadline = time.monotonic() + limits.max_seconds
    if len(data) > limits.max_bytes:
        raise LimitExceeded("max_bytes", limits.max_bytes, len(data), "input too large")
    fmt = sniff(data, filename)
    report = ExtractionReport(
        format=fmt or DocFormat.TEXT,
        filename=filename,
        source_bytes=len(data),
        source_sha256=sha256_bytes(data),
    )
    if fmt is DocFormat.PDF:
        from .pdf import extract_pdf

        text = extract_pdf(data, report=report, limits=limits, ocr=ocr, deadline=deadline)
    elif fmt is DocFormat.DOCX:
        from .docx import extract_docx

        text = extract_docx(data, report=report, limits=limits)
    else:
        text = _extract_textual(data, filename, report, limits)
    if len(text) > limits.max_output_chars:
        raise LimitExceeded("max_output_chars", limits.max_output_chars, len(text))
    report.libraries = _versions(report.format)
    report.chars = len(text)
    report.content_sha256 = sha256_text(text)
    return Extraction(text=text, report=report, content_sha256=report.content_sha256)


def _extract_textual(
    data: bytes, filename: str | None, report: ExtractionReport, limits: ExtractLimits
) -> str:
    declared = None
    m = _META_CHARSET.search(data[:4096])
    if m:
        declared = m.group(1).decode("ascii", "replace").lower()
    # Size limits are checked before decoding/parsing, on a guess from the head.
    guess = text_kind(data, data[:4096].decode("utf-8", "replace"), filename)
    if guess is DocFormat.HTML and len(data) > limits.max_html_bytes:
        raise LimitExceeded("max_html_bytes", limits.max_html_bytes, len(data), "HTML too large")
    if guess is not DocFormat.HTML and len(data) > limits.max_text_bytes:
        raise LimitExceeded("max_text_bytes", limits.max_text_bytes, len(data), "text too large")
    text, encoding = decode_text(data, declared=declared)
    report.encoding = encoding
    if encoding == "cp1252":
        report.warnings.append(
            "not UTF-8: decoded as Windows-1252 by the strict legacy-encoding rule"
        )
    fmt = text_kind(data, text, filename)
    report.format = fmt
    if fmt is DocFormat.HTML:
        if len(data) > limits.max_html_bytes:
            raise LimitExceeded("max_html_bytes", limits.max_html_bytes, len(data))
        from .html import extract_html

        out, _ = extract_html(text)
    else:
        if len(data) > limits.max_text_bytes:
            raise LimitExceeded("max_text_bytes", limits.max_text_bytes, len(data))
        out = extract_markdown(text) if fmt is DocFormat.MARKDOWN else extract_text(text)
    headers = table_headers(out) if fmt is not DocFormat.TEXT else []
    report.tables = _table_infos(out, headers)
    report.tables_found = len(report.tables)
    return out
