"""The backfill's settings: what is applied per k-NN engine, what is saved and restored."""

from __future__ import annotations

import pytest

from chunkwise.index.backfill import (
    DURABILITY,
    KNN_THRESHOLD,
    REFRESH,
    REPLICAS,
    BackfillSpec,
    restore_body,
    saved_values,
)


def test_lucene_vectors_get_no_graph_deferral() -> None:
    """OpenSearch 2.19's k-NN plugin ignores approximate_threshold for Lucene: not sent."""
    applied = BackfillSpec().settings("lucene")
    assert applied[REFRESH] == "-1"
    assert applied[REPLICAS] == 0
    assert applied[DURABILITY] == "async"
    assert KNN_THRESHOLD not in applied


@pytest.mark.parametrize("engine", ["faiss", "nmslib"])
def test_native_engines_defer_the_graph_build(engine: str) -> None:
    assert BackfillSpec().settings(engine)[KNN_THRESHOLD] == -1
    assert KNN_THRESHOLD not in BackfillSpec(defer_knn_graphs=False).settings(engine)


def test_refresh_interval_is_the_callers() -> None:
    assert BackfillSpec(refresh_interval="30s").settings("lucene")[REFRESH] == "30s"


def test_saved_values_name_unset_settings_as_none() -> None:
    applied = BackfillSpec().settings("faiss")
    saved = saved_values({REFRESH: "5s", "index.number_of_shards": "1"}, applied)
    assert saved[REFRESH] == "5s"
    assert saved[REPLICAS] is None  # not set on the index: restored to the default
    assert set(saved) == set(applied)


def test_restore_switches_a_deferred_graph_build_back_on() -> None:
    body = restore_body({REFRESH: None, KNN_THRESHOLD: None})
    assert body == {REFRESH: None, KNN_THRESHOLD: 0}
    assert restore_body({KNN_THRESHOLD: 500}) == {KNN_THRESHOLD: 500}
    assert restore_body({REFRESH: "5s"}) == {REFRESH: "5s"}
