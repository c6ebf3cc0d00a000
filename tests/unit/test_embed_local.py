"""The local all-MiniLM-L6-v2 embedder (numpy forward pass) against known properties
and the similarity matrix published by sentence-transformers for this model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from chunkwise.embedding.embed import Embedder, EmbedderInfo
from chunkwise.errors import ConfigError, TokenizerError
from chunkwise.models.bert import _erf
from chunkwise.models.e5 import E5Embedder
from chunkwise.models.local import default_embedder, minilm_embedder
from chunkwise.models.minilm import MINILM_NAME, MiniLMEmbedder
from chunkwise.wiring.embedders import get_embedder


@pytest.fixture(scope="module")
def emb() -> MiniLMEmbedder:
    e = minilm_embedder()
    assert isinstance(e, MiniLMEmbedder)
    return e


def _cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_is_an_embedder_with_model_limits(emb: MiniLMEmbedder) -> None:
    assert isinstance(emb, Embedder)
    assert emb.name == MINILM_NAME
    assert emb.dimension == 384
    assert emb.max_tokens == 256  # sentence_bert_config.json max_seq_length
    assert EmbedderInfo.of(emb) == EmbedderInfo(MINILM_NAME, 384, 256)


def test_reproduces_published_similarity_matrix(emb: MiniLMEmbedder) -> None:
    # sentence-transformers documentation, quickstart for all-MiniLM-L6-v2.
    v = np.array(
        emb.embed(
            ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
        )
    )
    expected = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])
    assert np.allclose(v @ v.T, expected, atol=1e-3)


def test_unit_norm_dimension_and_determinism(emb: MiniLMEmbedder) -> None:
    texts = ["Ein Satz auf Deutsch über Bäume.", "emoji 👩‍👩‍👧 and flags 🇩🇪", "", "x" * 3000]
    a = emb.embed(texts)
    b = emb.embed(texts)
    assert a == b
    for v in a:
        assert len(v) == 384
        assert math.isclose(float(np.linalg.norm(v)), 1.0, abs_tol=1e-5)


def test_batch_composition_and_padding_do_not_change_vectors(emb: MiniLMEmbedder) -> None:
    short = "A cat sat on the mat."
    alone = emb.embed([short])[0]
    long = "Completely unrelated and much longer text about tax law. " * 20
    mixed = emb.embed([long, short, "mid length sentence here"])
    assert np.allclose(alone, mixed[1], atol=1e-5)
    small_batches = MiniLMEmbedder(batch_size=1).embed([long, short])
    assert np.allclose(small_batches[1], alone, atol=1e-5)
    assert np.allclose(small_batches[0], mixed[0], atol=1e-5)


def test_paraphrases_are_closer_than_unrelated(emb: MiniLMEmbedder) -> None:
    q = emb.embed_query("How do I reset my password?")
    para, unrelated = emb.embed(
        ["Steps to change a forgotten password", "The recipe needs two eggs and flour."]
    )
    assert _cos(q, para) > _cos(q, unrelated) + 0.3
    cats = emb.embed(
        ["A man is playing a guitar.", "Someone plays an instrument.", "Stock prices fell."]
    )
    assert _cos(cats[0], cats[1]) > _cos(cats[0], cats[2])


def test_count_tokens_is_the_models_untruncated_count(emb: MiniLMEmbedder) -> None:
    # [CLS] + tokens + [SEP]; the packaged tokenizer.json pads/truncates to 128,
    # which must not leak into counts.
    assert emb.count_tokens("hello world") == 4
    assert emb.count_tokens("") == 2
    assert emb.count_tokens("word " * 300) == 302
    assert emb.tokenizer().encode("hello").ids[0] == 101
    counter = emb.token_counter()  # what the chunker sizes with
    assert counter.max_tokens == emb.max_tokens
    for t in ("hello world", "Kündigungsfrist 👩‍👩‍👧", "word " * 300):
        assert counter.count(t) == emb.count_tokens(t)


def test_embed_rejects_a_bare_string(emb: MiniLMEmbedder) -> None:
    with pytest.raises(TypeError):
        emb.embed("not a list")
    assert emb.embed([]) == []


def test_erf_approximation_is_within_float32_noise() -> None:
    xs = np.linspace(-6, 6, 10001, dtype=np.float32)
    ref = np.array([math.erf(float(x)) for x in xs])
    assert np.max(np.abs(_erf(xs.copy()) - ref)) < 1e-6  # A&S bound 1.5e-7 plus float32 rounding


def test_factory_and_bad_specs() -> None:
    assert get_embedder("local") is default_embedder()
    assert get_embedder() is default_embedder()
    assert get_embedder(None) is default_embedder()
    assert isinstance(default_embedder(), E5Embedder)  # multilingual by default
    assert get_embedder("minilm") is minilm_embedder()
    assert get_embedder(MINILM_NAME) is minilm_embedder()
    with pytest.raises(ConfigError, match="embedder"):
        get_embedder("nonsense")
    with pytest.raises(ConfigError, match="batch_size"):
        MiniLMEmbedder(batch_size=0)
    with pytest.raises(TokenizerError):
        MiniLMEmbedder("/nonexistent/model.zip")
    with pytest.raises(ConfigError, match="threads"):
        MiniLMEmbedder(threads=0)


def test_thread_count_does_not_change_vectors(emb: MiniLMEmbedder) -> None:
    texts = ["Threads must not change results.", "Zweiter Satz."]
    two = MiniLMEmbedder(threads=2).embed(texts)
    assert np.allclose(two, emb.embed(texts), atol=1e-5)
