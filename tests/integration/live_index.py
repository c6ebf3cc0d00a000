"""One helper for integration tests that need their own index on the real node."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from opensearchpy import OpenSearch

from chunkwise.embed import MiniLMEmbedder
from chunkwise.index import IndexNames
from chunkwise.index_opensearch import OpenSearchIndex


@contextmanager
def live_test_index(
    client: OpenSearch, embedder: MiniLMEmbedder, prefix: str
) -> Iterator[OpenSearchIndex]:
    """A fresh index prefix with one live generation, dropped afterwards
    (the random suffix keeps parallel or repeated runs apart)."""
    ix = OpenSearchIndex(client, IndexNames(f"{prefix}-{uuid.uuid4().hex[:10]}"))
    ix.ensure_live_generation("g1", dimension=embedder.dimension, embedder_name=embedder.name)
    try:
        yield ix
    finally:
        for generation in ix.generations():
            ix.drop(generation, force=True)
