from __future__ import annotations

import pytest

from chunkwise.models.counter import HFTokenCounter, load_counter
from chunkwise.models.registry import MINILM


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/*.jsonl from the current chunker (review the diff in git)",
    )


@pytest.fixture(scope="session")
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


@pytest.fixture(scope="session")
def counter() -> HFTokenCounter:
    """The default model's sizer (multilingual-e5-small's own tokenizer.json, its
    512-token cap, the "passage: " prefix), read once from its installed package."""
    return load_counter()


@pytest.fixture(scope="session")
def minilm_counter() -> HFTokenCounter:
    """The all-MiniLM-L6-v2 WordPiece tokenizer (the word memo's home)."""
    return load_counter(model=MINILM)
