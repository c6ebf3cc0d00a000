"""One helper for integration tests that need their own index on the real node."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.embedding.embed import Embedder
from chunkwise.index.bodies import IndexNames, template_name


@contextmanager
def live_test_index(
    client: OpenSearch, embedder: Embedder, prefix: str
) -> Iterator[OpenSearchIndex]:
    """A fresh index prefix with one live generation, dropped afterwards
    (the random suffix keeps parallel or repeated runs apart)."""
    names = IndexNames(f"{prefix}-{uuid.uuid4().hex[:10]}")
    ix = OpenSearchIndex(client, names)
    ix.ensure_live_generation("g1", dimension=embedder.dimension, embedder_name=embedder.name)
    try:
        yield ix
    finally:
        drop_prefix(client, names)


def drop_prefix(client: OpenSearch, names: IndexNames) -> None:
    """Every generation of a test prefix, and the index template created with them."""
    ix = OpenSearchIndex(client, names)
    for generation in ix.generations():
        ix.drop(generation, force=True)
    client.indices.delete_index_template(name=template_name(names), ignore=[404])
