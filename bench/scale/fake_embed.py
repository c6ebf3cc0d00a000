"""A fixed-cost stand-in for the embedding model, so that the scale benchmark measures
the index side: deterministic vectors, a fixed sleep per `embed` call.

Vectors are a seeded random projection of the text's words (each word picks one of
4,096 fixed random 384-d vectors; the sum is normalised), so texts that share words
are near each other and a query built from a document's words finds it by k-NN, as
with a real model; the HNSW graph is not built from pure noise. Token counting and
the token cap are the real model's (multilingual-e5-small's tokenizer), so chunking
is exactly the production chunking; the name and dimension are the real model's too,
so the index generation is the one the stack creates.

The sleep stands for a remote model's latency: ``SLEEP_PER_CALL`` seconds for each
call of up to ``batch_size`` texts (Cohere Embed v3 takes 96 texts per call).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from chunkwise.embedding.embed import query_prefix, sizer_for
from chunkwise.models.counter import HFTokenCounter
from chunkwise.models.local import default_embedder

SLEEP_PER_CALL = 0.05
BATCH_SIZE = 96
TABLE_SIZE = 4096
_WORD = re.compile(r"\w+", re.UNICODE)


class FixedCostEmbedder:
    """Implements chunkwise.embed.Embedder; see the module docstring."""

    def __init__(self, sleep_per_call: float = SLEEP_PER_CALL, seed: int = 384) -> None:
        self.real = default_embedder()
        self.sleep_per_call = sleep_per_call
        rng = np.random.default_rng(seed)
        table = rng.standard_normal((TABLE_SIZE, self.real.dimension)).astype(np.float32)
        self.table = table / np.linalg.norm(table, axis=1, keepdims=True)
        self.calls = 0

    @property
    def name(self) -> str:
        return self.real.name

    @property
    def dimension(self) -> int:
        return self.real.dimension

    @property
    def max_tokens(self) -> int:
        return self.real.max_tokens

    @property
    def batch_size(self) -> int:
        return BATCH_SIZE

    @property
    def languages(self) -> frozenset[str] | None:
        return self.real.languages

    @property
    def query_prefix(self) -> str:
        return query_prefix(self.real)

    def token_counter(self) -> HFTokenCounter:
        return sizer_for(self.real)

    def count_tokens(self, text: str) -> int:
        return self.real.count_tokens(text)

    def vector(self, text: str) -> list[float]:
        rows = [
            int.from_bytes(hashlib.blake2b(w.lower().encode(), digest_size=4).digest(), "big")
            % TABLE_SIZE
            for w in _WORD.findall(text)
        ] or [0]
        v = self.table[rows].sum(axis=0)
        v /= float(np.linalg.norm(v)) or 1.0
        return [float(x) for x in v]

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(texts), BATCH_SIZE):
            self.calls += 1
            if _CALLS is not None:
                with _CALLS.get_lock():
                    _CALLS.value += 1
            time.sleep(self.sleep_per_call)
            out += [self.vector(t) for t in texts[start : start + BATCH_SIZE]]
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.vector(text)


_CALLS: Any = None  # a multiprocessing.Value shared by the workers: embed calls made


def install(calls: Any = None, sleep_per_call: float = SLEEP_PER_CALL) -> None:
    """Worker initializer: the ingest handler of this process embeds with the fake.

    ``calls`` (a shared ``multiprocessing.Value("i")``) counts the embed calls of all
    workers, so the harness knows how much of the wall time the fake slept."""
    global _CALLS
    from chunkwise.cli.local import load_function
    from chunkwise.wiring import build_pipeline

    _CALLS = calls
    handler = load_function("ingest")
    handler._PIPELINE = build_pipeline(  # type: ignore[attr-defined]
        handler.SETTINGS, embedder=FixedCostEmbedder(sleep_per_call=sleep_per_call)
    )
