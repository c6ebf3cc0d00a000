from __future__ import annotations

import pytest

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
