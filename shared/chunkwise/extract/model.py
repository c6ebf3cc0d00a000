"""Extraction result: canonical text plus a report that explains it."""

from __future__ import annotations

import hashlib
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

# Bump when the canonical text produced for the same input bytes changes
# (new table rendering, header/footer rules, ...). Stored with the text so a
# reader can tell which rules produced the offsets it cites.
# 2: a "#" line inside a paragraph is no longer escaped; Markdown gets a blank
#    line before a heading that interrupts a paragraph.
# 3: DOCX: all w:tblHeader rows in the header line, merged cells filled, Title
#    above Heading N, numbered headings and list items, content controls read,
#    tables of contents skipped; HTML: page banners, navigation containers and
#    layout tables are not content, header rows combined, rowspan repeated;
#    no-break spaces kept (DOCX, HTML, table cells).
# 4: PDF: words apart on pages with vector paths, headings by numbering and
#    font, tables without outer borders with all columns, code boxes as text,
#    "-s"/"-1" kept as data, (cid:NN) dropped, running headers matched across
#    readers, header frames joined to their tables.
# 5: CSV/TSV read as one table (they were plain text); XLSX/XLSM/XLS read.
# 6: PPTX and ODP read as ``## Slide N`` sections, ODT, ODS and EPUB read
#    (they were refused).
CANONICAL_VERSION = 6


class DocFormat(StrEnum):
    """Every format the registry (extract/formats.py) knows, read or refused."""

    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"
    DOCX = "docx"
    PDF = "pdf"
    CSV = "csv"
    TSV = "tsv"
    XLSX = "xlsx"
    XLSM = "xlsm"
    XLS = "xls"
    PPTX = "pptx"
    ODT = "odt"
    ODS = "ods"
    ODP = "odp"
    EPUB = "epub"
    DOC = "doc"
    PPT = "ppt"


class TableInfo(BaseModel):
    """One table of the canonical text (after stitching)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(ge=0)
    header: str = Field(description="the GFM header line exactly as in the text")
    header_rows: int = Field(
        default=1,
        ge=0,
        description="source rows combined into the header line (0: none, columns named "
        "Column 1..n)",
    )
    columns: int = Field(ge=1)
    rows: int = Field(ge=0, description="data rows, header excluded")
    caption: str = ""
    sheet: str | None = Field(default=None, description="the sheet it is on (spreadsheets)")
    page_start: int | None = None
    page_end: int | None = None
    fragments: int = Field(default=1, ge=1, description="pieces stitched into this table")
    repeated_headers_dropped: int = Field(default=0, ge=0)
    start: int = Field(ge=0, description="code-point offset of the table in the text")
    end: int = Field(ge=0)


class SheetInfo(BaseModel):
    """One sheet of a workbook: what was read and what was left out."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    state: str = Field(default="visible", description="visible, hidden or veryHidden")
    read: bool = Field(description="False: a hidden sheet or a chart sheet, not in the text")
    rows: int = Field(default=0, ge=0, description="non-empty visible rows read")
    columns: int = Field(default=0, ge=0, description="visible columns spanned")
    tables: int = Field(default=0, ge=0)
    hidden_rows: int = Field(default=0, ge=0)
    hidden_columns: int = Field(default=0, ge=0)
    charts: int = Field(default=0, ge=0, description="charts on the sheet (not read)")
    images: int = Field(default=0, ge=0, description="pictures on the sheet (not read)")


class SlideInfo(BaseModel):
    """One slide of a deck: what was read and what was only counted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    number: int = Field(ge=1, description="the slide's number in the deck, hidden ones counted")
    title: str = ""
    read: bool = Field(description="False: a hidden slide, not in the text")
    tables: int = Field(default=0, ge=0)
    notes: bool = Field(default=False, description="speaker notes read (under #### Notes)")
    charts: int = Field(default=0, ge=0, description="charts (not read)")
    images: int = Field(default=0, ge=0, description="pictures (not read)")
    media: int = Field(default=0, ge=0, description="audio and video (not read)")
    other: int = Field(default=0, ge=0, description="other objects: OLE, diagrams (not read)")


class ExtractionReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    canonical_version: int = CANONICAL_VERSION
    format: DocFormat
    filename: str | None = None
    source_bytes: int = Field(ge=0)
    source_sha256: str
    content_sha256: str = ""
    chars: int = 0
    encoding: str | None = None
    pages: int | None = None
    pages_without_text: list[int] = Field(default_factory=list)
    ocr_pages: list[int] = Field(default_factory=list)
    tables_found: int = Field(default=0, description="table fragments detected before stitching")
    tables_stitched: int = Field(default=0, description="tables assembled from >1 fragment")
    tables: list[TableInfo] = Field(default_factory=list)
    headers_footers_removed: int = 0
    page_readers: dict[str, int] = Field(
        default_factory=dict,
        description="PDF pages read by PDFium (no vector paths) and by pdfplumber (tables)",
    )
    structure: str | None = Field(
        default=None,
        description="PDF: whether a tagged PDF's structure tree or the layout decided its"
        " headings and page furniture, and why",
    )
    sheets: list[SheetInfo] = Field(default_factory=list, description="spreadsheets")
    slides: list[SlideInfo] = Field(default_factory=list, description="slide decks")
    dialect: str | None = Field(
        default=None, description="CSV/TSV: delimiter, quote character and header row found"
    )
    warnings: list[str] = Field(default_factory=list)
    libraries: dict[str, str] = Field(default_factory=dict)


class Extraction(BaseModel):
    """Canonical text (what chunk offsets refer to) + report + content hash."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    report: ExtractionReport
    content_sha256: str

    def report_json(self) -> str:
        return self.report.model_dump_json(indent=2)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
