"""An embedder for the search adapter's unit tests: three dimensions, every text the
same vector, tokens counted by whitespace. The tests judge fusion and shard handling,
not vectors."""

from __future__ import annotations

from collections.abc import Sequence


class FixedEmbedder:
    name, dimension, max_tokens, batch_size = "fake", 3, 10, 1

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0, 0.0] for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0, 0.0]
