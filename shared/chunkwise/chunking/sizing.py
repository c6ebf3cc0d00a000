"""The one sizing interface: what the chunker needs to know about token counts.

The chunker never depends on a concrete tokenizer. It sizes chunks through
`TokenCounter`; the backends are `chunkwise.models.counter.HFTokenCounter`
(the embedding model's own tokenizer.json, the production sizer) and
`CharCounter` below (one token per code point: sizing by characters, for a
model whose tokenizer is unknown and for tests that need no tokenizer file).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens the way the embedding model will see them.

    "Plain" counts are of pieces later joined into a larger text: no special
    tokens, no passage prefix. The whole-passage counts include both.
    """

    @property
    def max_tokens(self) -> int:
        """The model's input limit (specials and prefix included)."""
        ...

    @property
    def model_id(self) -> str:
        """Whose limit the counts are checked against (stamped on every chunk)."""
        ...

    @property
    def tokenizer_id(self) -> str:
        """Which tokenizer counted (stamped on every chunk)."""
        ...

    @property
    def additive(self) -> bool:
        """True if the count of pieces joined at whitespace or punctuation is the
        sum of their plain counts, so a joined text need not be counted again."""
        ...

    @property
    def special_tokens(self) -> int:
        """Tokens the model adds around every passage."""
        ...

    @property
    def overhead_tokens(self) -> int:
        """What every passage costs before its first word: specials plus prefix."""
        ...

    def count(self, text: str) -> int:
        """Tokens of `text` as a whole passage."""
        ...

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """`count` of each text, in one batch."""
        ...

    def count_plain(self, text: str) -> int:
        """Tokens of a piece that will be joined into a larger text."""
        ...

    def count_many_plain(self, texts: Sequence[str]) -> list[int]:
        """`count_plain` of each text, in one batch."""
        ...


@dataclass(frozen=True, slots=True)
class CharCounter:
    """Sizing by characters: one token per code point, no specials, no prefix.

    Not additive: a rendered chunk adds separators between its parts, so its
    size is always measured on the rendered text.
    """

    max_tokens: int
    model_id: str = "characters"
    tokenizer_id: str = "characters"
    additive: bool = False
    special_tokens: int = 0
    overhead_tokens: int = 0

    def count(self, text: str) -> int:
        return len(text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [len(t) for t in texts]

    def count_plain(self, text: str) -> int:
        return len(text)

    def count_many_plain(self, texts: Sequence[str]) -> list[int]:
        return [len(t) for t in texts]
