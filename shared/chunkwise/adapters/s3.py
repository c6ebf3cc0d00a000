"""boto3 adapter of the S3 ports: one bucket, HEAD current, GET exact version, LIST, PUT.

`S3Bucket` is the source bucket (`ObjectStore`: reconcile asks S3, not the event,
which version is current; samdocs/architecture.md, "The revision protocol") and
the artifacts location (`ArtifactStore`: keys already carry the artifacts prefix).
Errors go through `chunkwise.adapters.boto.classify`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from chunkwise.adapters.boto import (
    OBJECT_MISSING,
    boto_client,
    boto_errors,
    classify,
    error_code,
)
from chunkwise.errors import TransientError
from chunkwise.index.versions import ObjectVersion

_DELETE_BATCH = 1000


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        dt = value if value.tzinfo else value.replace(tzinfo=UTC)
        return dt.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return str(value or "")


def object_version(bucket: str, key: str, entry: Any, *, size_field: str) -> ObjectVersion:
    """An ObjectVersion from a HeadObject response (with the object's user metadata,
    ``x-amz-meta-*``, which boto3 gives without the prefix) or a ListObjectVersions
    entry (which has none)."""
    user_metadata = entry.get("Metadata") or {}
    return ObjectVersion(
        last_modified=_iso(entry.get("LastModified")),
        version_id=str(entry.get("VersionId") or "null"),
        key=key,
        bucket=bucket,
        etag=str(entry.get("ETag", "")),
        size=int(entry.get(size_field, 0)),
        user_metadata=tuple(sorted((str(k), str(v)) for k, v in user_metadata.items())),
    )


class S3Bucket:
    """The S3 ports over boto3 for one bucket."""

    def __init__(self, bucket: str, client: Any | None = None) -> None:
        self.bucket = bucket
        self.client = boto_client("s3", client)

    def head_current(self, key: str) -> ObjectVersion | None:
        """The current version of ``key`` (HEAD without VersionId); None if absent."""
        try:
            resp = self.client.head_object(Bucket=self.bucket, Key=key)
        except boto_errors() as exc:
            if error_code(exc) in OBJECT_MISSING:
                return None
            # A missing bucket is an error for a HEAD (a missing object is an answer).
            raise classify(f"s3 head {self.bucket}/{key}", exc, changed=frozenset()) from exc
        if resp.get("DeleteMarker"):
            return None
        return object_version(self.bucket, key, resp, size_field="ContentLength")

    def get_version(self, key: str, version_id: str) -> bytes:
        kwargs: dict[str, Any] = {"Bucket": self.bucket, "Key": key}
        if version_id and version_id != "null":
            kwargs["VersionId"] = version_id
        try:
            resp = self.client.get_object(**kwargs)
            data: bytes = resp["Body"].read()
        except boto_errors() as exc:
            raise classify(f"s3 get {self.bucket}/{key}@{version_id}", exc) from exc
        return data

    def list_current(self, prefix: str = "") -> Iterator[ObjectVersion]:
        """Current versions from ListObjectVersions (``IsLatest``), one request per
        1,000 versions and no HEAD per key; a key whose latest entry is a delete
        marker is absent. Works for unversioned buckets too (version id "null")."""
        try:
            pages = self.client.get_paginator("list_object_versions").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            for page in pages:
                for v in page.get("Versions", []) or []:
                    key = str(v["Key"])
                    if not v.get("IsLatest") or key.endswith("/"):
                        continue
                    yield object_version(self.bucket, key, v, size_field="Size")
        except boto_errors() as exc:
            raise classify(f"s3 list {self.bucket}/{prefix}", exc) from exc

    def put(self, key: str, data: bytes, content_type: str) -> None:
        try:
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=content_type)
        except boto_errors() as exc:
            raise classify(f"s3 put {self.bucket}/{key}", exc) from exc

    def delete(self, keys: Sequence[str]) -> None:
        """DeleteObjects, 1,000 keys per request; any per-key error raises."""
        for start in range(0, len(keys), _DELETE_BATCH):
            batch = [{"Key": k} for k in keys[start : start + _DELETE_BATCH]]
            try:
                resp = self.client.delete_objects(
                    Bucket=self.bucket, Delete={"Objects": batch, "Quiet": True}
                )
            except boto_errors() as exc:
                raise classify(f"s3 delete {self.bucket} ({len(batch)} keys)", exc) from exc
            errors = resp.get("Errors") or []
            if errors:
                first = errors[0]
                raise TransientError(
                    f"s3 delete: {len(errors)} of {len(batch)} failed: "
                    f"{first.get('Key')}: {first.get('Code')}"
                )
