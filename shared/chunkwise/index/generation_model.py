"""The embedding model a generation was built with, and why another may not meet it.

A generation records its model (name, dimension, tokenizer) in its mapping's
``_meta``; writes and vector queries with another model's vectors are refused
before anything is sent (`model_mismatch`), and the generation stays live.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chunkwise.embedding.embed import own_token_counter
from chunkwise.errors import PermanentError


class ModelMismatchError(PermanentError):
    """Vectors of one model offered to (or asked of) a generation built with another.

    A deployment problem, not the document's: the write is refused before
    anything is sent, and, unlike a document that can never be indexed, older
    revisions stay live (moving over is a new generation and a swap)."""


@dataclass(frozen=True)
class GenerationModel:
    """The embedding model a generation's vectors come from, as its metadata records it."""

    name: str
    dimension: int
    tokenizer: str = ""

    @classmethod
    def of(cls, embedder: Any) -> GenerationModel:
        """From an embedder (its name, dimension and, if it has one, its sizer's id)."""
        counter = own_token_counter(embedder)
        tokenizer = counter.tokenizer_id if counter is not None else ""
        return cls(str(embedder.name), int(embedder.dimension), tokenizer)


def model_mismatch(meta: Mapping[str, Any], index: str, model: GenerationModel) -> str | None:
    """Why vectors of ``model`` must not meet the generation ``index`` (None: they may).

    A generation records its model in the mapping's ``_meta``; a generation
    without a record (created by hand without a model) is judged by dimension only.
    """
    built_with = str(meta.get("embedder") or "")
    dimension = int(meta.get("dimension") or 0)
    tokenizer = str(meta.get("tokenizer") or "")
    differs = (
        (built_with and built_with != model.name)
        or (dimension and dimension != model.dimension)
        or (tokenizer and model.tokenizer and tokenizer != model.tokenizer)
    )
    if not differs:
        return None
    return (
        f"generation {index} was built with the model {built_with or '?'} "
        f"({dimension or '?'} dims, tokenizer {tokenizer or '?'}), but this deployment embeds "
        f"with {model.name} ({model.dimension} dims, tokenizer {model.tokenizer or '?'}): "
        f"vectors of two models cannot be compared. Build a generation for the new model "
        f"(chunkwise index create, re-chunk into it, chunkwise index swap) or configure "
        f"the generation's model"
    )
