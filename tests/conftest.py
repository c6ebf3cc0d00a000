from __future__ import annotations

import sys
from pathlib import Path

import pytest

# Lets tests import the shared helpers in tests/ (chunk_invariants) by name.
sys.path.insert(0, str(Path(__file__).parent))

from chunkwise.tokens import HFTokenCounter, load_counter


@pytest.fixture(scope="session")
def counter() -> HFTokenCounter:
    """The real all-MiniLM-L6-v2 tokenizer, read once from its installed package."""
    return load_counter()
