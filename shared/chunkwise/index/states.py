"""The ``state`` of every indexed record, and the clock its transitions are stamped with.

Chunk lifecycle (samdocs/architecture.md, "The revision protocol")::

    pending ──finish──▶ live ──finish of a newer head──▶ superseded ──retention──▶ (erased)
       │                   └──finish of a tombstone (S3 key gone)──▶ deleted ──retention──▶
       └─ never named by a head: invisible to every reader

Which revision of a document is current is decided by its head record (state
``head``, next to the chunks; `chunkwise.index.heads`), not by the chunks' states:
the revision switch and its commit point are in `chunkwise.ingest.revisions`, the
reader's rule in `chunkwise.index.reading`. The ``live`` state is the same decision
made visible, a little later, to clients that read the filtered alias.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum


class State(StrEnum):
    PENDING = "pending"
    LIVE = "live"
    SUPERSEDED = "superseded"
    DELETED = "deleted"
    # Not a chunk: the marker of a revision that can never be indexed
    # (`chunkwise.index.revision_queries.failure_marker`).
    FAILED = "failed"
    # Not a chunk: a document's head record (`chunkwise.index.heads`).
    HEAD = "head"


def utcnow_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
