"""The process-wide local embedders: each model's weights are loaded once and
shared by every thread (both embedders are thread-safe).

These are the offline models only; the embedder factory that also builds the
Bedrock adapters from a spec string is on the composition side
(`chunkwise.wiring.embedders.get_embedder`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from chunkwise.models.e5 import E5_NAME, E5Embedder
from chunkwise.models.minilm import MINILM_NAME, MiniLMEmbedder

#: The spec strings (settings, `--embedder`) that name a local model.
LOCAL_SPECS = ("local", "e5", "minilm")
_E5_SPECS = ("local", "e5", E5_NAME)
_MINILM_SPECS = ("minilm", MINILM_NAME)

E = TypeVar("E")


class _Shared(Generic[E]):
    """One instance per process, made on first use (under a lock: loading a model
    twice would double its memory and split its callers between two copies)."""

    def __init__(self, make: Callable[[], E]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._value: E | None = None

    def get(self) -> E:
        with self._lock:
            if self._value is None:
                self._value = self._make()
            return self._value


_E5 = _Shared(E5Embedder)
_MINILM = _Shared(MiniLMEmbedder)


def default_embedder() -> E5Embedder:
    """The local default: multilingual-e5-small (English and German)."""
    return _E5.get()


def minilm_embedder() -> MiniLMEmbedder:
    """all-MiniLM-L6-v2: faster, English only (German queries are answered by BM25)."""
    return _MINILM.get()


def local_embedder(spec: str) -> E5Embedder | MiniLMEmbedder | None:
    """The local model a spec names ("local", "e5" or its name; "minilm" or its
    name), None if the spec names no local model."""
    if spec in _E5_SPECS:
        return default_embedder()
    if spec in _MINILM_SPECS:
        return minilm_embedder()
    return None
