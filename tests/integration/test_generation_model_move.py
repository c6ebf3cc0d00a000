"""Moving a deployment from one embedding model to another on the real node: the
old generation keeps serving its own model's queries, refuses the new model's
writes and queries, and a new generation built with the new model takes over
with one alias swap."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import GenerationError, OpenSearchIndex
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.embedding.embed import Embedder
from chunkwise.index.bodies import GenerationModel, IndexNames, make_doc_id
from chunkwise.models.local import minilm_embedder
from tests.embed_cache import CachedEmbedder
from tests.fakes.bucket import FakeBucket
from tests.fakes.index import chunks_from_paragraphs
from tests.integration.live_index import drop_prefix, switch_to_current

pytestmark = pytest.mark.integration

BUCKET = "bucket"
KEY = "move/filter.md"
PARAS = [
    "Den Einlassfilter alle 500 Betriebsstunden prüfen.",
    "Inspect the inlet filter every 500 operating hours.",
]


@pytest.fixture
def names(client: OpenSearch) -> Iterator[IndexNames]:
    n = IndexNames(f"it-move-{uuid.uuid4().hex[:10]}")
    yield n
    drop_prefix(client, n)


def _fill(ix: OpenSearchIndex, embedder: Embedder, s3: FakeBucket) -> None:
    doc = make_doc_id(BUCKET, KEY)
    switch_to_current(
        KEY,
        doc,
        s3=s3,
        index=ix,
        load_chunks=lambda v: chunks_from_paragraphs(doc, v, PARAS),
        embed=embedder.embed,
    )


def _generation(ix: OpenSearchIndex, gen: str, embedder: Embedder) -> None:
    model = GenerationModel.of(embedder)
    ix.create_generation(
        gen, dimension=model.dimension, embedder_name=model.name, tokenizer_id=model.tokenizer
    )


def test_model_change_is_a_new_generation(
    client: OpenSearch, embedder: Embedder, names: IndexNames
) -> None:
    old: Embedder = CachedEmbedder(minilm_embedder())  # type: ignore[assignment]
    s3 = FakeBucket(BUCKET)
    s3.put_version(KEY, "v1", "2025-04-01T00:00:00Z")
    setup = OpenSearchIndex(client, names)
    _generation(setup, "g1", old)
    setup.swap("g1")
    _fill(OpenSearchIndex(client, names, model=GenerationModel.of(old)), old, s3)
    assert Searcher(client, old, names).search("inlet filter", k=1)

    # The new model may neither write into nor query the old model's generation
    # (a new S3 version, so that the revision has to be written).
    s3.put_version(KEY, "v2", "2025-04-02T00:00:00Z")
    new_writer = OpenSearchIndex(client, names, model=GenerationModel.of(embedder))
    with pytest.raises(GenerationError, match=r"g1 was built with the model sentence-trans"):
        _fill(new_writer, embedder, s3)
    with pytest.raises(GenerationError, match="vectors of two models cannot be compared"):
        Searcher(client, embedder, names).search("Einlassfilter", k=1)
    # Nothing of the refused write reached g1: it still serves v1 only.
    assert {h.revision for h in Searcher(client, old, names).search("inlet filter", k=5)} == {"v1"}

    # Re-chunk into a generation of the new model, then one swap.
    _generation(setup, "g2", embedder)
    target = names.index("g2")
    _fill(
        OpenSearchIndex(client, names, target=target, model=GenerationModel.of(embedder)),
        embedder,
        s3,
    )
    setup.swap("g2")
    searcher = Searcher(client, embedder, names)
    hits = searcher.search("Wie oft muss der Einlassfilter geprüft werden?", k=2)
    assert hits and "Einlassfilter" in hits[0].citation.body
    assert {h.revision for h in hits} == {"v2"}
    with pytest.raises(GenerationError, match="g2 was built with the model intfloat"):
        Searcher(client, old, names).search("inlet filter", k=1)
