"""The ports the ingest path reaches the outside through (adapters implement them).

- `ObjectStore`: the source bucket (real: `chunkwise.adapters.s3.S3Bucket`;
  tests: `tests.fakes.bucket.FakeBucket`);
- `ArtifactStore`: where the canonical text and the report of a revision go;
- `RetentionIndexPort`, `LiveSetPort`: what the maintenance steps read of the index
  (real: `OpenSearchIndex`, `OpenSearchLiveSet`);
- `RevisionSource`: the stored chunks of a revision state, for a metadata-only change
  (real: `OpenSearchSwitchIndex`);
- `QueuePort`: the ingest queue (real: `chunkwise.adapters.sqs.SqsQueue`).

The revision switch's own port, `SwitchIndexPort`, is in `chunkwise.ingest.revisions`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Protocol

from chunkwise.index.revision_queries import RevisionState
from chunkwise.index.versions import ObjectVersion
from chunkwise.schema import Chunk


class ObjectStore(Protocol):
    """The source bucket (real: `chunkwise.adapters.s3.S3Bucket`; tests: `FakeBucket`)."""

    @property
    def bucket(self) -> str: ...

    def head_current(self, key: str) -> ObjectVersion | None:
        """The key's current version (with its user metadata); None if it does not exist
        or is a delete marker."""
        ...

    def get_version(self, key: str, version_id: str) -> bytes:
        """The bytes of exactly that version ("null" = unversioned object)."""
        ...

    def list_current(self, prefix: str = "") -> Iterator[ObjectVersion]:
        """Current versions of every key under ``prefix`` (delete markers excluded)."""
        ...


class RevisionSource(Protocol):
    """The chunks of a stored revision state (a metadata-only change copies them)."""

    def read_revision(
        self, doc_id: str, key: str, n: int
    ) -> list[tuple[Chunk, list[float]]] | None:
        """The ``n`` chunks of revision key ``key`` and their vectors, in chunk order, as
        the last write left them; None if any of them is gone."""
        ...


class ArtifactStore(Protocol):
    """Where derived files go (never where the trigger listens)."""

    def put(self, key: str, data: bytes, content_type: str) -> None: ...

    def delete(self, keys: Sequence[str]) -> None:
        """Delete these keys (absent ones are fine): the retention step."""
        ...


class RetentionIndexPort(Protocol):
    """What the retention step needs from the index (real: OpenSearchIndex)."""

    def expired_revisions(
        self, older_than_seconds: int, *, now: datetime | None = None
    ) -> set[tuple[str, str]]: ...

    def sweep(self, older_than_seconds: int, *, now: datetime | None = None) -> int: ...

    def revision_states(self, doc_id: str) -> dict[str, RevisionState]: ...


class QueuePort(Protocol):
    """The ingest queue, for the sweep and the re-chunk fan-out."""

    def send_batch(self, bodies: Sequence[str]) -> None:
        """Send the message bodies (the adapter splits them into batches of 10)."""
        ...


class LiveSetPort(Protocol):
    """Which revisions are visible (live or pending) for every source key, and which
    revisions are known to fail for good."""

    def live_revisions(self) -> dict[str, set[str]]:
        """source key -> the revision keys of its live chunks."""
        ...

    def known_failures(self) -> dict[str, dict[str, str]]:
        """source key -> {revision key: reason} of revision states that failed for good."""
        ...
