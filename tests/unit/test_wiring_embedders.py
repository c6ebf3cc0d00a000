"""The configured model path travels from a function's settings to the embedder the
composition root builds; loading settings sets no process-wide default."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from chunkwise.models.counter import load_counter
from chunkwise.models.files import load_tokenizer_json, minilm_model_path, model_tokenizer_path
from chunkwise.models.registry import DEFAULT_MODEL, E5_SMALL, MINILM
from chunkwise.settings import EmbedderSettings, load_settings
from chunkwise.wiring.embedders import embedder_for, get_embedder

COHERE = "bedrock:cohere.embed-multilingual-v3"


def _layer(tmp_path: Path) -> Path:
    """A tokenizer layer as Lambda mounts it: the MiniLM package's zip at python/..."""
    layer = tmp_path / "python" / "all_minilm_l6_v2" / "model.zip"
    layer.parent.mkdir(parents=True)
    shutil.copyfile(minilm_model_path(), layer)
    return layer


def test_the_configured_tokenizer_sizes_a_bedrock_model(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Another model's tokenizer, so the counts show which file was read: the
    # fallback (no path configured) would be the installed MiniLM's.
    configured = tmp_path / "tokenizer.json"
    configured.write_text(load_tokenizer_json(model_tokenizer_path(E5_SMALL)), encoding="utf-8")
    monkeypatch.setenv("CHUNKWISE_EMBEDDER", COHERE)
    monkeypatch.setenv("CHUNKWISE_MODEL_PATH", str(configured))
    counter = embedder_for(load_settings(EmbedderSettings)).token_counter()
    assert counter.tokenizer_id.startswith(f"{E5_SMALL.model_id}@sha256:")
    assert (counter.model_id, counter.max_tokens) == ("cohere.embed-multilingual-v3", 480)

    monkeypatch.delenv("CHUNKWISE_MODEL_PATH")
    fallback = embedder_for(load_settings(EmbedderSettings)).token_counter()
    assert fallback.tokenizer_id.startswith(f"{MINILM.model_id}@sha256:")
    assert get_embedder(COHERE).token_counter().tokenizer_id == fallback.tokenizer_id


def test_loading_settings_leaves_the_default_model_alone(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    layer = _layer(tmp_path)
    monkeypatch.setenv("CHUNKWISE_MODEL_PATH", str(layer))
    monkeypatch.setenv("CHUNKWISE_EMBEDDER", COHERE)
    settings = load_settings(EmbedderSettings)
    assert settings.model_path == layer
    # The default counter is still the default model's installed tokenizer ...
    assert load_counter().model_id == DEFAULT_MODEL.model_id
    # ... and the layer reaches only the embedder built from these settings.
    sizer = embedder_for(settings).token_counter()
    assert sizer.tokenizer_id == load_counter(layer).tokenizer_id
    assert sizer.tokenizer_id.startswith(f"{MINILM.model_id}@sha256:")

