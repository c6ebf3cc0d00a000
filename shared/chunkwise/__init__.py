"""chunkwise: documents to search-ready, citable chunks.

Public API: `chunk_text`, `split_sentences`, `ChunkerConfig`, `Chunk`.
Heavy adapters (OpenSearch, AWS) live in their own modules and are never
imported from here, so `import chunkwise` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chunkwise.chunking import chunk as _chunk
from chunkwise.chunking.chunk import ChunkingReport
from chunkwise.chunking.config import ChunkerConfig
from chunkwise.schema import CHUNK_SCHEMA_VERSION, Chunk, ChunkKind
from chunkwise.text.segment import split_sentences

if TYPE_CHECKING:
    from chunkwise.chunking.sizing import TokenCounter

__all__ = [
    "CHUNK_SCHEMA_VERSION",
    "Chunk",
    "ChunkKind",
    "ChunkerConfig",
    "ChunkingReport",
    "chunk_text",
    "split_sentences",
]
__version__ = "0.1.0"


def chunk_text(
    text: str,
    lang: str | None = None,
    config: ChunkerConfig | None = None,
    *,
    counter: TokenCounter | None = None,
    report: ChunkingReport | None = None,
) -> list[Chunk]:
    """Chunk canonical text (`chunkwise.chunking.chunk.chunk_text`). Empty or
    whitespace-only text gives [].

    `lang` None or "auto" detects the language of the document and of each of
    its sections; `counter` defaults to the tokenizer the config names
    (`tokenizer_path`, `max_tokens`, `add_special_tokens`), else the default
    model's installed one.
    """
    if not text.strip():  # before loading a tokenizer that blank text does not need
        return []
    cfg = config or ChunkerConfig()
    if counter is None:
        from chunkwise.models.counter import load_counter

        counter = load_counter(cfg.tokenizer_path, cfg.max_tokens, cfg.add_special_tokens)
    return _chunk.chunk_text(text, lang, cfg, counter=counter, report=report)
