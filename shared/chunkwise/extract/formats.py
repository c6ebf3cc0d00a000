"""The format registry: the one table that says which formats chunkwise reads.

Each `FormatSpec` names a format's extensions, MIME types, the rule that
recognises its bytes, its reader, the libraries that reader needs (their
versions go into the report) and the limits that bound it. Everything else is
derived from `REGISTRY`, and nothing else names a format's extensions (a unit
test greps the package for them):

- dispatch: `chunkwise.extract.extract` sniffs (extract/sniff.py applies the
  rules in table order) and calls the spec's reader;
- the accepted suffixes of the ingest pipeline (`accepted_suffixes`;
  settings.py and ingest/pipeline.py read them from here);
- the formats named by `chunkwise extract --help` / `chunkwise chunk --help`
  (`formats_sentence`);
- the table in samdocs/extraction.md and the list in README.md (`docs_table`,
  `readme_list`, printed by ``python -m chunkwise.extract`` and pasted
  between their markers; a test keeps them equal).

Adding a format: a `DocFormat` member, one `FormatSpec` row here, one reader
module implementing `Reader` (``def read_x(data: bytes, ctx: ReadContext) -> str``).
A spec without a reader is recognised and refused with its ``refusal``, so a
legacy .doc gets a typed error that says what to convert it to.

Rules, applied in table order (the first match wins; more specific rows first):

- `Magic`: a signature at offset 0, or anywhere in the first ``within`` bytes;
- `ZipRule`: a ZIP container (extract/containers.py guards it first) with all
  of ``members`` (a name ending in ``/``: any member under it), optionally a
  ``mimetype`` member with this content (OpenDocument, EPUB) and a
  ``[Content_Types].xml`` mentioning ``content_type`` (OOXML flavours);
- `Ole2Rule`: a legacy OLE2 compound file with one of these directory entries;
- `TextRule`: bytes that decode as text, told apart by extension or, with
  ``content``, by how the text starts; ``byte_limit`` names the limit checked
  before decoding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from importlib import metadata

from . import readers
from .context import Reader
from .errors import UnsupportedFormat
from .model import DocFormat

# ----------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Magic:
    signature: bytes
    within: int = 0  # 0: at offset 0; N: anywhere in the first N bytes


@dataclass(frozen=True)
class ZipRule:
    members: tuple[str, ...]
    mimetype: str | None = None
    content_type: str | None = None


@dataclass(frozen=True)
class Ole2Rule:
    streams: tuple[str, ...]


@dataclass(frozen=True)
class TextRule:
    content: re.Pattern[bytes] | None = None
    byte_limit: str = "max_text_bytes"


Rule = Magic | ZipRule | Ole2Rule | TextRule

# ----------------------------------------------------------------------------- specs


@dataclass(frozen=True)
class FormatSpec:
    format: DocFormat
    name: str  # as a person names it: "XLSX", "Markdown"
    description: str
    extensions: tuple[str, ...]
    mime_types: tuple[str, ...]
    rule: Rule
    reader: Reader | None  # None: refused (`refusal` says why)
    libraries: tuple[str, ...] = ()
    limits: tuple[str, ...] = ()
    refusal: str = ""  # why a format without a reader is refused, and what to do

    def load_reader(self) -> Reader:
        if self.reader is None:
            raise UnsupportedFormat(f"content is {self.description}: {self.refusal}")
        return self.reader


@dataclass(frozen=True)
class Registry:
    specs: tuple[FormatSpec, ...]
    _by_format: dict[DocFormat, FormatSpec] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        seen: dict[str, DocFormat] = {}
        for spec in self.specs:
            for ext in spec.extensions:
                if not re.fullmatch(r"\.[a-z0-9]+", ext) or ext in seen:
                    raise ValueError(f"extension {ext!r} of {spec.format} is malformed or taken")
                seen[ext] = spec.format
        object.__setattr__(self, "_by_format", {s.format: s for s in self.specs})
        if len(self._by_format) != len(self.specs):
            raise ValueError("a format is registered twice")

    def spec(self, fmt: DocFormat) -> FormatSpec:
        return self._by_format[fmt]

    def by_extension(self, ext: str) -> FormatSpec | None:
        return next((s for s in self.specs if ext.lower() in s.extensions), None)

    def with_spec(self, spec: FormatSpec, *, before: DocFormat | None = None) -> Registry:
        """A copy with one more format (tests; a deployment's own format)."""
        specs = list(self.specs)
        at = len(specs) if before is None else [s.format for s in specs].index(before)
        specs.insert(at, spec)
        return replace(self, specs=tuple(specs))

    def suffixes(self) -> tuple[str, ...]:
        """Every registered extension: the ingest pipeline hands these to extraction
        (a refused format too, so its error says what to convert it to)."""
        return tuple(ext for s in self.specs for ext in s.extensions)

    def read_formats(self) -> list[FormatSpec]:
        return [s for s in self.specs if s.reader is not None]

    def formats_sentence(self) -> str:
        names = list(dict.fromkeys(s.name for s in self.read_formats()))
        return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0]

    def libraries(self, fmt: DocFormat) -> dict[str, str]:
        out = {"chunkwise": _version("chunkwise")}
        for name in self.spec(fmt).libraries:
            out[name] = _version(name)
        return out

    def docs_table(self) -> str:
        lines = [
            "| format | extensions | MIME types | recognised by | read with | limits |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for s in self.specs:
            read = ", ".join(s.libraries) or "standard library"
            if s.reader is None:
                read = f"refused: {s.refusal}"
            lines.append(
                f"| {s.name} | {' '.join(f'`{e}`' for e in s.extensions)} | "
                f"{'<br>'.join(s.mime_types)} | {describe_rule(s.rule)} | {read} | "
                f"{', '.join(f'`{n}`' for n in s.limits) or '-'} |"
            )
        return "\n".join(lines)


    def readme_list(self) -> str:
        """The formats as the README lists them: read ones, then the refused ones."""
        read = [
            f"- {s.name} ({', '.join(f'`{e}`' for e in s.extensions)})" for s in self.read_formats()
        ]
        refused = [
            f"- {s.name} ({', '.join(f'`{e}`' for e in s.extensions)}): recognised and refused, "
            f"{s.refusal}"
            for s in self.specs
            if s.reader is None
        ]
        return "\n".join(read + refused)


def generated_block(text: str, name: str) -> str:
    """The part of a document between ``<!-- name:begin -->`` and ``<!-- name:end -->``."""
    begin, end = f"<!-- {name}:begin -->\n", f"\n<!-- {name}:end -->"
    start = text.index(begin) + len(begin)
    return text[start : text.index(end, start)]


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def describe_rule(rule: Rule) -> str:
    if isinstance(rule, Magic):
        where = f"in the first {rule.within} bytes" if rule.within else "at offset 0"
        return f"`{rule.signature.decode('latin-1')}` {where}"
    if isinstance(rule, ZipRule):
        parts = ["ZIP with " + " and ".join(f"`{m}`" for m in rule.members)]
        if rule.mimetype:
            parts.append(f"`mimetype` = `{rule.mimetype}`")
        if rule.content_type:
            parts.append(f"content type `{rule.content_type}`")
        return ", ".join(parts)
    if isinstance(rule, Ole2Rule):
        return "OLE2 with stream " + " or ".join(f"`{s}`" for s in rule.streams)
    return "text, by its start or extension" if rule.content else "text, by extension"


# ----------------------------------------------------------------------------- the table

_HTML_START = re.compile(
    rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b",
    re.IGNORECASE | re.DOTALL,
)
_OOXML = "[Content_Types].xml"
_ODF = "application/vnd.oasis.opendocument."
_OOXML_MIME = "application/vnd.openxmlformats-officedocument."
_CONVERT = "convert it with `libreoffice --headless --convert-to {0} FILE` and upload the .{0}"
_PDF_LIBS = ("pdfplumber", "pdfminer.six", "pypdfium2")
_SHEET_LIMITS = (
    "max_table_rows",
    "max_table_columns",
    "max_cells",
    "max_cell_chars",
    "max_sheets",
)
_SLIDE_LIMITS = ("max_pages", "max_table_rows", "max_table_columns", "max_cell_chars")
_ZIP_LIMITS = (
    "max_zip_members",
    "max_member_bytes",
    "max_decompressed_bytes",
    "max_compression_ratio",
    "max_zip_depth",
)


SPECS: tuple[FormatSpec, ...] = (
    FormatSpec(
        DocFormat.PDF,
        "PDF",
        "a PDF document",
        extensions=(".pdf",),
        mime_types=("application/pdf",),
        rule=Magic(b"%PDF-", within=1024),
        reader=readers.read_pdf,
        libraries=_PDF_LIBS,
        limits=("max_pages", "max_ocr_pages", "max_seconds"),
    ),
    FormatSpec(
        DocFormat.DOCX,
        "DOCX",
        "a Word document (DOCX)",
        extensions=(".docx",),
        mime_types=(_OOXML_MIME + "wordprocessingml.document",),
        rule=ZipRule((_OOXML, "word/")),
        reader=readers.read_docx,
        libraries=("python-docx", "lxml"),
        limits=_ZIP_LIMITS,
    ),
    FormatSpec(
        DocFormat.XLSM,
        "XLSM",
        "a macro-enabled Excel workbook (XLSM)",
        extensions=(".xlsm",),
        mime_types=("application/vnd.ms-excel.sheet.macroEnabled.12",),
        rule=ZipRule((_OOXML, "xl/"), content_type="sheet.macroEnabled.main+xml"),
        reader=readers.read_xlsx,
        libraries=("openpyxl", "et-xmlfile", "defusedxml"),
        limits=_ZIP_LIMITS + _SHEET_LIMITS,
    ),
    FormatSpec(
        DocFormat.XLSX,
        "XLSX",
        "an Excel workbook (XLSX)",
        extensions=(".xlsx",),
        mime_types=(_OOXML_MIME + "spreadsheetml.sheet",),
        rule=ZipRule((_OOXML, "xl/")),
        reader=readers.read_xlsx,
        libraries=("openpyxl", "et-xmlfile", "defusedxml"),
        limits=_ZIP_LIMITS + _SHEET_LIMITS,
    ),
    FormatSpec(
        DocFormat.PPTX,
        "PPTX",
        "a PowerPoint presentation (PPTX)",
        extensions=(".pptx",),
        mime_types=(_OOXML_MIME + "presentationml.presentation",),
        rule=ZipRule((_OOXML, "ppt/")),
        reader=readers.read_pptx,
        libraries=("python-pptx", "lxml"),
        limits=_ZIP_LIMITS + _SLIDE_LIMITS,
    ),
    FormatSpec(
        DocFormat.ODT,
        "ODT",
        "an OpenDocument text (ODT)",
        extensions=(".odt",),
        mime_types=(_ODF + "text",),
        rule=ZipRule(("mimetype",), mimetype=_ODF + "text"),
        reader=readers.read_odt,
        libraries=("lxml",),
        limits=_ZIP_LIMITS + _SLIDE_LIMITS[1:],
    ),
    FormatSpec(
        DocFormat.ODS,
        "ODS",
        "an OpenDocument spreadsheet (ODS)",
        extensions=(".ods",),
        mime_types=(_ODF + "spreadsheet",),
        rule=ZipRule(("mimetype",), mimetype=_ODF + "spreadsheet"),
        reader=readers.read_ods,
        libraries=("lxml",),
        limits=_ZIP_LIMITS + _SHEET_LIMITS,
    ),
    FormatSpec(
        DocFormat.ODP,
        "ODP",
        "an OpenDocument presentation (ODP)",
        extensions=(".odp",),
        mime_types=(_ODF + "presentation",),
        rule=ZipRule(("mimetype",), mimetype=_ODF + "presentation"),
        reader=readers.read_odp,
        libraries=("lxml",),
        limits=_ZIP_LIMITS + _SLIDE_LIMITS,
    ),
    FormatSpec(
        DocFormat.EPUB,
        "EPUB",
        "an EPUB e-book",
        extensions=(".epub",),
        mime_types=("application/epub+zip",),
        rule=ZipRule(("mimetype",), mimetype="application/epub+zip"),
        reader=readers.read_epub,
        libraries=("lxml",),
        limits=(*_ZIP_LIMITS, "max_html_bytes"),
    ),
    FormatSpec(
        DocFormat.XLS,
        "XLS",
        "a legacy Excel 97-2003 workbook (XLS)",
        extensions=(".xls",),
        mime_types=("application/vnd.ms-excel",),
        rule=Ole2Rule(("Workbook", "Book")),
        reader=readers.read_xls,
        libraries=("xlrd",),
        limits=_SHEET_LIMITS,
    ),
    FormatSpec(
        DocFormat.DOC,
        "DOC",
        "a legacy Word 97-2003 document (DOC)",
        extensions=(".doc",),
        mime_types=("application/msword",),
        rule=Ole2Rule(("WordDocument",)),
        reader=None,
        refusal="the binary .doc format is not read; " + _CONVERT.format("docx"),
    ),
    FormatSpec(
        DocFormat.PPT,
        "PPT",
        "a legacy PowerPoint 97-2003 presentation (PPT)",
        extensions=(".ppt",),
        mime_types=("application/vnd.ms-powerpoint",),
        rule=Ole2Rule(("PowerPoint Document",)),
        reader=None,
        refusal="the binary .ppt format is not read; " + _CONVERT.format("pptx"),
    ),
    FormatSpec(
        DocFormat.HTML,
        "HTML",
        "an HTML page",
        extensions=(".html", ".htm", ".xhtml"),
        mime_types=("text/html", "application/xhtml+xml"),
        rule=TextRule(_HTML_START, byte_limit="max_html_bytes"),
        reader=readers.read_html,
        libraries=("lxml",),
        limits=("max_html_bytes",),
    ),
    FormatSpec(
        DocFormat.MARKDOWN,
        "Markdown",
        "a Markdown text",
        extensions=(".md", ".markdown", ".mdown", ".mkd"),
        mime_types=("text/markdown",),
        rule=TextRule(),
        reader=readers.read_markdown,
        limits=("max_text_bytes",),
    ),
    FormatSpec(
        DocFormat.CSV,
        "CSV",
        "a CSV table",
        extensions=(".csv",),
        mime_types=("text/csv",),
        rule=TextRule(),
        reader=readers.read_csv,
        limits=("max_text_bytes", *_SHEET_LIMITS[:4]),
    ),
    FormatSpec(
        DocFormat.TSV,
        "TSV",
        "a tab-separated table (TSV)",
        extensions=(".tsv", ".tab"),
        mime_types=("text/tab-separated-values",),
        rule=TextRule(),
        reader=readers.read_tsv,
        limits=("max_text_bytes", *_SHEET_LIMITS[:4]),
    ),
    FormatSpec(
        DocFormat.TEXT,
        "plain text",
        "plain text",
        extensions=(".txt", ".text"),
        mime_types=("text/plain",),
        rule=TextRule(),
        reader=readers.read_text,
        limits=("max_text_bytes",),
    ),
)

REGISTRY = Registry(SPECS)


def accepted_suffixes() -> tuple[str, ...]:
    """The object suffixes the ingest pipeline hands to extraction."""
    return REGISTRY.suffixes()


def formats_sentence() -> str:
    """ "PDF, DOCX, ... or plain text": the formats `--help` names."""
    return REGISTRY.formats_sentence()
