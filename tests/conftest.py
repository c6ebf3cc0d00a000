from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Lets tests import the shared helpers in tests/ (chunk_invariants) by name.
sys.path.insert(0, str(Path(__file__).parent))

from chunkwise.chunking.tokens import MINILM, HFTokenCounter, load_counter


@pytest.fixture(scope="session")
def counter() -> HFTokenCounter:
    """The default model's sizer (multilingual-e5-small's own tokenizer.json, its
    512-token cap, the "passage: " prefix), read once from its installed package."""
    return load_counter()


@pytest.fixture(scope="session")
def minilm_counter() -> HFTokenCounter:
    """The all-MiniLM-L6-v2 WordPiece tokenizer (the word memo's home)."""
    return load_counter(model=MINILM)
