"""A live generation created by an older release gets this release's new fields.

Before the nested `rows` field existed, generations were created without it;
their mapping is strict, so chunks that now carry `rows` would be rejected
(and the whole revision withdrawn) until the field is added. The deploy-time
setup (`ensure_live_generation`) adds it to the live index on the real node.
"""

from __future__ import annotations

import uuid

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.embedding.embed import Embedder
from chunkwise.index.mapping import KEYWORD_IGNORE_ABOVE, ROWS_FIELD, index_body
from chunkwise.index.names import IndexNames, make_doc_id
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.live_index import drop_prefix, write_pending

pytestmark = pytest.mark.integration

TABLE = "| Plan | Price |\n| --- | --- |\n| Starter | 6 € |\n| Team | 12 € |"


def _older_release_generation(ix: OpenSearchIndex, dimension: int) -> str:
    """Create and publish generation g0 with the mapping an older release wrote."""
    body = index_body(dimension, generation="g0")
    del body["mappings"]["properties"][ROWS_FIELD]
    index = ix.names.index("g0")
    ix.client.indices.create(index=index, body=body)
    ix.swap("g0")
    return index


def test_live_generation_from_an_older_release_accepts_table_rows(
    client: OpenSearch, embedder: Embedder
) -> None:
    ix = OpenSearchIndex(client, IndexNames(f"it-upgrade-{uuid.uuid4().hex[:10]}"))
    try:
        index = _older_release_generation(ix, embedder.dimension)
        s3 = FakeBucket("bucket")
        version = s3.put_version("prices.md", "v1", "2025-03-01T00:00:00Z")
        chunks = chunks_from_paragraphs(
            make_doc_id("bucket", "prices.md"), version, [TABLE], kind="table"
        )
        vectors = embedder.embed([c.text for c in chunks])
        rejected = write_pending(ix, chunks, vectors)
        assert "strict_dynamic_mapping" in rejected[chunks[0].doc_id]

        live = ix.ensure_live_generation("g1", dimension=embedder.dimension)

        assert live == index  # no new generation: the live one was upgraded in place
        mapping = client.indices.get_mapping(index=index)[index]["mappings"]["properties"]
        assert mapping[ROWS_FIELD]["type"] == "nested"
        assert write_pending(ix, chunks, vectors) == {}
        ix.refresh()
        assert client.count(index=index)["count"] == len(chunks)
        assert ix.add_missing_fields(index) == []  # idempotent
    finally:
        drop_prefix(client, ix.names)


def test_immense_heading_is_indexed_and_older_generations_get_the_keyword_bound(
    client: OpenSearch, embedder: Embedder
) -> None:
    """A keyword over 32,766 bytes rejects the whole document unless the field is
    bounded (ignore_above): chunks with such a heading_path must be written, on a new
    generation and on one created before the bound existed (after the upgrade)."""
    ix = OpenSearchIndex(client, IndexNames(f"it-immense-{uuid.uuid4().hex[:10]}"))
    try:
        body = index_body(embedder.dimension, generation="g0")
        body["mappings"]["properties"]["heading_path"] = {"type": "keyword"}  # older release
        index = ix.names.index("g0")
        client.indices.create(index=index, body=body)
        ix.swap("g0")
        s3 = FakeBucket("bucket")
        version = s3.put_version("huge-heading.md", "v1", "2025-03-01T00:00:00Z")
        chunks = chunks_from_paragraphs(
            make_doc_id("bucket", "huge-heading.md"),
            version,
            ["Die Pumpe wird jährlich geprüft."],
            heading="Ü" * 20_000,  # 40,000 UTF-8 bytes
        )
        # the mapping is under test, not the model (which refuses a 20,000-token text)
        vectors = [[0.1] * embedder.dimension for _ in chunks]
        rejected = write_pending(ix, chunks, vectors)
        reason = rejected[chunks[0].doc_id]
        assert reason and "ÜÜÜ" not in reason  # the error names the field, not the text

        assert ix.ensure_live_generation("g1", dimension=embedder.dimension) == index
        mapping = client.indices.get_mapping(index=index)[index]["mappings"]["properties"]
        assert mapping["heading_path"]["ignore_above"] == KEYWORD_IGNORE_ABOVE
        assert write_pending(ix, chunks, vectors) == {}
        ix.refresh()
        assert client.count(index=index)["count"] == len(chunks)
    finally:
        drop_prefix(client, ix.names)
