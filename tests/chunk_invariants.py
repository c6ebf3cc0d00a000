"""Invariant checks shared by the chunker's unit and property tests.

Each function asserts one rule of the Chunk contract (samdocs/architecture.md) on a
chunk list, so a test states *which* invariant it exercises and failures name it.
"""

from __future__ import annotations

import itertools

from chunkwise.chunking.chunk import is_runt
from chunkwise.chunking.config import ChunkerConfig
from chunkwise.models.counter import HFTokenCounter
from chunkwise.schema import Chunk
from chunkwise.text.segment import grapheme_boundaries


def assert_offsets(text: str, chunks: list[Chunk]) -> None:
    for c in chunks:
        assert text[c.start : c.end] == c.body, f"chunk {c.chunk_index}: body != text[start:end]"
        assert c.byte_start == len(text[: c.start].encode("utf-8", "surrogatepass"))
        assert c.byte_end - c.byte_start == len(c.body.encode("utf-8", "surrogatepass"))
    starts = [c.start for c in chunks]
    assert starts == sorted(starts), "chunks out of order"
    for a, b in itertools.pairwise(chunks):
        assert a.end <= b.start, f"chunks {a.chunk_index} and {b.chunk_index} overlap in source"
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))


def assert_grapheme_safe(text: str, chunks: list[Chunk]) -> None:
    bounds = set(grapheme_boundaries(text))
    for c in chunks:
        assert c.start in bounds, f"chunk {c.chunk_index} starts inside a grapheme cluster"
        assert c.end in bounds, f"chunk {c.chunk_index} ends inside a grapheme cluster"


def assert_token_cap(chunks: list[Chunk], counter: HFTokenCounter, cap: int) -> None:
    for c in chunks:
        exact = counter.count_whole(c.text)  # the tokenizer itself, not the memo
        assert c.token_count == exact, f"chunk {c.chunk_index}: {c.token_count} != {exact}"
        # A single grapheme cluster that alone exceeds the cap cannot be cut; none
        # of the generated inputs has one.
        assert c.token_count <= cap, f"chunk {c.chunk_index}: {c.token_count} tokens > cap {cap}"


def assert_coverage(text: str, chunks: list[Chunk]) -> None:
    covered = bytearray(len(text))
    for c in chunks:
        covered[c.start : c.end] = b"\x01" * (c.end - c.start)
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert not missing, f"non-whitespace not in any body at {missing[:5]} ({text[missing[0]]!r})"


def assert_text_holds_body(chunks: list[Chunk]) -> None:
    for c in chunks:
        if "\ufffd" not in c.text:  # lone surrogates are replaced in the indexed copy only
            assert c.text.endswith(c.body), f"chunk {c.chunk_index}: text does not end with body"
        if c.overlap_prefix:
            assert c.overlap_prefix in c.text


def assert_no_runts(chunks: list[Chunk], config: ChunkerConfig, cap: int) -> None:
    if len(chunks) <= 1:
        return
    runts = [c.chunk_index for c in chunks if is_runt(len(c.body), c.token_count, config, cap)]
    assert not runts, f"runt chunks {runts}"


def assert_all(
    text: str, chunks: list[Chunk], counter: HFTokenCounter, config: ChunkerConfig, cap: int
) -> None:
    assert_offsets(text, chunks)
    assert_grapheme_safe(text, chunks)
    assert_token_cap(chunks, counter, cap)
    assert_coverage(text, chunks)
    assert_text_holds_body(chunks)
