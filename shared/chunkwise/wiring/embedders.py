"""The embedder factory: a spec string (a function's settings, `--embedder`) to a model.

Composition, not core: it is the one place that knows both the local models
(`chunkwise.models`) and the Bedrock adapters (`chunkwise.adapters.bedrock`).
The configured model path (`CHUNKWISE_MODEL_PATH`, in Lambda the tokenizer
layer) is passed in, never read from a global: it is the tokenizer file of the
sizer of a model whose own tokenizer is not published (Bedrock's); the local
models read their installed packages.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from chunkwise.errors import ConfigError

if TYPE_CHECKING:
    from chunkwise.embedding.embed import Embedder
    from chunkwise.settings import EmbedderSettings


def get_embedder(spec: str | None = "local", *, model_path: Path | None = None) -> Embedder:
    """Build an embedder from a spec string (the caller's settings decide it).

    - "local" / "e5" / "" (default): the offline multilingual-e5-small (4-bit)
    - "minilm": the offline all-MiniLM-L6-v2 (English only)
    - "bedrock:amazon.titan-embed-text-v2:0[?dimensions=512]"
    - "bedrock:cohere.embed-multilingual-v3"

    `model_path` is the tokenizer file a Bedrock model's sizer counts with (None:
    the installed all-MiniLM-L6-v2's).
    """
    from chunkwise.models.local import local_embedder

    spec = spec or "local"
    local = local_embedder(spec)
    if local is not None:
        return local
    if spec.startswith("bedrock:"):
        from chunkwise.adapters.bedrock import bedrock_embedder_from_spec

        return bedrock_embedder_from_spec(spec.removeprefix("bedrock:"), tokenizer_path=model_path)
    raise ConfigError(
        f"embedder: unknown spec {spec!r} (use 'local', 'e5', 'minilm' or 'bedrock:<model-id>')"
    )


def embedder_for(settings: EmbedderSettings) -> Embedder:
    """The embedder a function's settings configure (`CHUNKWISE_EMBEDDER`, with
    `CHUNKWISE_MODEL_PATH` for its sizer)."""
    return get_embedder(settings.embedder, model_path=settings.model_path)


if TYPE_CHECKING:
    # mypy checks that every model keeps the port and the capabilities it has (the
    # callers find them with isinstance, which checks names only, not signatures).
    from chunkwise.adapters.bedrock import CohereMultilingualV3Embedder, TitanV2Embedder
    from chunkwise.embedding.embed import QueryPrefixed, QueryTokenCounting, SizedEmbedder
    from chunkwise.models.e5 import E5Embedder
    from chunkwise.models.minilm import MiniLMEmbedder

    _E5: type[Embedder] = E5Embedder
    _E5_SIZED: type[SizedEmbedder] = E5Embedder
    _E5_QUERY_TOKENS: type[QueryTokenCounting] = E5Embedder
    _E5_QUERY_PREFIX: type[QueryPrefixed] = E5Embedder
    _MINILM: type[Embedder] = MiniLMEmbedder
    _MINILM_SIZED: type[SizedEmbedder] = MiniLMEmbedder
    _MINILM_QUERY_PREFIX: type[QueryPrefixed] = MiniLMEmbedder
    _TITAN: type[Embedder] = TitanV2Embedder
    _TITAN_SIZED: type[SizedEmbedder] = TitanV2Embedder
    _COHERE: type[Embedder] = CohereMultilingualV3Embedder
    _COHERE_SIZED: type[SizedEmbedder] = CohereMultilingualV3Embedder
