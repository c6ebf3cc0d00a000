"""opensearch-py side of a backfill: apply the bulk settings, keep the originals with
the generation, restore them (idempotently), then refresh, force-merge and warm up.

The originals live in the generation's own mapping ``_meta.backfill`` (the rest of
``_meta`` is kept), so whoever runs ``chunkwise backfill --restore`` after a crash,
from any machine, restores what the generation had before the backfill began. A
second `begin` before a restore keeps the first run's originals.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chunkwise.adapters.opensearch.retries import RetryPolicy, with_retries
from chunkwise.index.backfill import BackfillSpec, restore_body, saved_values

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

log = logging.getLogger(__name__)
META_KEY = "backfill"
VECTOR_FIELD = "embedding"
#: A force merge of a large generation takes minutes (the HNSW graph is rebuilt).
MERGE_TIMEOUT_S = 3600.0


@dataclass(frozen=True)
class FinishStats:
    refresh_s: float
    merge_s: float
    warmup_s: float
    segments: int


class OpenSearchBackfill:
    """Backfill settings of one physical index (a generation)."""

    def __init__(self, client: OpenSearch, index: str, policy: RetryPolicy | None = None) -> None:
        self.client = client
        self.index = index
        self.policy = policy or RetryPolicy()

    def _meta(self) -> dict[str, Any]:
        def get() -> dict[str, Any]:
            resp = self.client.indices.get_mapping(index=self.index)
            (mapping,) = resp.values()
            return dict(mapping["mappings"].get("_meta") or {})

        return with_retries(self.policy, "get mapping", get)

    def _put_meta(self, meta: dict[str, Any]) -> None:
        with_retries(
            self.policy,
            "put mapping _meta",
            lambda: self.client.indices.put_mapping(index=self.index, body={"_meta": meta}),
        )

    def _put_settings(self, body: dict[str, Any]) -> None:
        with_retries(
            self.policy,
            "put settings",
            lambda: self.client.indices.put_settings(index=self.index, body=body),
        )

    def knn_engine(self) -> str:
        """The engine of the generation's vector field ("" without one)."""
        resp = with_retries(
            self.policy, "get mapping", lambda: self.client.indices.get_mapping(index=self.index)
        )
        (mapping,) = resp.values()
        field = mapping["mappings"].get("properties", {}).get(VECTOR_FIELD, {})
        return str(field.get("method", {}).get("engine", ""))

    def current(self) -> dict[str, Any]:
        """The index's own flat settings (what is not listed is at its default)."""

        def get() -> dict[str, Any]:
            resp = self.client.indices.get_settings(index=self.index, flat_settings=True)
            (entry,) = resp.values()
            return dict(entry["settings"])

        return with_retries(self.policy, "get settings", get)

    def pending_restore(self) -> dict[str, Any] | None:
        """The originals of a backfill not restored yet (None: nothing to restore)."""
        saved = self._meta().get(META_KEY)
        return dict(saved) if isinstance(saved, dict) else None

    def begin(self, spec: BackfillSpec) -> dict[str, Any]:
        """Apply ``spec``; returns the settings applied."""
        applied = spec.settings(self.knn_engine())
        meta = self._meta()
        if not isinstance(meta.get(META_KEY), dict):  # a crashed run's originals stay
            meta[META_KEY] = saved_values(self.current(), applied)
            self._put_meta(meta)
        self._put_settings(applied)
        log.info("backfill settings on %s: %s", self.index, applied)
        return applied

    def restore(self) -> dict[str, Any] | None:
        """Put the originals back; None when there was nothing to restore."""
        meta = self._meta()
        saved = meta.get(META_KEY)
        if not isinstance(saved, dict):
            return None
        body = restore_body(saved)
        self._put_settings(body)
        del meta[META_KEY]
        self._put_meta(meta)
        log.info("backfill settings restored on %s: %s", self.index, body)
        return body

    def finish(self, *, max_segments: int | None = 1, warmup: bool = True) -> FinishStats:
        """Refresh, force-merge to ``max_segments`` (None: no merge), warm up k-NN."""
        t0 = time.perf_counter()
        with_retries(self.policy, "refresh", lambda: self.client.indices.refresh(index=self.index))
        t1 = time.perf_counter()
        if max_segments is not None:
            self.client.indices.forcemerge(
                index=self.index,
                params={"max_num_segments": max_segments, "request_timeout": MERGE_TIMEOUT_S},
            )
            # The merged-away segments go once a new searcher opens.
            self.client.indices.refresh(index=self.index)
        t2 = time.perf_counter()
        if warmup:
            with_retries(
                self.policy,
                "k-NN warmup",
                lambda: self.client.transport.perform_request(
                    "GET", f"/_plugins/_knn/warmup/{self.index}"
                ),
            )
        t3 = time.perf_counter()
        return FinishStats(t1 - t0, t2 - t1, t3 - t2, self.segments())

    def segments(self) -> int:
        rows = self.client.cat.segments(index=self.index, format="json")
        return len(rows)


@contextmanager
def backfilling(
    client: OpenSearch, index: str, spec: BackfillSpec | None = None
) -> Iterator[OpenSearchBackfill]:
    """The bulk settings for the block; restored when it ends, however it ends."""
    backfill = OpenSearchBackfill(client, index)
    backfill.begin(spec or BackfillSpec())
    try:
        yield backfill
    finally:
        backfill.restore()
