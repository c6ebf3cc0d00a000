"""Extraction: document bytes -> canonical text + report.

Step 5 of one upload (samdocs/architecture.md); the grammar: "The canonical text".

    from chunkwise.extract import extract
    result = extract(data, filename="manual.pdf")
    result.text            # canonical markdown-like text; chunk offsets refer to it
    result.report_json()   # format, pages, tables, pages without text, warnings, ...
    result.content_sha256  # sha256 of result.text (UTF-8)

The format is detected from the bytes (magic numbers, container members); the
file name only breaks ties between text formats. Which formats exist, how they
are recognised and which reader takes them is the format registry's
(extract/formats.py); this module only applies it. Heavy parsers are imported
lazily, so plain text and Markdown need no optional dependency.
"""

from __future__ import annotations

import re
import time

from .context import ReadContext, Reader
from .errors import (
    CorruptDocument,
    EmptyDocument,
    EncryptedDocument,
    ExtractionError,
    LimitExceeded,
    UnsupportedEncoding,
    UnsupportedFormat,
)
from .formats import REGISTRY, FormatSpec, Registry, TextRule
from .limits import ExtractLimits
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
from .sniff import identify, text_spec
from .text import decode_text

__all__ = [
    "CANONICAL_VERSION",
    "REGISTRY",
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
    "ReadContext",
    "Reader",
    "TableInfo",
    "UnsupportedEncoding",
    "UnsupportedFormat",
    "extract",
]

_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([A-Za-z0-9_\-]+)", re.IGNORECASE)


def extract(
    data: bytes,
    *,
    filename: str | None = None,
    limits: ExtractLimits | None = None,
    ocr: OcrPort | None = None,
    registry: Registry = REGISTRY,
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
    sniffed = identify(data, filename, registry=registry, limits=limits)
    report = ExtractionReport(
        format=sniffed.spec.format if sniffed.spec else DocFormat.TEXT,
        filename=filename,
        source_bytes=len(data),
        source_sha256=sha256_bytes(data),
    )
    ctx = ReadContext(
        report=report,
        limits=limits,
        deadline=deadline,
        filename=filename,
        ocr=ocr,
        container=sniffed.container,
    )
    if ctx.container is not None:
        ctx.container.verify()  # real sizes, before anything else reads a member
    spec = sniffed.spec or _decode_text(data, ctx, registry)
    text = spec.load_reader()(data, ctx)
    if len(text) > limits.max_output_chars:
        raise LimitExceeded("max_output_chars", limits.max_output_chars, len(text))
    report.libraries = registry.libraries(report.format)
    report.chars = len(text)
    report.content_sha256 = sha256_text(text)
    return Extraction(text=text, report=report, content_sha256=report.content_sha256)


def _decode_text(data: bytes, ctx: ReadContext, registry: Registry) -> FormatSpec:
    """Decode text once (size checked first, on a guess from the head) and tell
    which text format it is; the text goes to the reader in ``ctx.text``."""
    declared = None
    m = _META_CHARSET.search(data[:4096])
    if m:
        declared = m.group(1).decode("ascii", "replace").lower()
    guess = text_spec(data[:4096].decode("utf-8", "replace"), ctx.filename, registry)
    _check_text_bytes(guess, data, ctx.limits)
    text, encoding = decode_text(data, declared=declared)
    ctx.report.encoding = encoding
    if encoding == "cp1252":
        ctx.report.warnings.append(
            "not UTF-8: decoded as Windows-1252 by the strict legacy-encoding rule"
        )
    spec = text_spec(text, ctx.filename, registry)
    _check_text_bytes(spec, data, ctx.limits)
    ctx.report.format = spec.format
    ctx.text = text
    return spec


def _check_text_bytes(spec: FormatSpec, data: bytes, limits: ExtractLimits) -> None:
    limit = spec.rule.byte_limit if isinstance(spec.rule, TextRule) else "max_text_bytes"
    value = getattr(limits, limit)
    if len(data) > value:
        raise LimitExceeded(limit, value, len(data), f"{spec.name} too large")
