"""What S3 says a key's current version is, and the order of a document's revisions.

A document's **revision state** is a pair: the object's revision and its metadata
version (the revision of its sidecar ``<key>.metadata.json``, "" when it has none).
The pair's **revision key** names it wherever the revision protocol needs one string:
chunk ids, head records, cleanup lists, failure markers, the live set. Without a
sidecar the key is the object revision itself, so every chunk id, head and cleanup
entry written before metadata existed keeps its meaning.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

#: Joins the two halves of a revision key. S3 version ids are base64-like strings
#: (AWS's documented example uses A-Z, a-z, 0-9, "+" and "/"; real ones also "." and
#: "_"), the ETag form is "etag-" + hex (+ "-<parts>" for multipart uploads): none of
#: them has a "|", which is not URL-ready either (it must be percent-encoded).
REVISION_KEY_SEPARATOR = "|"


def revision_key(revision: str, metadata_version: str = "") -> str:
    """The one string that names a revision state (``revision`` alone without metadata)."""
    if not metadata_version:
        return revision
    return f"{revision}{REVISION_KEY_SEPARATOR}{metadata_version}"


@dataclass(frozen=True, order=True)
class ObjectVersion:
    """S3's answer to HEAD: the current version of a key and, for a document, of its
    sidecar (`with_sidecar`). Two answers are the same state when they compare equal."""

    last_modified: str  # ISO 8601, UTC
    version_id: str
    key: str = field(compare=False)
    bucket: str = field(default="", compare=False)
    etag: str = field(default="", compare=False)
    size: int = field(default=0, compare=False)
    #: The sidecar's revision ("" = no sidecar): the metadata half of the state.
    metadata_version: str = ""
    #: What GetObject needs to read exactly that sidecar ("null": unversioned bucket),
    #: and its size (checked before it is read).
    sidecar_version_id: str = field(default="", compare=False)
    sidecar_size: int = field(default=0, compare=False)
    #: The object's user metadata (``x-amz-meta-*``, as boto3 names it: without the
    #: prefix), sorted; fixed for the life of an object version, so not part of the state.
    user_metadata: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @property
    def revision(self) -> str:
        """The revision id: S3 versionId, or the ETag when the bucket is unversioned."""
        if self.version_id and self.version_id != "null":
            return self.version_id
        return "etag-" + self.etag.strip('"')

    @property
    def revision_key(self) -> str:
        return revision_key(self.revision, self.metadata_version)

    def with_sidecar(self, sidecar: ObjectVersion | None) -> ObjectVersion:
        """This document's state with ``sidecar`` (None: it has none) as its metadata."""
        if sidecar is None:
            return replace(self, metadata_version="", sidecar_version_id="", sidecar_size=0)
        return replace(
            self,
            metadata_version=sidecar.revision,
            sidecar_version_id=sidecar.version_id,
            sidecar_size=sidecar.size,
        )


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
