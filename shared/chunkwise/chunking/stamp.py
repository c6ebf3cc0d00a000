"""Pass: drafts -> `Chunk`s, with offsets, ids, kind, language and pages stamped,
and the run's report filled in."""

from __future__ import annotations

import hashlib

from chunkwise.chunking.config import ChunkerConfig
from chunkwise.chunking.context import Document
from chunkwise.chunking.model import Draft
from chunkwise.schema import Chunk, ChunkKind
from chunkwise.stats import percentiles
from chunkwise.text.offsets import utf8_len


def is_runt(chars: int, tokens: int, config: ChunkerConfig, cap: int) -> bool:
    """The runt invariant, shared by the chunker, its report and the tests."""
    return chars < config.runt_floor and tokens < config.runt_fraction * cap


def stamp(doc: Document, drafts: list[Draft], counts: list[int]) -> list[Chunk]:
    """The final chunks, numbered in order; `body` is always `text[start:end]`."""
    chunks: list[Chunk] = []
    byte_pos = 0
    byte_at = 0
    for index, (draft, tokens) in enumerate(zip(drafts, counts, strict=True)):
        byte_at += utf8_len(doc.text[byte_pos : draft.start])
        byte_pos = draft.start
        chunks.append(_chunk(doc, draft, index, tokens, byte_at))
    runts = [is_runt(len(c.body), c.token_count, doc.cfg, doc.cap) for c in chunks]
    report = doc.report
    report.runts += sum(runts) if len(drafts) > 1 else 0
    report.chunks = len(chunks)
    report.max_tokens = max(counts, default=0)
    report.total_tokens = sum(counts)
    lengths = [len(c.body) for c in chunks]
    report.length_percentiles = {k: int(v) for k, v in percentiles(lengths).items()}
    return chunks


def _chunk(doc: Document, draft: Draft, index: int, tokens: int, byte_start: int) -> Chunk:
    body = doc.text[draft.start : draft.end]
    # the body cites every page it holds text of, its leading headings' pages too
    pages = [a.section.page for a in draft.atoms if a.section.page is not None]
    pages += [a.lead_page for a in draft.atoms if a.lead_page is not None]
    pages += [a.end_page for a in draft.atoms if a.end_page is not None]
    return Chunk(
        chunk_index=index,
        start=draft.start,
        end=draft.end,
        byte_start=byte_start,
        byte_end=byte_start + utf8_len(body),
        body=body,
        heading_path=list(draft.path),
        overlap_prefix=draft.overlap,
        table_header=doc.header_text(draft),
        text=doc.render(draft),
        token_count=tokens,
        sized_by_model=doc.counter.model_id,
        sized_by_tokenizer=doc.counter.tokenizer_id,
        kind=_draft_kind(draft),
        lang=draft.atoms[0].section.lang,
        page_start=min(pages) if pages else None,
        page_end=max(pages) if pages else None,
        content_sha256=hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest(),
    )


def _draft_kind(draft: Draft) -> ChunkKind:
    """The kind covering most of the body's characters."""
    weights: dict[ChunkKind, int] = {}
    for atom in draft.atoms:
        weights[atom.kind] = weights.get(atom.kind, 0) + (atom.end - atom.start)
    return max(weights.items(), key=lambda kv: (kv[1], kv[0].value))[0]
