"""`chunkwise backfill` settings on the real node: applied, restored at the end, restored
after a failure, and restorable after a crash by a later `--restore`."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.backfill import OpenSearchBackfill, backfilling
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.index.backfill import DURABILITY, REFRESH, REPLICAS, BackfillSpec
from chunkwise.index.names import IndexNames

pytestmark = pytest.mark.integration


@pytest.fixture
def generation(client: OpenSearch) -> Iterator[str]:
    """A generation whose refresh interval was set by hand (2s), to see it come back."""
    names = IndexNames(f"it-backfill-{uuid.uuid4().hex[:10]}")
    index = OpenSearchIndex(client, names).create_generation("g1", dimension=4)
    client.indices.put_settings(index=index, body={REFRESH: "2s"})
    yield index
    client.indices.delete(index=index, ignore_unavailable=True)


def settings_of(client: OpenSearch, index: str) -> dict[str, str]:
    resp = client.indices.get_settings(index=index, flat_settings=True)
    return dict(resp[index]["settings"])


def meta_of(client: OpenSearch, index: str) -> dict[str, object]:
    return dict(client.indices.get_mapping(index=index)[index]["mappings"]["_meta"])


def test_settings_applied_for_the_block_and_restored(client: OpenSearch, generation: str) -> None:
    with backfilling(client, generation) as backfill:
        during = settings_of(client, generation)
        assert during[REFRESH] == "-1"
        assert during[REPLICAS] == "0"
        assert during[DURABILITY] == "async"
        assert backfill.pending_restore() == {
            REFRESH: "2s",
            REPLICAS: "0",
            DURABILITY: None,
            "index.translog.flush_threshold_size": None,
        }
    after = settings_of(client, generation)
    assert after[REFRESH] == "2s"
    assert DURABILITY not in after  # back to the default (request)
    assert OpenSearchBackfill(client, generation).pending_restore() is None
    assert meta_of(client, generation)["generation"] == "g1"  # the rest of _meta kept


def test_restored_when_the_block_fails(client: OpenSearch, generation: str) -> None:
    with pytest.raises(KeyboardInterrupt), backfilling(client, generation):
        assert settings_of(client, generation)[REFRESH] == "-1"
        raise KeyboardInterrupt
    assert settings_of(client, generation)[REFRESH] == "2s"
    assert OpenSearchBackfill(client, generation).pending_restore() is None


def test_crashed_run_is_restored_later_and_restore_is_idempotent(
    client: OpenSearch, generation: str
) -> None:
    OpenSearchBackfill(client, generation).begin(BackfillSpec())  # crashed: never restored
    # A second run before anyone restored: the originals of the first are kept.
    OpenSearchBackfill(client, generation).begin(BackfillSpec(refresh_interval="30s"))
    assert settings_of(client, generation)[REFRESH] == "30s"
    restored = OpenSearchBackfill(client, generation).restore()
    assert restored is not None and restored[REFRESH] == "2s"
    assert settings_of(client, generation)[REFRESH] == "2s"
    assert OpenSearchBackfill(client, generation).restore() is None
    assert settings_of(client, generation)[REFRESH] == "2s"


def test_cli_restore_puts_back_what_a_crashed_run_left(
    client: OpenSearch, generation: str, opensearch_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chunkwise.cli.backfill import main_backfill

    prefix, gen = generation.rsplit("-", 1)
    monkeypatch.setenv("OPENSEARCH_URL", opensearch_url)
    monkeypatch.setenv("CHUNKWISE_INDEX_PREFIX", prefix)
    monkeypatch.setenv("CHUNKWISE_BUCKET", "unused")  # not the local stack's state file
    OpenSearchBackfill(client, generation).begin(BackfillSpec())
    assert main_backfill([gen, "--restore"]) == 0
    assert settings_of(client, generation)[REFRESH] == "2s"
    assert main_backfill([gen, "--restore"]) == 0  # nothing left to restore: still fine
    assert settings_of(client, generation)[REFRESH] == "2s"


def test_finish_merges_to_one_segment(client: OpenSearch, generation: str) -> None:
    for i in range(3):  # three refreshes: three segments
        client.index(
            index=generation,
            id=f"c{i}",
            body={"doc_id": "d", "chunk_index": i, "embedding": [1.0, 0.0, 0.0, float(i)]},
            params={"refresh": "true"},
        )
    backfill = OpenSearchBackfill(client, generation)
    assert backfill.segments() >= 2
    stats = backfill.finish(max_segments=1, warmup=True)
    assert stats.segments == 1
