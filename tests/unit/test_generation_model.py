"""Index generations by model: the metadata a generation records, the mismatch
rule, and writes refused before anything of a revision reaches a generation of
another model (fake client, no I/O)."""

from __future__ import annotations

from typing import Any

import pytest

from chunkwise.adapters.opensearch.heads import OpenSearchSwitchIndex
from chunkwise.adapters.opensearch.index import GenerationError, OpenSearchIndex
from chunkwise.index.bodies import (
    GenerationModel,
    IndexNames,
    ObjectVersion,
    index_body,
    model_mismatch,
)
from chunkwise.ingest.revisions import Loaded
from chunkwise.models.local import default_embedder, minilm_embedder
from tests.fakes.index import make_chunks

E5 = GenerationModel.of(default_embedder())
MINILM = GenerationModel.of(minilm_embedder())


def test_the_model_is_named_by_embedder_dimension_and_tokenizer() -> None:
    assert E5.name.startswith("intfloat/multilingual-e5-small") and E5.dimension == 384
    assert E5.tokenizer.startswith("intfloat/multilingual-e5-small@sha256:")
    assert MINILM.tokenizer.startswith("sentence-transformers/all-MiniLM-L6-v2@sha256:")
    meta = index_body(384, embedder_name=E5.name, tokenizer_id=E5.tokenizer)["mappings"]["_meta"]
    assert (meta["embedder"], meta["dimension"], meta["tokenizer"]) == (
        E5.name,
        384,
        E5.tokenizer,
    )


def test_mismatch_rule() -> None:
    own = {"embedder": E5.name, "dimension": 384, "tokenizer": E5.tokenizer}
    assert model_mismatch(own, "chunks-g1", E5) is None
    # Same width, another model: the case a dimension check alone would miss.
    problem = model_mismatch(own, "chunks-g1", MINILM)
    assert problem is not None
    assert "chunks-g1 was built with the model intfloat/multilingual-e5-small" in problem
    assert MINILM.name in problem and "chunkwise index create" in problem
    other_tokenizer = {**own, "tokenizer": "intfloat/multilingual-e5-small@sha256:0000"}
    assert model_mismatch(other_tokenizer, "chunks-g1", E5) is not None
    # A generation created by hand without a model is judged by its dimension.
    assert model_mismatch({"dimension": 384}, "g", E5) is None
    assert model_mismatch({"dimension": 1024}, "g", E5) is not None


class _Indices:
    def __init__(self, meta: dict[str, Any]) -> None:
        self.meta = meta

    def get_mapping(self, index: str) -> dict[str, Any]:
        return {"chunks-g1": {"mappings": {"_meta": self.meta}}}


class _Client:
    def __init__(self, meta: dict[str, Any]) -> None:
        self.indices = _Indices(meta)
        self.bulks: list[Any] = []

    def bulk(self, *args: Any, **kwargs: Any) -> Any:
        self.bulks.append((args, kwargs))
        raise AssertionError("nothing may be written")


def test_writes_into_a_generation_of_another_model_are_refused_before_any_bulk() -> None:
    client = _Client({"embedder": MINILM.name, "dimension": 384, "tokenizer": MINILM.tokenizer})
    ix = OpenSearchIndex(client, IndexNames("chunks"), model=E5)  # type: ignore[arg-type]
    v = ObjectVersion(last_modified="2026-01-01T00:00:00Z", version_id="v1", key="k", bucket="b")
    chunks = make_chunks("doc", v)
    with pytest.raises(GenerationError, match="built with the model sentence-transformers"):
        OpenSearchSwitchIndex(ix).write_chunks([Loaded(chunks, [[0.0] * 384 for _ in chunks])])
    assert client.bulks == []
