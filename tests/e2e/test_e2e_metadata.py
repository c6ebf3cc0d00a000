"""A document and its sidecar through S3 -> SQS -> runner -> ingest handler -> OpenSearch:
the chunks carry the sidecar's metadata; a change of the sidecar alone reaches every
chunk without extracting or embedding again, and how long that took is measured."""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from chunkwise.index.names import make_doc_id
from chunkwise.search.hybrid import SearchFilters

pytestmark = pytest.mark.e2e

DATA = Path(__file__).resolve().parents[1] / "data"


def sidecar(dept: str, readers: Sequence[str]) -> bytes:
    body = {"metadataAttributes": {"dept": dept, "chunkwise_readers": list(readers)}}
    return json.dumps(body).encode()


def live_chunks(stack: Any, index: Any, doc_id: str) -> list[dict[str, Any]]:
    """The document's chunks as the filtered read alias serves them (no forced refresh:
    what any reader sees now)."""
    body = {
        "size": 200,
        "query": {"term": {"doc_id": doc_id}},
        "_source": {"excludes": ["embedding"]},
    }
    hits = index.client.search(index=index.names.read_alias, body=body)["hits"]["hits"]
    return [{"_id": h["_id"], **h["_source"]} for h in hits]


def stamped(stack: Any, index: Any, doc_id: str, dept: str) -> Callable[[], bool]:
    def check() -> bool:
        chunks = live_chunks(stack, index, doc_id)
        # every chunk of the state, not a prefix of it: this is a raw read through the
        # alias, which can open between two chunks of the finishing bulk
        whole = bool(chunks) and all(c["revision_chunks"] == len(chunks) for c in chunks)
        return whole and all(c["meta"]["s"].get("dept") == dept for c in chunks)

    return check


class Spy:
    """What the ingest handler's pipeline does from now on: its results, embedding
    calls and extractions (the runner plays the function in this process)."""

    def __init__(self, stack: Any) -> None:
        handler = inspect.unwrap(stack.runner.handler)  # under powertools' decorators
        pipeline = handler.__globals__["get_pipeline"]()
        self.results: list[Any] = []
        self.embedded = 0
        batch, embed = pipeline.ingest_batch, pipeline.embedder.embed

        def ingest_batch(*args: Any, **kwargs: Any) -> Any:
            out = batch(*args, **kwargs)
            self.results.extend(out)
            return out

        def counted(texts: Any) -> Any:
            self.embedded += 1
            return embed(texts)

        pipeline.ingest_batch = ingest_batch
        pipeline.embedder.embed = counted
        self.undo = lambda: (
            setattr(pipeline, "ingest_batch", batch),
            setattr(pipeline.embedder, "embed", embed),
        )


def test_a_sidecar_change_reaches_every_chunk_without_re_embedding(
    stack: Any, searcher: Any, index: Any
) -> None:
    key = stack.key("Handbuch Pumpe.md")
    doc_id = make_doc_id(stack.bucket, key)
    stack.put(key, (DATA / "handbuch_de.md").read_bytes())
    stack.put(key + ".metadata.json", sidecar("legal", ["legal"]))
    stack.run_until(stamped(stack, index, doc_id, "legal"))
    first = live_chunks(stack, index, doc_id)
    assert {tuple(c["readers"]) for c in first} == {("legal",)}
    spy = Spy(stack)
    try:
        t0 = time.monotonic()
        m2 = stack.put(key + ".metadata.json", sidecar("ops", ["ops", "auditors"]))
        stack.run_until(stamped(stack, index, doc_id, "ops"), timeout=60)
        seconds = time.monotonic() - t0
    finally:
        spy.undo()
    after = live_chunks(stack, index, doc_id)
    assert len(after) == len(first)
    assert {c["metadata_version"] for c in after} == {m2}
    assert {tuple(c["readers"]) for c in after} == {("auditors", "ops")}
    assert {c["revision"] for c in after} == {first[0]["revision"]}  # same object version
    mine = [r for r in spy.results if r.key == key]
    assert mine and all(r.metadata_only for r in mine if r.status == "indexed")
    assert sum(r.extractions for r in mine) == 0 and sum(r.embedding_calls for r in mine) == 0
    assert spy.embedded == 0  # the model was not called at all
    hits = searcher.search("Wartung Filter", 5, SearchFilters(doc_ids=(doc_id,)))
    assert hits and all(f"|{m2}:" in h.id for h in hits)  # the reader: new state only
    print(f"sidecar upload -> new metadata on every live chunk: {seconds:.2f} s")
    assert seconds < 30


def test_a_bad_sidecar_goes_to_the_dlq_and_leaves_no_old_permissions(
    stack: Any, index: Any
) -> None:
    key = stack.key("vertrag.md")
    doc_id = make_doc_id(stack.bucket, key)
    stack.put(key, b"# Vertrag\n\nDie Laufzeit betraegt zwei Jahre.\n")
    stack.put(key + ".metadata.json", sidecar("legal", ["legal"]))
    stack.run_until(stamped(stack, index, doc_id, "legal"))
    stack.put(key + ".metadata.json", b'{"metadataAttributes": {"dept": ""}}')

    def in_dlq() -> bool:
        return any(key in m["Body"] or "vertrag" in m["Body"] for m in stack.dlq_messages())

    stack.run_until(lambda: in_dlq() and not live_chunks(stack, index, doc_id), timeout=90)
    index.refresh()
    assert live_chunks(stack, index, doc_id) == []
