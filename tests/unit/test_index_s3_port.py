"""The boto3 S3 port against botocore's Stubber (no network)."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest
from botocore.stub import Stubber

from chunkwise.adapters.s3 import S3Bucket
from chunkwise.errors import TransientError


def _client() -> object:
    return boto3.client(
        "s3", region_name="eu-central-1", aws_access_key_id="t", aws_secret_access_key="t"
    )


def test_head_current_versions_missing_and_errors() -> None:
    client = _client()
    port = S3Bucket("b", client)
    with Stubber(client) as stub:  # type: ignore[arg-type]
        stub.add_response(
            "head_object",
            {
                "VersionId": "v2",
                "ETag": '"abc"',
                "ContentLength": 5,
                "LastModified": datetime(2025, 1, 2, tzinfo=UTC),
            },
            {"Bucket": "b", "Key": "dir/ä ö.md"},
        )
        v = port.head_current("dir/ä ö.md")
        assert (
            v is not None and v.revision == "v2" and v.last_modified == "2025-01-02T00:00:00.000Z"
        )
        stub.add_response("head_object", {"ETag": '"e1"', "LastModified": datetime(2025, 1, 1)})
        unversioned = port.head_current("k")
        assert unversioned is not None and unversioned.revision == "etag-e1"
        stub.add_client_error("head_object", "404", "Not Found", 404)
        assert port.head_current("gone") is None
        stub.add_client_error("head_object", "503", "Slow", 503)
        with pytest.raises(TransientError):
            port.head_current("k")
