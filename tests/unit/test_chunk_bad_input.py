"""Hostile inputs: no crash, no quadratic blow-up, a documented result.

Documented results (see chunkwise.chunking.blocks and chunkwise.chunking.chunk docstrings):
- lone surrogates and NUL stay in `body` untouched; the indexed `text` has
  lone surrogates replaced by U+FFFD (the tokenizer cannot take them);
- a BOM is ordinary text: it stays in the body, offsets count it;
- an unclosed code fence runs to the end of the text;
- a pipe line without a separator line is prose;
- ragged table rows are kept as rows.
"""

from __future__ import annotations

from chunkwise import ChunkerConfig, chunk_text
from chunkwise.models.counter import HFTokenCounter
from chunkwise.schema import ChunkKind
from tests.chunk_invariants import assert_all, assert_coverage, assert_offsets


def test_lone_surrogates_and_nul(counter: HFTokenCounter) -> None:
    text = "Vorher \ud800 nachher.\x00 Und \udfff wieder. " * 50
    chunks = chunk_text(text, config=ChunkerConfig.build(max_chars=200))
    assert_offsets(text, chunks)
    assert_coverage(text, chunks)
    assert any("\ud800" in c.body for c in chunks)
    assert all("\ud800" not in c.text and "\udfff" not in c.text for c in chunks)
    assert all(c.token_count <= counter.max_tokens for c in chunks)


def test_bom_and_mixed_line_endings(counter: HFTokenCounter) -> None:
    text = "\ufeff# Titel\r\n\r\nErster Absatz.\rZweite Zeile.\n\nDritter\r\nAbsatz.\n" * 30
    chunks = chunk_text(text, config=ChunkerConfig.build(max_chars=300))
    assert chunks[0].body.startswith("\ufeff")
    assert_all(text, chunks, counter, ChunkerConfig.build(max_chars=300), counter.max_tokens)


def test_five_megabyte_line_without_spaces(counter: HFTokenCounter) -> None:
    text = "abcdefghij" * 500_000
    chunks = chunk_text(text)
    assert sum(len(c.body) for c in chunks) == len(text)
    assert max(c.token_count for c in chunks) <= counter.max_tokens
    assert_offsets(text, chunks)


def test_ragged_table_and_table_without_separator(counter: HFTokenCounter) -> None:
    ragged = "| a | b | c |\n|---|---|---|\n| 1 |\n| 1 | 2 | 3 | 4 | 5 |\n| x | y |\n"
    no_sep = "| a | b |\n| 1 | 2 |\n"
    text = ragged + "\n" + no_sep
    chunks = chunk_text(text)
    assert len(chunks) == 1
    assert chunks[0].kind is ChunkKind.TABLE
    assert_all(text, chunks, counter, ChunkerConfig(), counter.max_tokens)
    only_prose = chunk_text(no_sep)
    assert only_prose[0].kind is ChunkKind.PROSE and not only_prose[0].table_header


def test_unclosed_code_fence_runs_to_end(counter: HFTokenCounter) -> None:
    text = "Intro.\n\n```python\n" + "x = 1\n" * 400 + "\n\n# not a heading inside code\n"
    chunks = chunk_text(text)
    assert all("not a heading" not in " ".join(c.heading_path) for c in chunks)
    assert any(c.kind is ChunkKind.CODE for c in chunks)
    assert_all(text, chunks, counter, ChunkerConfig(), counter.max_tokens)


def test_ten_thousand_nested_list_items(counter: HFTokenCounter) -> None:
    text = "".join(" " * (i % 12) + f"- item {i}\n" for i in range(10_000))
    chunks = chunk_text(text)
    assert len(chunks) > 10
    assert all(c.kind is ChunkKind.LIST for c in chunks)
    assert_all(text, chunks, counter, ChunkerConfig(), counter.max_tokens)
