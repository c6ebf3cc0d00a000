"""What S3 says a key's current version is, and the order of a document's revisions."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass(frozen=True, order=True)
class ObjectVersion:
    """S3's answer to HEAD: the current version of a key."""

    last_modified: str  # ISO 8601, UTC
    version_id: str
    key: str = field(compare=False)
    bucket: str = field(default="", compare=False)
    etag: str = field(default="", compare=False)
    size: int = field(default=0, compare=False)

    @property
    def revision(self) -> str:
        """The revision id: S3 versionId, or the ETag when the bucket is unversioned."""
        if self.version_id and self.version_id != "null":
            return self.version_id
        return "etag-" + self.etag.strip('"')


def revision_sort_key(last_modified: str | None, revision: str) -> tuple[str, str]:
    """Order of revisions of one document: S3 last-modified, then version id."""
    return (normalise_timestamp(last_modified or ""), revision)


def normalise_timestamp(ts: str) -> str:
    """ISO 8601 -> comparable UTC string (``...Z`` and ``+00:00`` forms compare equal)."""
    if not ts:
        return ""
    try:
        dt = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ts
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
