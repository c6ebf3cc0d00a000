"""Amazon Textract adapter for the OCR port (chunkwise.extract.ocr.OcrPort).

Synchronous DetectDocumentText on one rendered page: it accepts PNG bytes up
to 10 MB, which the extractor's bounded render size stays below. Lines come
back in Textract's reading order; they are joined with newlines and no
structure is guessed from them (the extractor puts the text under a
"(transcribed" heading so the chunker quarantines it).
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from chunkwise.errors import PermanentError, TransientError

# Textract's synchronous API limit for one document image.
MAX_IMAGE_BYTES = 10 * 1024 * 1024
_RETRYABLE = {
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "InternalServerError",
    "LimitExceededException",
}


class TextractOcr:
    """OcrPort backed by `textract:DetectDocumentText`."""

    def __init__(self, client: Any) -> None:
        self._client = client  # a boto3 "textract" client; retries come from its config

    def transcribe(self, page_image_png: bytes, page_number: int) -> str:
        if len(page_image_png) > MAX_IMAGE_BYTES:
            raise PermanentError(
                f"page {page_number}: rendered image of {len(page_image_png)} bytes is over "
                f"Textract's {MAX_IMAGE_BYTES}-byte limit"
            )
        try:
            response = self._client.detect_document_text(Document={"Bytes": page_image_png})
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            message = f"page {page_number}: Textract {code}: {exc}"
            if code in _RETRYABLE:
                raise TransientError(message) from exc
            raise PermanentError(message) from exc
        except BotoCoreError as exc:  # connection errors, timeouts
            raise TransientError(f"page {page_number}: Textract unreachable: {exc}") from exc
        lines = [
            block.get("Text", "")
            for block in response.get("Blocks", [])
            if block.get("BlockType") == "LINE"
        ]
        return "\n".join(line for line in lines if line.strip())


def textract_ocr(region: str | None = None) -> TextractOcr:
    """A TextractOcr with a standard-mode retrying boto3 client (lazy import)."""
    import boto3
    from botocore.config import Config

    config = Config(retries={"mode": "standard", "max_attempts": 5})
    return TextractOcr(boto3.client("textract", region_name=region or None, config=config))
