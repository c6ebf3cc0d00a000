"""The embedder port's optional capabilities: which models have them, and what a
caller gets from a model (or a test fake) without them."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from chunkwise.adapters.bedrock import CohereMultilingualV3Embedder, TitanV2Embedder
from chunkwise.embedding.embed import (
    Embedder,
    QueryPrefixed,
    QueryTokenCounting,
    SizedEmbedder,
    own_token_counter,
    query_prefix,
)
from chunkwise.index.bodies import GenerationModel


class _Core:
    """Only the core of the port, as the pipeline's test fakes are."""

    name, dimension, max_tokens, batch_size, languages = "core", 2, 16, 4, None

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0]


def test_a_model_without_the_optional_capabilities_is_still_an_embedder() -> None:
    core = _Core()
    assert isinstance(core, Embedder)
    assert not isinstance(core, SizedEmbedder | QueryTokenCounting | QueryPrefixed)
    assert own_token_counter(core) is None and query_prefix(core) == ""
    assert GenerationModel.of(core) == GenerationModel("core", 2, "")


def test_e5_has_every_capability_and_its_query_tokens_include_the_prefix() -> None:
    pytest.importorskip("tokenizers")
    from chunkwise.models.e5 import E5Embedder

    e5 = E5Embedder()
    assert isinstance(e5, SizedEmbedder) and isinstance(e5, QueryPrefixed)
    assert isinstance(e5, QueryTokenCounting)
    assert query_prefix(e5) == "query: "
    counter = own_token_counter(e5)
    assert counter is not None and counter.tokenizer_id == GenerationModel.of(e5).tokenizer
    # "query: " costs tokens the passage prefix does not: the counts differ.
    assert e5.count_query_tokens("Wie hoch ist der Jahrespreis?") != e5.count_tokens(
        "Wie hoch ist der Jahrespreis?"
    )


@pytest.mark.parametrize("model", [TitanV2Embedder, CohereMultilingualV3Embedder])
def test_bedrock_models_size_chunks_but_count_no_query_tokens(model: type[Embedder]) -> None:
    pytest.importorskip("tokenizers")
    embedder = model(client=object())  # type: ignore[call-arg]
    assert isinstance(embedder, SizedEmbedder)
    assert own_token_counter(embedder) is not None
    # No query counter: search sends their queries unchecked, as before.
    assert not isinstance(embedder, QueryTokenCounting)
    assert query_prefix(embedder) == ""
