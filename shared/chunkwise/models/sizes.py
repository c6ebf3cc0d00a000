"""The size properties an embedder fixes when it is made (a leaf module: the local
models and the Bedrock adapter both use it, and neither may import the other at load)."""

from __future__ import annotations


class FixedSizes:
    """The port's `dimension`, `max_tokens` and `batch_size`, for an embedder that fixes
    all three when it is made (MiniLM from its model files, Bedrock from its model id
    and options): the subclass sets the three attributes in its `__init__`."""

    _dimension: int
    _max_tokens: int
    _batch_size: int

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    @property
    def batch_size(self) -> int:
        return self._batch_size
