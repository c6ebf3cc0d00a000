"""OCR port: fills pages that have no text layer (Amazon Textract in AWS)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class OcrPort(Protocol):
    """Turns one rendered page (PNG bytes) into plain text.

    Implementations raise chunkwise.errors.TransientError for throttling or
    outages (the message is retried) and PermanentError for pages that can
    never be read. Returning "" means "no text found".
    """

    def transcribe(self, page_image_png: bytes, page_number: int) -> str: ...
