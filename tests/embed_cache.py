"""A disk cache of the real embedder's vectors for test fixtures.

The integration tests embed the same fixture texts on every run; with the
multilingual default model that is most of their time on a busy 2-core
machine. The cache stores what the real model returned, keyed by the model's
name, its tokenizer id and the text (passage and query vectors apart), so a
changed model, tokenizer or text is simply a miss that the model answers.
Nothing is ever computed another way: a miss calls the wrapped embedder.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from chunkwise.embedding.embed import own_token_counter, query_prefix

ROOT = Path(__file__).resolve().parents[1]
CACHE_DIR = ROOT / ".local" / "test-embeddings"


class CachedEmbedder:
    """The embedder port around a real embedder, with its vectors kept on disk."""

    def __init__(self, inner: Any, cache_dir: Path = CACHE_DIR) -> None:
        self.inner = inner
        counter = own_token_counter(inner)
        tokenizer = counter.tokenizer_id if counter is not None else ""
        model_key = hashlib.sha256(f"{inner.name}\0{tokenizer}".encode()).hexdigest()[:16]
        cache_dir.mkdir(parents=True, exist_ok=True)
        self._path = cache_dir / f"{model_key}.jsonl"
        self._lock = threading.Lock()
        self._vectors: dict[str, list[float]] = {}
        if self._path.exists():
            for line in self._path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                except ValueError:  # a torn last line from an interrupted run
                    continue
                self._vectors[row["k"]] = row["v"]
        self.misses = 0

    # -- the port, delegated
    name = property(lambda self: self.inner.name)
    dimension = property(lambda self: self.inner.dimension)
    max_tokens = property(lambda self: self.inner.max_tokens)
    batch_size = property(lambda self: self.inner.batch_size)
    languages = property(lambda self: self.inner.languages)
    # The model spec's query prefix: the cluster's query connector declares it.
    query_prefix = property(lambda self: query_prefix(self.inner))

    def token_counter(self) -> Any:
        return self.inner.token_counter()

    def count_tokens(self, text: str) -> int:
        return int(self.inner.count_tokens(text))

    @staticmethod
    def _key(kind: str, text: str) -> str:
        return hashlib.sha256(f"{kind}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def _store(self, pairs: list[tuple[str, list[float]]]) -> None:
        with self._path.open("a", encoding="utf-8") as f:
            for key, vector in pairs:
                self._vectors[key] = vector
                f.write(json.dumps({"k": key, "v": vector}) + "\n")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of texts, not a str")
        keys = [self._key("passage", t) for t in texts]
        with self._lock:
            todo = sorted({(k, t) for k, t in zip(keys, texts, strict=True)} - {
                (k, t) for k, t in zip(keys, texts, strict=True) if k in self._vectors
            })
            if todo:
                self.misses += len(todo)
                vectors = self.inner.embed([t for _, t in todo])
                self._store([(k, v) for (k, _), v in zip(todo, vectors, strict=True)])
            return [self._vectors[k] for k in keys]

    def embed_query(self, text: str) -> list[float]:
        key = self._key("query", text)
        with self._lock:
            if key not in self._vectors:
                self.misses += 1
                self._store([(key, self.inner.embed_query(text))])
            return self._vectors[key]
