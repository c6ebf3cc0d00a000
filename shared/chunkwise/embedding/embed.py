"""The embedder port: what the pipeline (stage 5) and the search layer depend on.

`Embedder` carries the model's own limits so that the chunker sizes chunks for
the model that will embed them: `max_tokens` is the model's input limit
*including* the special tokens, and `count_tokens(text)` counts exactly what the
model would see (special tokens included, no truncation), so `count_tokens(c.text)
<= max_tokens` is the invariant a chunker must keep.

The models behind the port: the offline ones in `chunkwise.models` (the default
multilingual-e5-small, `chunkwise.models.e5`; all-MiniLM-L6-v2,
`chunkwise.models.minilm`) and Amazon Bedrock's in `chunkwise.adapters.bedrock`;
a spec string picks one on the composition side
(`chunkwise.wiring.embedders.get_embedder`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from chunkwise.models.counter import HFTokenCounter


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into fixed-size vectors; carries its tokenizer limits.

    `embed` is for documents (chunk `text`), `embed_query` for search queries;
    models that distinguish the two (Cohere `input_type`) use it, others don't.
    """

    @property
    def name(self) -> str:
        """Model id, stored with the index generation."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every returned vector."""
        ...

    @property
    def max_tokens(self) -> int:
        """Hard input limit in tokens, special tokens included."""
        ...

    @property
    def batch_size(self) -> int:
        """How many texts one `embed` call sends to the model at a time."""
        ...

    @property
    def languages(self) -> frozenset[str] | None:
        """Languages the model was trained on (ISO 639-1), None if multilingual.

        Search does not ask a model for similarity in a language it cannot read:
        such a query is answered by the lexical retriever alone.
        """
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for `text` (special tokens included, untruncated)."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed documents; one vector per text, same order."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one search query."""
        ...


# Optional capabilities. Each is a port of its own, not a member of `Embedder`:
# a model may lack one (Bedrock's models count no query tokens and need no
# query prefix) and test fakes implement only the core. Callers test for them
# with isinstance (the protocols are runtime-checkable) and mypy checks the
# signatures of what they then call.


@runtime_checkable
class SizedEmbedder(Protocol):
    """Has the chunker's sizer for this model: its tokenizer, its token cap and its
    passage prefix, so chunks are sized for what the model is fed. Every real
    embedder has one; without it the default counter at `max_tokens` is used."""

    def token_counter(self) -> HFTokenCounter:
        """The `TokenCounter` backend that sizes chunks for this model."""
        ...


@runtime_checkable
class QueryTokenCounting(Protocol):
    """Counts the tokens of a search query as the model sees it (its query prefix and
    special tokens included), so search refuses a query over the cap before the
    model does."""

    def count_query_tokens(self, text: str) -> int:
        """Tokens the model sees for `text` as a query."""
        ...


@runtime_checkable
class QueryPrefixed(Protocol):
    """Declares the text the model expects in front of a search query."""

    @property
    def query_prefix(self) -> str:
        """The prefix ("query: " for E5 models; "" for a model that embeds queries as passages)."""
        ...


def own_token_counter(embedder: object) -> HFTokenCounter | None:
    """The embedder's own chunk sizer (`SizedEmbedder`), None if it has none."""
    return embedder.token_counter() if isinstance(embedder, SizedEmbedder) else None


def sizer_for(embedder: Embedder) -> HFTokenCounter:
    """The chunk sizer for the embedder: its own, else the default model's installed
    tokenizer at the embedder's `max_tokens` (a model or fake without a
    `SizedEmbedder` sizer; every real model has its own)."""
    own = own_token_counter(embedder)
    if own is not None:
        return own
    from chunkwise.models.counter import load_counter

    return load_counter(None, embedder.max_tokens, True)


def query_prefix(embedder: object) -> str:
    """The text a model expects in front of a search query ("query: " for E5 models,
    "" for the others), from the model's spec. `embed_query` adds it; the cluster's
    query connector declares it (chunkwise.search.query_model), and the loopback endpoint
    refuses a connector whose prefix is not the model's."""
    return embedder.query_prefix if isinstance(embedder, QueryPrefixed) else ""


@dataclass(frozen=True)
class EmbedderInfo:
    """What an index generation records about the model that filled it."""

    name: str
    dimension: int
    max_tokens: int

    @classmethod
    def of(cls, embedder: Embedder) -> EmbedderInfo:
        return cls(embedder.name, embedder.dimension, embedder.max_tokens)
