"""chunkwise: documents to search-ready, citable chunks.

Public API: `chunk_text`, `split_sentences`, `ChunkerConfig`, `Chunk`.
Heavy adapters (OpenSearch, AWS) live in their own modules and are never
imported from here, so `import chunkwise` stays cheap.
"""

from __future__ import annotations

from chunkwise.chunking.chunk import ChunkingReport, chunk_text
from chunkwise.chunking.config import ChunkerConfig
from chunkwise.schema import CHUNK_SCHEMA_VERSION, Chunk, ChunkKind
from chunkwise.text.segment import split_sentences

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
