"""Helpers for integration tests that need their own index on the real node."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.embedding.embed import Embedder
from chunkwise.index.names import IndexNames, template_name
from chunkwise.index.versions import ObjectVersion
from chunkwise.ingest.revisions import Loaded, Outcome, RevisionSwitch
from chunkwise.metadata import DocumentMetadata
from chunkwise.schema import Chunk


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


def switch_to_current(
    key: str,
    doc_id: str,
    *,
    s3: Any,
    index: OpenSearchIndex,
    load_chunks: Callable[[ObjectVersion], Sequence[Chunk]],
    embed: Callable[[Sequence[str]], list[list[float]]],
) -> Outcome:
    """Make S3's current version of ``key`` current in ``index`` through the
    production revision switch (raises the document's error), then refresh: tests
    search right after. The switch itself never refreshes."""

    def load(items: Sequence[tuple[str, str, ObjectVersion]]) -> dict[str, Loaded]:
        out = {}
        for d, _key, version in items:
            chunks = list(load_chunks(version))
            out[d] = Loaded(chunks, embed([c.text for c in chunks]))
        return out

    switch = RevisionSwitch(OpenSearchSwitchIndex(index), s3.head_current, load)
    outcome = switch.run({doc_id: key})[doc_id]
    index.refresh()
    if outcome.error is not None:
        raise outcome.error
    return outcome


def write_pending(
    index: OpenSearchIndex, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
) -> dict[str, str]:
    """The switch's chunk write alone (no head): doc_id -> reason of rejected chunks."""
    port = OpenSearchSwitchIndex(index)
    return port.write_chunks([Loaded(list(chunks), [list(v) for v in vectors])])


def write_live_without_head(
    index: OpenSearchIndex, chunks: Sequence[Chunk], vectors: Sequence[Sequence[float]]
) -> None:
    """Chunks as the older protocol left them: live, no head record; refreshed."""
    from chunkwise.adapters.opensearch.retries import bulk_with_retries
    from chunkwise.index.documents import bulk_actions
    from chunkwise.index.states import State

    actions = list(bulk_actions(chunks, vectors, index=index.target, state=State.LIVE))
    result = bulk_with_retries(index.client, actions, refresh=True)
    assert not result.failed, result.failed[:3]


def add_metadata_mapping(index: OpenSearchIndex) -> None:
    """The metadata fields (`chunkwise.metadata.metadata_mapping`) on the live
    generation, unless its mapping has them already (once the generation body carries
    them, this does nothing)."""
    from chunkwise.metadata import metadata_mapping

    mappings = index.client.indices.get_mapping(index=index.names.write_alias)
    for physical, body in mappings.items():
        current = body["mappings"]
        if "meta" in current.get("properties", {}):
            continue
        fragment = metadata_mapping()
        templates = current.get("dynamic_templates", []) + fragment["dynamic_templates"]
        put = {"dynamic_templates": templates, "properties": fragment["properties"]}
        index.client.indices.put_mapping(index=physical, body=put)


def stamp_metadata(index: OpenSearchIndex, doc_id: str, metadata: DocumentMetadata) -> None:
    """Give every chunk of ``doc_id`` this metadata (replacing ``meta`` whole, as the
    ingest side's restamp does), refreshed; head records are left alone. Scripted
    updates through _bulk: the local node has no reindex module (_update_by_query)."""
    from chunkwise.adapters.opensearch.retries import bulk_with_retries
    from chunkwise.metadata import document_fields

    query = {
        "bool": {
            "filter": [{"term": {"doc_id": doc_id}}, {"terms": {"state": ["pending", "live"]}}]
        }
    }
    found = index.client.search(
        index=index.names.write_alias,
        body={"size": 10_000, "_source": False, "query": query},
        params={"routing": doc_id},
    )
    script = {
        "lang": "painless",
        "source": "ctx._source.meta = params.meta; ctx._source.readers = params.readers;"
        " ctx._source.metadata_version = params.metadata_version",
        "params": document_fields(metadata),
    }
    actions = [
        {
            "_op_type": "update",
            "_index": hit["_index"],
            "_id": hit["_id"],
            "_routing": doc_id,
            "_source": {"script": script},  # an update action's body
        }
        for hit in found["hits"]["hits"]
    ]
    assert actions, f"no chunks of {doc_id}"
    result = bulk_with_retries(index.client, actions, refresh=True)
    assert not result.failed, result.failed[:3]
