"""boto3 adapter of the S3 port: the current version of a key (HEAD without VersionId).

Reconcile asks S3, not the event, which version is current (DESIGN section 4).
boto3 is imported lazily; the client honours AWS_ENDPOINT_URL (LocalStack/moto).
"""

from __future__ import annotations

import importlib
from datetime import UTC, datetime
from typing import Any

from chunkwise.errors import PermanentError, TransientError
from chunkwise.index.bodies import ObjectVersion

# Error codes shared by the S3/SQS adapters (here and in chunkwise.wiring).
OBJECT_MISSING = frozenset({"404", "NoSuchKey", "NotFound", "NoSuchVersion"})
TRANSIENT_CODES = frozenset(
    {
        "500",
        "502",
        "503",
        "504",
        "SlowDown",
        "InternalError",
        "RequestTimeout",
        "ServiceUnavailable",
    }
)


def boto_client(service: str, client: Any | None = None) -> Any:
    """``client`` if given, else a boto3 client with botocore's standard retries."""
    if client is not None:
        return client
    boto3 = importlib.import_module("boto3")
    config = importlib.import_module("botocore.config")
    return boto3.client(
        service, config=config.Config(retries={"mode": "standard", "max_attempts": 5})
    )


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=UTC)
        return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return str(value or "")


class BotoS3:
    """S3Port over boto3 for one bucket."""

    def __init__(self, bucket: str, client: Any | None = None) -> None:
        self.bucket = bucket
        self.client = boto_client("s3", client)

    def head_current(self, key: str) -> ObjectVersion | None:
        exceptions = importlib.import_module("botocore.exceptions")
        try:
            resp = self.client.head_object(Bucket=self.bucket, Key=key)
        except exceptions.ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in OBJECT_MISSING:
                return None
            if code in TRANSIENT_CODES:
                raise TransientError(f"s3 head {self.bucket}/{key}: {code}") from exc
            raise PermanentError(f"s3 head {self.bucket}/{key}: {code}: {exc}") from exc
        except (exceptions.EndpointConnectionError, exceptions.ConnectionError) as exc:
            raise TransientError(f"s3 head {self.bucket}/{key}: {exc}") from exc
        if resp.get("DeleteMarker"):
            return None
        return object_version(self.bucket, key, resp, size_field="ContentLength")


def object_version(bucket: str, key: str, entry: Any, *, size_field: str) -> ObjectVersion:
    """An ObjectVersion from a HeadObject response or a ListObjectVersions entry."""
    return ObjectVersion(
        last_modified=_iso(entry.get("LastModified")),
        version_id=str(entry.get("VersionId") or "null"),
        key=key,
        bucket=bucket,
        etag=str(entry.get("ETag", "")),
        size=int(entry.get(size_field, 0)),
    )
