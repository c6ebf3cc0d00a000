"""Queries over a document's revisions: their chunk counts by state, the markers of
revision states that failed for good, and what the retention step erases (pure).

Chunk counts and expired revisions are grouped by the object revision (the chunks'
``revision`` field), not by revision state: what retention erases with a revision is
its artifacts, which belong to the object revision, and a revision restamped with new
metadata is still visible under its new state (`chunkwise.ingest.maintenance`)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from chunkwise.errors import ConfigError
from chunkwise.index.mapping import FAILURE_REASON_FIELD
from chunkwise.index.states import State, utcnow_iso
from chunkwise.index.versions import revision_key
from chunkwise.metadata.fields import VERSION_FIELD


def _doc_filter(doc_id: str) -> dict[str, Any]:
    return {"term": {"doc_id": doc_id}}


def revision_states_query(doc_id: str, max_revisions: int = 1000) -> dict[str, Any]:
    """Aggregation listing every revision of a document with per-state chunk counts."""
    return {
        "size": 0,
        "query": {
            "bool": {
                "filter": [_doc_filter(doc_id)],
                "must_not": [{"term": {"state": State.HEAD.value}}],
            }
        },
        "aggs": {
            "revisions": {
                "terms": {"field": "revision", "size": max_revisions},
                "aggs": {
                    "states": {"terms": {"field": "state", "size": 10}},
                    "expected": {"max": {"field": "revision_chunks"}},
                },
            }
        },
    }


@dataclass(frozen=True)
class RevisionState:
    """Chunk counts of one revision of one document, by state."""

    revision: str
    counts: Mapping[str, int]
    expected: int

    def n(self, state: State) -> int:
        return int(self.counts.get(state.value, 0))

    @property
    def complete_live(self) -> bool:
        """Every chunk of the revision is live (and there is at least one)."""
        return self.expected > 0 and self.n(State.LIVE) == self.expected

    @property
    def visible(self) -> bool:
        return self.n(State.LIVE) > 0


def parse_revision_states(response: Mapping[str, Any]) -> dict[str, RevisionState]:
    out: dict[str, RevisionState] = {}
    for b in response.get("aggregations", {}).get("revisions", {}).get("buckets", []):
        counts = {s["key"]: int(s["doc_count"]) for s in b["states"]["buckets"]}
        exp = b["expected"].get("value")
        out[str(b["key"])] = RevisionState(str(b["key"]), counts, int(exp or 0))
    return out


def failure_marker(
    doc_id: str,
    key: str,
    revision: str,
    reason: str,
    now: str | None = None,
    *,
    metadata_version: str = "",
) -> tuple[str, dict[str, Any]]:
    """``_id`` and ``_source`` of the record that a revision state (object revision +
    metadata version: a bad sidecar fails the state, not the object) failed permanently.

    It lives next to the document's chunks (same routing) in state ``failed``, which
    no search, live set or retention query matches: the sweep reads these markers
    to tell "known to fail" from drift, so it does not re-enqueue the same broken
    version on every run. The reason is the error's own message (never document text).
    """
    source = {
        "doc_id": doc_id,
        "source_key": key,
        "revision": revision,
        VERSION_FIELD: metadata_version,
        "state": State.FAILED.value,
        FAILURE_REASON_FIELD: reason[:1000],
        "indexed_at": now or utcnow_iso(),
    }
    return f"{doc_id}:failed:{revision_key(revision, metadata_version)}", source


def marker_revision_key(source: Mapping[str, Any]) -> str:
    """The revision key a failure marker's ``_source`` names (older markers: no metadata)."""
    return revision_key(str(source["revision"]), str(source.get(VERSION_FIELD) or ""))


def known_failures_query(after: Sequence[Any] | None = None, page: int = 1000) -> dict[str, Any]:
    """One page of failure markers, sorted for search_after paging."""
    body: dict[str, Any] = {
        "size": page,
        "query": {"term": {"state": State.FAILED.value}},
        "_source": ["source_key", "doc_id", "revision", VERSION_FIELD, FAILURE_REASON_FIELD],
        # one marker per (doc_id, revision, metadata_version): no ties for search_after
        "sort": [{"doc_id": "asc"}, {"revision": "asc"}, {VERSION_FIELD: "asc"}],
    }
    if after:
        body["search_after"] = list(after)
    return body


def sweep_body(older_than: str) -> dict[str, Any]:
    """delete-by-query body of the retention sweep (superseded/deleted before a date)."""
    return {
        "query": {
            "bool": {
                "filter": [
                    {"terms": {"state": [State.SUPERSEDED.value, State.DELETED.value]}},
                    {"range": {"superseded_at": {"lt": older_than}}},
                ]
            }
        }
    }


def tombstones_body(older_than: str) -> dict[str, Any]:
    """delete-by-query body of the head records of deleted keys older than a date (a
    key without a head and without an S3 version needs nothing; a new upload writes
    a new head)."""
    return {
        "query": {
            "bool": {
                "filter": [
                    {"term": {"state": State.HEAD.value}},
                    {"term": {"revision": ""}},
                    {"range": {"indexed_at": {"lt": older_than}}},
                ]
            }
        }
    }


def expired_revisions_query(
    older_than: str, after: Mapping[str, Any] | None = None, page: int = 1000
) -> dict[str, Any]:
    """Composite aggregation over (doc_id, revision) of the chunks retention deletes."""
    comp: dict[str, Any] = {
        "size": page,
        "sources": [
            {"doc": {"terms": {"field": "doc_id"}}},
            {"revision": {"terms": {"field": "revision"}}},
        ],
    }
    if after:
        comp["after"] = dict(after)
    return {
        "size": 0,
        "query": sweep_body(older_than)["query"],
        "aggs": {"revs": {"composite": comp}},
    }


_DURATION_RE = re.compile(r"^(\d+)([smhdw])$")


def parse_duration_seconds(text: str) -> int:
    """``30d``, ``12h``, ``90m``, ``45s``, ``2w`` -> seconds."""
    m = _DURATION_RE.match(text.strip())
    if not m:
        raise ConfigError(f"older-than: expected <n>[s|m|h|d|w], got {text!r}")
    mult = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
    return int(m.group(1)) * mult
