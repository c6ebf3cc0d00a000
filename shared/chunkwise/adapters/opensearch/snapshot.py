"""One point in time (PIT) per read: the candidates and the heads of one read come from
the same searcher of each shard, on the shard's primary while it is up.

Why (measured on the local 3-node cluster, bench/results/faults-cluster.md):

- two searches, even with the same ``preference``, are two snapshots: a refresh between
  the candidates and the heads lets the heads name a revision whose chunks the
  candidate search saw only in part (a refresh can fall inside the chunk bulk), so the
  reader kept a partial revision. One PIT is one searcher per shard: a head it shows
  was written after every chunk it names, so those chunks are in it too.
- the copies of a shard refresh on their own schedule: a read on a refreshed copy
  returns revision N, a later read on a copy not yet refreshed returns N-1 (stale).
  ``_primary_first`` puts every read on the primary while it is up, so reads of one
  shard see one copy's refreshes, which only go forward; a replica serves only while
  its primary is missing.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.retries import RetryPolicy, whole, with_retries

log = logging.getLogger(__name__)

#: Long enough for a read's searches (at most three candidate rounds and their heads);
#: a PIT whose delete failed is gone after it.
KEEP_ALIVE = "1m"
#: The shard copies a read uses (see the module's docstring).
PRIMARY_FIRST = "_primary_first"


@contextmanager
def point_in_time(client: OpenSearch, index: str, policy: RetryPolicy) -> Iterator[dict[str, str]]:
    """A PIT over ``index`` (every shard or an error, never part of them); yields the
    ``pit`` clause of a search body and deletes the PIT afterwards."""

    def create() -> dict[str, Any]:
        params = {
            "keep_alive": KEEP_ALIVE,
            "preference": PRIMARY_FIRST,
            "allow_partial_pit_creation": "false",
        }
        resp: dict[str, Any] = whole(client.create_pit(index=index, params=params), "pit")
        return resp

    pit_id = str(with_retries(policy, "point in time", create)["pit_id"])
    try:
        yield {"id": pit_id, "keep_alive": KEEP_ALIVE}
    finally:
        try:
            client.delete_pit(body={"pit_id": [pit_id]})
        except Exception as exc:  # the read is done; the PIT expires after KEEP_ALIVE
            log.warning("point in time not deleted (expires in %s): %s", KEEP_ALIVE, exc)


def in_pit(body: Mapping[str, Any], pit: Mapping[str, str] | None) -> dict[str, Any]:
    """``body`` searching ``pit`` (a search with a PIT names no index and no preference)."""
    return {**body, "pit": dict(pit)} if pit else dict(body)
