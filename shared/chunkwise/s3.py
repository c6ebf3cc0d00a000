"""boto3 adapter of the S3 port: the current version of a key (HEAD without VersionId).

Reconcile asks S3, not the event, which version is current (DESIGN section 4).
boto3 is imported lazily; the client honours AWS_ENDPOINT_URL (LocalStack/moto).
"""

from __future__ import annotations

import importlib
from datetime import UTC, datetime
from typing import Any

from chunkwise.errors import PermanentError, TransientError
from chunkwise.index import ObjectVersion

_MISSING = frozenset({"404", "NoSuchKey", "NotFound", "NoSuchVersion"})
_TRANSIENT = frozenset({"500", "502", "503", "504", "SlowDown", "InternalError", "RequestTimeout"})


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=UTC)
        return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return str(value or "")


class BotoS3:
    """S3Port over boto3 for one bucket."""

    def __init__(self, bucket: str, client: Any | None = None) -> None:
        self.bucket = bucket
        if client is None:
            boto3 = importlib.import_module("boto3")
            config = importlib.import_module("botocore.config")
            client = boto3.client(
                "s3", config=config.Config(retries={"mode": "standard", "max_attempts": 5})
            )
        self.client = client

    def head_current(self, key: str) -> ObjectVersion | None:
        exceptions = importlib.import_module("botocore.exceptions")
        try:
            resp = self.client.head_object(Bucket=self.bucket, Key=key)
        except exceptions.ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in _MISSING:
                return None
            if code in _TRANSIENT:
                raise TransientError(f"s3 head {self.bucket}/{key}: {code}") from exc
            raise PermanentError(f"s3 head {self.bucket}/{key}: {code}: {exc}") from exc
        except (exceptions.EndpointConnectionError, exceptions.ConnectionError) as exc:
            raise TransientError(f"s3 head {self.bucket}/{key}: {exc}") from exc
        if resp.get("DeleteMarker"):
            return None
        return ObjectVersion(
            last_modified=_iso(resp.get("LastModified")),
            version_id=str(resp.get("VersionId") or "null"),
            key=key,
            bucket=self.bucket,
            etag=str(resp.get("ETag", "")),
            size=int(resp.get("ContentLength", 0)),
        )
