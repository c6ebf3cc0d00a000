"""Configurable bounds on what one extraction may consume."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MIB = 1024 * 1024


class ExtractLimits(BaseModel):
    """Limits checked before and during extraction.

    Defaults suit one Lambda invocation (a few GiB of memory, minutes of time).
    Every limit is checked *before* the expensive step where possible (bytes,
    declared zip member sizes, page count) and otherwise periodically (time).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_bytes: int = Field(default=100 * MIB, gt=0, description="size of the input object")
    max_text_bytes: int = Field(default=20 * MIB, gt=0, description="plain text / markdown input")
    max_html_bytes: int = Field(default=20 * MIB, gt=0, description="HTML input")
    max_pages: int = Field(default=2000, gt=0, description="PDF pages; slides of a deck")
    max_zip_members: int = Field(
        default=2000, gt=0, description="entries in a ZIP container (DOCX, XLSX, ODF, EPUB)"
    )
    max_decompressed_bytes: int = Field(
        default=200 * MIB,
        gt=0,
        description="ZIP container: members' uncompressed sizes, declared and real, summed",
    )
    max_member_bytes: int = Field(
        default=100 * MIB, gt=0, description="ZIP container: uncompressed size of one member"
    )
    max_compression_ratio: float = Field(
        default=200.0,
        gt=1.0,
        description="ZIP container: uncompressed/compressed size of a member and of the whole",
    )
    max_zip_depth: int = Field(
        default=1, ge=0, description="ZIP containers opened inside a ZIP container, nested"
    )
    max_table_rows: int = Field(
        default=200_000, gt=0, description="rows of one CSV/TSV file or one sheet"
    )
    max_table_columns: int = Field(
        default=512, gt=0, description="columns of one CSV/TSV file or one sheet"
    )
    max_cells: int = Field(
        default=5_000_000, gt=0, description="non-empty cells of one CSV/TSV file or workbook"
    )
    max_cell_chars: int = Field(
        default=32_767, gt=0, description="characters of one cell (Excel's own maximum)"
    )
    max_sheets: int = Field(default=500, gt=0, description="sheets of one workbook")
    max_output_chars: int = Field(default=50_000_000, gt=0, description="canonical text length")
    max_seconds: float = Field(default=600.0, gt=0, description="wall-clock budget")
    max_ocr_pages: int = Field(default=200, ge=0, description="pages sent to the OCR port")
