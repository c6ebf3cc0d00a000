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
    max_pages: int = Field(default=2000, gt=0, description="PDF pages")
    max_zip_members: int = Field(default=2000, gt=0, description="entries in a DOCX container")
    max_decompressed_bytes: int = Field(
        default=200 * MIB, gt=0, description="sum of declared uncompressed DOCX member sizes"
    )
    max_member_bytes: int = Field(
        default=100 * MIB, gt=0, description="declared uncompressed size of one DOCX member"
    )
    max_compression_ratio: float = Field(
        default=200.0, gt=1.0, description="uncompressed/compressed size of one DOCX member"
    )
    max_output_chars: int = Field(default=50_000_000, gt=0, description="canonical text length")
    max_seconds: float = Field(default=600.0, gt=0, description="wall-clock budget")
    max_ocr_pages: int = Field(default=200, ge=0, description="pages sent to the OCR port")
