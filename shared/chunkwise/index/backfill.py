"""Index settings for a backfill: what a bulk load changes, and what it must give back.

A backfill (the first load of a document store, or a re-chunk into a new generation)
writes far more than anyone reads. For its duration a generation can trade freshness
and durability for indexing speed:

- ``index.refresh_interval``: fewer refreshes, hence fewer and larger segments, and
  less HNSW graph work repeated by the merges that follow. ``-1`` turns periodic
  refreshes off; only a writer that never waits for a refresh may use it (a write
  with ``refresh=wait_for`` waits for the next refresh, which then never comes);
- ``index.number_of_replicas`` 0: every chunk is indexed once, not once per copy; the
  replicas are rebuilt from the finished primary by copying segments;
- ``index.translog.durability`` ``async`` with a larger flush threshold: no fsync per
  bulk request. A node crash can lose the last few seconds of acknowledged writes;
  `chunkwise reconcile finish` verifies the generation against the bucket before any
  reader sees it, and `chunkwise reconcile` repairs what is missing;
- ``index.knn.advanced.approximate_threshold`` ``-1``: no k-NN graph is built while
  loading, one is built by the force merge at the end. The k-NN plugin honours it for
  its native engines (Faiss, NMSLIB); OpenSearch 2.19's k-NN plugin ignores it for the
  Lucene engine this project maps (Lucene support came with k-NN 3.9, PR #3451), so
  it is set only where the field's engine honours it.

The values the generation had before are kept with it (`chunkwise.adapters.opensearch.
backfill`), so a crashed run is restored by ``chunkwise backfill --restore``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

REFRESH = "index.refresh_interval"
REPLICAS = "index.number_of_replicas"
DURABILITY = "index.translog.durability"
FLUSH_THRESHOLD = "index.translog.flush_threshold_size"
KNN_THRESHOLD = "index.knn.advanced.approximate_threshold"
#: Every setting a backfill may change (the ones saved and restored).
BACKFILL_KEYS = (REFRESH, REPLICAS, DURABILITY, FLUSH_THRESHOLD, KNN_THRESHOLD)
#: k-NN engines whose graph build `approximate_threshold` defers in OpenSearch 2.19.
GRAPH_DEFERRING_ENGINES = frozenset({"faiss", "nmslib"})


@dataclass(frozen=True)
class BackfillSpec:
    """What a backfill sets; the defaults suit a writer that waits for no refresh."""

    refresh_interval: str = "-1"
    replicas: int = 0
    translog_durability: Literal["async", "request"] = "async"
    translog_flush_threshold: str = "1gb"
    defer_knn_graphs: bool = True

    def settings(self, knn_engine: str) -> dict[str, Any]:
        """The flat index settings for a generation whose vectors use ``knn_engine``."""
        out: dict[str, Any] = {
            REFRESH: self.refresh_interval,
            REPLICAS: self.replicas,
            DURABILITY: self.translog_durability,
            FLUSH_THRESHOLD: self.translog_flush_threshold,
        }
        if self.defer_knn_graphs and knn_engine in GRAPH_DEFERRING_ENGINES:
            out[KNN_THRESHOLD] = -1
        return out


def saved_values(current: Mapping[str, Any], applied: Mapping[str, Any]) -> dict[str, Any]:
    """What to restore later: the current value of every setting about to change
    (None = it was not set on the index, so restoring resets it to the default)."""
    return {key: current.get(key) for key in applied}


def restore_body(saved: Mapping[str, Any]) -> dict[str, Any]:
    """The settings that undo a backfill. A deferred graph build is switched on
    explicitly (0: build for every segment), so that the force merge after the
    restore builds the graphs (the plugin's default threshold would skip small ones)."""
    body = dict(saved)
    if KNN_THRESHOLD in body and body[KNN_THRESHOLD] is None:
        body[KNN_THRESHOLD] = 0
    return body
