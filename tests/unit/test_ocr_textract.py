"""Textract OCR adapter against botocore's Stubber (no network)."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from chunkwise.adapters.textract import MAX_IMAGE_BYTES, TextractOcr
from chunkwise.errors import PermanentError, TransientError
from chunkwise.extract.ocr import OcrPort

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _client() -> object:
    return boto3.client(
        "textract", region_name="eu-central-1", aws_access_key_id="x", aws_secret_access_key="x"
    )


def test_lines_in_reading_order_and_port_conformance() -> None:
    client = _client()
    ocr = TextractOcr(client)
    assert isinstance(ocr, OcrPort)
    with Stubber(client) as stub:
        stub.add_response(
            "detect_document_text",
            {
                "Blocks": [
                    {"BlockType": "PAGE", "Id": "p"},
                    {"BlockType": "LINE", "Id": "1", "Text": "Rechnung Nr. 5"},
                    {"BlockType": "WORD", "Id": "w", "Text": "Rechnung"},
                    {"BlockType": "LINE", "Id": "2", "Text": "Betrag: 12,50 €"},
                ]
            },
            {"Document": {"Bytes": PNG}},
        )
        assert ocr.transcribe(PNG, 3) == "Rechnung Nr. 5\nBetrag: 12,50 €"


@pytest.mark.parametrize(
    "code,error",
    [("ThrottlingException", TransientError), ("InvalidParameterException", PermanentError)],
)
def test_errors_are_typed(code: str, error: type[Exception]) -> None:
    client = _client()
    with Stubber(client) as stub:
        stub.add_client_error("detect_document_text", service_error_code=code)
        with pytest.raises(error, match=f"page 7: Textract {code}"):
            TextractOcr(client).transcribe(PNG, 7)


def test_oversized_page_image_is_rejected_before_any_call() -> None:
    client = _client()
    with Stubber(client), pytest.raises(PermanentError, match="over Textract"):
        TextractOcr(client).transcribe(b"x" * (MAX_IMAGE_BYTES + 1), 1)
