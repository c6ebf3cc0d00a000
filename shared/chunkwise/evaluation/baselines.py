"""Baseline chunkers for evaluation, by name (`chunkwise eval` configurations).

- ``chunkwise``: `chunkwise.chunk_text` with the configured `ChunkerConfig`.
- ``fixed``: the character baseline of the article "RAG chunking: preserve source
  positions and test retrieval units": windows of ``max_chars`` characters, each
  starting ``overlap_chars`` before the previous end. Ignores sentences, tables and
  headings; a cut may fall anywhere.
- ``recursive``: a recursive character splitter in the style of LangChain's
  ``RecursiveCharacterTextSplitter``: split at the first separator of
  ["\\n\\n", "\\n", ". ", " "] that occurs, recurse into pieces still too long,
  then merge neighbouring pieces greedily up to ``max_chars`` with up to
  ``overlap_chars`` of trailing pieces repeated (our own small implementation,
  so spans keep exact offsets).

Baselines emit real `Chunk` objects with exact offsets (``text[start:end] ==
body``), so their citations can be checked like chunkwise's; ``text == body``
(no heading path, overlap prefix or table header is added) and ``token_count``
is counted with the same tokenizer as chunkwise's. A baseline chunk may exceed
the model's token limit; the configuration says what happens to it (``over_cap``):

- ``truncate`` (default): indexed whole, embedded from its first tokens up to the
  cap, as a vector store that truncates silently does (`truncate_to_tokens`), and
  counted (``over_token_cap``, ``embedded_truncated``): part of what a baseline measures;
- ``split``: the baseline cuts it again at its own separators until every piece fits
  (`split_to_fit`), as a token-length splitter would.

Either way no baseline stops an evaluation because a chunk is longer than the model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Literal

from chunkwise.canonical import page_anchors
from chunkwise.chunking.config import ChunkerConfig
from chunkwise.errors import ConfigError
from chunkwise.models.counter import HFTokenCounter, load_counter
from chunkwise.schema import Chunk, ChunkKind
from chunkwise.text.offsets import byte_span

BaselineName = Literal["chunkwise", "fixed", "recursive"]
BASELINES: tuple[str, ...] = ("chunkwise", "fixed", "recursive")
OverCap = Literal["truncate", "split"]
OVER_CAP: tuple[str, ...] = ("truncate", "split")
RECURSIVE_SEPARATORS: tuple[str, ...] = ("\n\n", "\n", ". ", " ")

Span = tuple[int, int]


def fixed_size_spans(text: str, size: int, overlap: int = 0) -> list[Span]:
    """The ``fixed`` baseline: [start, end) windows of ``size`` chars, ``overlap`` shared."""
    if size <= 0 or not 0 <= overlap < size:
        raise ConfigError(
            "fixed baseline: require max_chars > 0 and 0 <= overlap_chars < max_chars"
        )
    spans: list[Span] = []
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        spans.append((start, end))
        if end == len(text):
            break
        start = end - overlap
    return spans


def _split(text: str, start: int, end: int, seps: Sequence[str], size: int) -> list[Span]:
    """Pieces of [start, end) no longer than ``size`` (separator kept at the piece's end)."""
    if end - start <= size:
        return [(start, end)]
    for i, sep in enumerate(seps):
        if text.find(sep, start, end) >= 0:
            rest = seps[i + 1 :]
            break
    else:
        return [(s, min(s + size, end)) for s in range(start, end, size)]
    pieces: list[Span] = []
    pos = start
    while pos < end:
        j = text.find(sep, pos, end)
        if j < 0:
            pieces.append((pos, end))
            break
        pieces.append((pos, j + len(sep)))
        pos = j + len(sep)
    out: list[Span] = []
    for s, e in pieces:
        out.extend([(s, e)] if e - s <= size else _split(text, s, e, rest, size))
    return out


def _strip(text: str, s: int, e: int) -> Span:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def recursive_spans(
    text: str,
    size: int,
    overlap: int = 0,
    separators: Sequence[str] = RECURSIVE_SEPARATORS,
) -> list[Span]:
    """Recursive character splitting + greedy merge with overlap; exact, stripped spans."""
    if size <= 0 or not 0 <= overlap < size:
        raise ConfigError(
            "recursive baseline: require max_chars > 0 and 0 <= overlap_chars < max_chars"
        )
    pieces = _split(text, 0, len(text), list(separators), size)
    spans: list[Span] = []
    window: list[Span] = []
    for piece in pieces:
        if window and piece[1] - window[0][0] > size:
            spans.append((window[0][0], window[-1][1]))
            # keep trailing pieces as overlap: at most `overlap` chars, and room for `piece`
            while window and (
                window[-1][1] - window[0][0] > overlap or piece[1] - window[0][0] > size
            ):
                window.pop(0)
        window.append(piece)
    if window:
        spans.append((window[0][0], window[-1][1]))
    out: list[Span] = []
    for s, e in spans:
        s, e = _strip(text, s, e)
        if e > s and (not out or out[-1] != (s, e)):
            out.append((s, e))
    return out


def split_to_fit(
    text: str,
    spans: Sequence[Span],
    fits: Callable[[str], bool],
    separators: Sequence[str] = RECURSIVE_SEPARATORS,
) -> list[Span]:
    """Each span that does not fit, cut again at ``separators`` into pieces of at most
    half its length, until every piece fits (a single character always does)."""
    out: list[Span] = []
    todo = list(reversed(spans))
    while todo:
        s, e = todo.pop()
        if e - s <= 1 or fits(text[s:e]):
            out.append((s, e))
            continue
        pieces = [_strip(text, a, b) for a, b in _split(text, s, e, list(separators), (e - s) // 2)]
        todo.extend(reversed([p for p in pieces if p[1] > p[0]]))
    return out


def truncate_to_tokens(text: str, count: Callable[[str], int], cap: int) -> str:
    """The longest prefix of ``text`` that ``count`` puts at or under ``cap`` tokens
    (what the model would have read of it had it truncated)."""
    if count(text) <= cap:
        return text
    lo, hi = 0, len(text)  # count(text[:lo]) <= cap < count(text[:hi])
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if count(text[:mid]) <= cap:
            lo = mid
        else:
            hi = mid
    return text[:lo]


def _page_at(anchors: list[tuple[int, int]], pos: int) -> int | None:
    page = None
    for at, n in anchors:
        if at > pos:
            break
        page = n
    return page


def _kind(body: str) -> ChunkKind:
    lines = [ln for ln in body.splitlines() if ln.strip()]
    rows = sum(ln.lstrip().startswith("|") for ln in lines)
    return ChunkKind.TABLE if lines and rows * 2 > len(lines) else ChunkKind.PROSE


def spans_to_chunks(
    text: str, spans: Sequence[Span], *, lang: str, counter: HFTokenCounter
) -> list[Chunk]:
    """Chunks with exact code-point and byte offsets; ``text == body`` (no added context)."""
    anchors = page_anchors(text)
    bodies = [text[s:e] for s, e in spans]
    counts = counter.count_many(bodies) if bodies else []
    chunks: list[Chunk] = []
    for i, ((s, e), body, tokens) in enumerate(zip(spans, bodies, counts, strict=True)):
        byte_start, byte_end = byte_span(text, s, e)
        p_start, p_end = _page_at(anchors, s), _page_at(anchors, max(s, e - 1))
        chunks.append(
            Chunk(
                chunk_index=i,
                start=s,
                end=e,
                byte_start=byte_start,
                byte_end=byte_end,
                body=body,
                text=body,
                token_count=tokens,
                sized_by_model=counter.model_id,
                sized_by_tokenizer=counter.tokenizer_id,
                kind=_kind(body),
                lang=lang,
                page_start=p_start,
                page_end=p_end,
                content_sha256=hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest(),
            )
        )
    return chunks


def chunk_with(
    baseline: str,
    text: str,
    lang: str,
    config: ChunkerConfig,
    *,
    counter: HFTokenCounter | None = None,
    over_cap: str = "truncate",
    token_cap: int | None = None,
) -> list[Chunk]:
    """Chunk ``text`` with the named baseline; sizes come from ``config``. With
    ``over_cap="split"`` a fixed or recursive chunk over ``token_cap`` tokens (default:
    the counter's cap) is cut again until it fits."""
    if baseline not in BASELINES:
        raise ConfigError(f"baseline: unknown {baseline!r} (choose from {', '.join(BASELINES)})")
    tok = counter or load_counter(
        config.tokenizer_path, config.max_tokens, config.add_special_tokens
    )
    if baseline == "chunkwise":
        from chunkwise.chunking.chunk import chunk_text

        return chunk_text(text, lang=lang, config=config, counter=tok)
    if not text.strip():
        return []
    if baseline == "fixed":
        spans = fixed_size_spans(text, config.max_chars, config.overlap_chars)
    else:
        spans = recursive_spans(text, config.max_chars, config.overlap_chars)
    if over_cap == "split":
        cap = token_cap or config.max_tokens or tok.max_tokens
        spans = split_to_fit(text, spans, lambda body: tok.count(body) <= cap)
    return spans_to_chunks(text, spans, lang=lang, counter=tok)
