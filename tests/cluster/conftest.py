"""Tests of the local 3-node cluster (`make test-cluster`; not part of `make test`).

They need the cluster `OPENSEARCH_NODES=3 bash scripts/with-services.sh` starts (or
`chunkwise local up --nodes 3`): OPENSEARCH_URL naming its nodes, comma-separated. They
kill and restart nodes of this checkout's cluster, so they fail - never skip - when
there is none (a skipped fault test proves nothing).
"""

from __future__ import annotations

import os

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.client import connect, hosts_of
from chunkwise.localstack.cluster import node_pids, wait_health

NODES = 3


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.cluster)


@pytest.fixture(scope="session")
def cluster_url() -> str:
    url = os.environ.get("OPENSEARCH_URL", "")
    if len(hosts_of(url or "x")) < NODES or len(node_pids()) < NODES:
        pytest.fail(
            "needs this checkout's 3-node cluster: `make test-cluster` "
            "(OPENSEARCH_NODES=3 scripts/with-services.sh); "
            f"OPENSEARCH_URL={url!r}, nodes alive: {sorted(node_pids())}"
        )
    return url


@pytest.fixture()
def cluster(cluster_url: str) -> OpenSearch:
    """A client of every node, the cluster green before the test (a test before may
    have restarted a node)."""
    client = connect(cluster_url, timeout=10)
    wait_health(client, "green", nodes=NODES)
    return client
