"""Pass: blocks -> atoms, cutting a block that does not fit down the split ladder.

The ladder is data: `LADDER` lists the semantic levels coarsest first, and the
engine (`fit`) walks it. A span that fits the character maximum and the token
budget is one piece; one that does not is cut at the next rung down and each
part is fitted again. Sections and blocks are the rungs packing respects (a
section start always opens a chunk, a block is one atom when it fits); a
block with units (table rows, list items, code lines) is cut at them; then
come ICU sentences, ICU words and, as a last resort, grapheme clusters. No cut
ever falls inside a grapheme cluster.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import replace
from enum import IntEnum

from chunkwise.chunking.blocks import Block, BlockType
from chunkwise.chunking.context import UNCOUNTED, Document
from chunkwise.chunking.model import Atom, Piece, Plan, Section, Span
from chunkwise.chunking.spans import additive_join, trim
from chunkwise.schema import ChunkKind
from chunkwise.text.segment import grapheme_boundaries, split_sentences, word_boundaries

# How far past a cut target the grapheme window reaches, so that the window's
# own end never produces a fake boundary near the cut.
_GRAPHEME_WINDOW_SLACK = 64


class Rung(IntEnum):
    """The semantic levels a text is cut at, coarsest first."""

    SECTION = 0  # a heading and what follows it, up to the next heading
    BLOCK = 1  # a paragraph, list, code block or table
    UNIT = 2  # a table row, list item or code line
    SENTENCE = 3
    WORD = 4
    GRAPHEME = 5


#: The order the engine walks; a span too big at one rung is cut at the next.
LADDER: tuple[Rung, ...] = tuple(Rung)

TABLES = (BlockType.TABLE, BlockType.LINEAR_TABLE)


def below(rung: Rung) -> Rung:
    """The next finer rung (the grapheme rung is the last)."""
    return LADDER[min(LADDER.index(rung) + 1, len(LADDER) - 1)]


# -- the engine ----------------------------------------------------------------


def fit(
    doc: Document, start: int, end: int, budget: int, rung: Rung, known_too_big: bool = False
) -> list[Piece]:
    """Pieces covering [start, end) that each fit the char and token budget,
    cut at `rung` (and below it) if the span as a whole does not fit."""
    if not known_too_big and end - start <= doc.cfg.max_chars:
        tokens = doc.count_span(start, end)
        if tokens <= budget:
            return [(start, end, tokens, True)]
    return _CUTTERS[rung](doc, start, end, budget)


def fit_each(doc: Document, spans: list[Span], budget: int, rung: Rung) -> list[Piece]:
    """Count spans in one batch; keep those that fit, cut the others at `rung`."""
    short = [(s, e) for s, e in spans if e - s <= doc.cfg.max_chars]
    counts = dict(zip(short, doc.count_spans(short), strict=True))
    pieces: list[Piece] = []
    for s, e in spans:
        tokens = counts.get((s, e), UNCOUNTED)
        if tokens <= budget:
            pieces.append((s, e, tokens, True))
        else:
            pieces.extend(fit(doc, s, e, budget, rung, known_too_big=True))
    return pieces


def _cut_sentences(doc: Document, start: int, end: int, budget: int) -> list[Piece]:
    doc.bump("sentences")
    piece = doc.text[start:end]
    cuts = [start + s for s, _ in split_sentences(piece, doc.lang_at(start))]
    parts = [trim(doc.text, s, e) for s, e in itertools.pairwise([*cuts, end])]
    return fit_each(doc, [(s, e) for s, e in parts if s < e], budget, below(Rung.SENTENCE))


def _cut_words(doc: Document, start: int, end: int, budget: int) -> list[Piece]:
    """Greedy grouping of words by characters, then checked against the tokens."""
    doc.bump("words")
    piece = doc.text[start:end]
    cuts = [start + b for b in word_boundaries(piece, doc.lang_at(start))][1:-1]
    groups: list[Span] = []
    group_start = start
    last = start
    for b in [*cuts, end]:
        if b - group_start > doc.cfg.max_chars and last > group_start:
            groups.append((group_start, last))
            group_start = last
        last = b
    groups.append((group_start, end))
    return [p for s, e in groups for p in _halve_at_words(doc, s, e, budget)]


def _halve_at_words(doc: Document, start: int, end: int, budget: int) -> list[Piece]:
    """A word group that fits, or its halves (at the middle word boundary)."""
    s, e = trim(doc.text, start, end)
    if s >= e:
        return []
    if e - s <= doc.cfg.max_chars:
        tokens = doc.count_span(s, e)
        if tokens <= budget:
            return [(s, e, tokens, True)]
    cuts = [s + b for b in word_boundaries(doc.text[s:e], doc.lang_at(s))][1:-1]
    if not cuts:
        return _CUTTERS[below(Rung.WORD)](doc, s, e, budget)
    middle = cuts[len(cuts) // 2]
    return _halve_at_words(doc, s, middle, budget) + _halve_at_words(doc, middle, e, budget)


def cut_graphemes(doc: Document, start: int, end: int, budget: int) -> list[Piece]:
    """Last resort: cut at grapheme boundaries, shrinking until the tokens fit.

    Pieces cut inside a word are marked inexact: their token counts do not
    add up when joined again, so drafts holding them are counted whole.
    """
    doc.bump("graphemes")
    pieces: list[Piece] = []
    pos = start
    while pos < end:
        target = min(end, pos + doc.cfg.max_chars)
        previous_cut = -1
        while True:
            cut = _grapheme_floor(doc.text, pos, target, end)
            tokens = doc.count_span(pos, cut)
            if tokens <= budget or cut == previous_cut:
                break  # fits, or one cluster that cannot be made smaller
            previous_cut = cut
            target = pos + max(1, int((cut - pos) * budget / tokens * 0.9))
        pieces.append((pos, cut, tokens, False))
        pos = cut
    return pieces


def _grapheme_floor(text: str, pos: int, target: int, end: int) -> int:
    """Largest grapheme boundary in (pos, target], or the first one after pos."""
    if target >= end:
        return end
    window_end = min(end, target + _GRAPHEME_WINDOW_SLACK)
    # The window starts at a known boundary, so boundaries inside it are true
    # ones; only its own end may be fake, and we never pick a point near it.
    best = 0
    for b in grapheme_boundaries(text[pos:window_end]):
        if b == 0:
            continue
        if pos + b > target:
            if best == 0:
                best = b
            break
        best = b
    if best == 0 or (pos + best == window_end and window_end != end):
        return window_end  # one cluster longer than the window: keep it whole
    return pos + best


Cutter = Callable[[Document, int, int, int], list[Piece]]
#: How a span is cut at each rung below the block (units are the block's own).
_CUTTERS: dict[Rung, Cutter] = {
    Rung.SENTENCE: _cut_sentences,
    Rung.WORD: _cut_words,
    Rung.GRAPHEME: cut_graphemes,
}


# -- blocks -> atoms -------------------------------------------------------------


def count_plan(doc: Document, block: Block, start: int) -> list[Span]:
    """What to count for a block: the whole span, or (for a long block and a
    tokenizer whose counts add up) its units or sentences, whose sum is the
    block's count, so a block that must be cut is never tokenized twice."""
    end = block.end
    if end - start > doc.cfg.max_chars:
        return [(start, end)] if not doc.counter.additive else _unit_spans(doc, block, start)
    if not doc.counter.additive or end - start <= 2 * doc.cap:
        return [(start, end)]
    return _unit_spans(doc, block, start)


def _unit_spans(doc: Document, block: Block, start: int) -> list[Span]:
    if block.units:
        spans = [(start, block.units[0][1]), *block.units[1:]]
    else:
        piece = doc.text[block.start : block.end]
        spans = [
            trim(doc.text, block.start + s, block.start + e)
            for s, e in split_sentences(piece, doc.lang_at(block.start))
        ]
        spans = [(s, e) for s, e in spans if s < e]
        spans[0] = (start, spans[0][1])
    if all(additive_join(doc.text, a[1], b[0]) for a, b in itertools.pairwise(spans)):
        return spans
    return [(start, block.end)]


def atomize(doc: Document, plans: list[Plan]) -> list[Atom]:
    """The atoms of every planned block, all counted in one tokenizer batch."""
    spans = [span for plan in plans for span in plan.pieces]
    span_tokens = dict(zip(spans, doc.count_spans(spans), strict=True))
    atoms: list[Atom] = []
    for plan in plans:
        new = _plan_atoms(doc, plan, [span_tokens[p] for p in plan.pieces])
        if plan.caption:
            # A caption travels with its table: same table id, so no break
            # between them and no overlap into it; attached once, to the first fragment.
            for atom in new:
                atom.table_id = plan.table_id + 1
        new[0].starts_section = plan.starts_section
        new[0].starts_block = not plan.continues
        new[0].lead_page = plan.lead_page
        if plan.continues and atoms:
            new = _glue(doc, atoms, new, plan.block.start)
        atoms.extend(new)
    return atoms


def _glue(doc: Document, atoms: list[Atom], new: list[Atom], resumes: int) -> list[Atom]:
    """A paragraph run on over a page anchor: the sentence the break cuts made one
    atom, so that it is in one chunk, which cites both pages (`end_page`).

    The last atom before the anchor and the first after it (which holds the anchor
    line, `body` being the input's span) are joined whole if that fits; else the
    last sentence before the break and the first after it (at `resumes`, where
    the paragraph goes on) become one atom, between what is left of both. Returns
    `new` without what went into the joined atom; `atoms[-1]` is replaced.
    """
    last, first = atoms[-1], new[0]
    if last.table_id is not None or not (last.exact and first.exact) or resumes >= first.end:
        return new
    budget = doc.budget(last.section, None)
    page = first.section.page
    if first.end - last.start <= doc.cfg.max_chars:
        tokens = doc.count_span(last.start, first.end)
        if tokens <= budget:
            atoms[-1] = replace(last, end=first.end, tokens=tokens, end_page=page)
            return new[1:]
    tail = _sentences(doc, last.start, last.end)[-1][0]
    head = _sentences(doc, resumes, first.end)[0][1]
    if head - tail > doc.cfg.max_chars:
        return new
    left = trim(doc.text, last.start, tail)
    right = trim(doc.text, head, first.end)
    spans = [left, (tail, head), right]
    counts = doc.count_spans([(s, e) for s, e in spans if s < e])
    counted = dict(zip([(s, e) for s, e in spans if s < e], counts, strict=True))
    if counted[(tail, head)] > budget:
        return new
    bridge = replace(last, start=tail, end=head, tokens=counted[(tail, head)], end_page=page)
    if left[0] < left[1]:  # the bridge goes on within the paragraph, after its start
        atoms[-1] = replace(last, end=left[1], tokens=counted[left])
        bridge.starts_section = bridge.starts_block = False
        bridge.lead_page = None
        atoms.append(bridge)
    else:
        atoms[-1] = bridge
    if right[0] >= right[1]:
        return new[1:]
    return [replace(first, start=right[0], tokens=counted[right]), *new[1:]]


def _sentences(doc: Document, start: int, end: int) -> list[Span]:
    """The ICU sentences of [start, end), trimmed (the whole span if there are none)."""
    piece = doc.text[start:end]
    spans = [
        trim(doc.text, start + s, start + e) for s, e in split_sentences(piece, doc.lang_at(start))
    ]
    return [(s, e) for s, e in spans if s < e] or [(start, end)]


def _plan_atoms(doc: Document, plan: Plan, counts: list[int]) -> list[Atom]:
    block, start, section = plan.block, plan.start, plan.section
    tid = plan.table_id if block.type in TABLES else None
    budget = doc.budget(section, block.header)
    too_long = block.end - start > doc.cfg.max_chars
    if not too_long and sum(counts) <= budget:
        pieces: list[Piece] = [(start, block.end, sum(counts), True)]
    elif len(plan.pieces) == 1:
        pieces = _split_block(doc, block, start, budget)
    else:
        pieces = _fit_counted(doc, plan, counts, budget)
    kind = _kind_for(block.type, section)
    return [
        Atom(s, e, kind, section, t, exact=x, table_id=tid, table_header=block.header)
        for s, e, t, x in pieces
    ]


def _fit_counted(doc: Document, plan: Plan, counts: list[int], budget: int) -> list[Piece]:
    """Pieces of a block already counted in parts (units or sentences)."""
    block = plan.block
    if block.type in TABLES:
        doc.bump("table_rows")
    if not block.units:
        doc.bump("sentences")
    rung = below(Rung.UNIT if block.units else Rung.SENTENCE)
    pieces: list[Piece] = []
    for (s, e), tokens in zip(plan.pieces, counts, strict=True):
        if e - s <= doc.cfg.max_chars and tokens <= budget:
            pieces.append((s, e, tokens, True))
        else:
            pieces.extend(fit(doc, s, e, budget, rung, known_too_big=True))
    return pieces


def _split_block(doc: Document, block: Block, start: int, budget: int) -> list[Piece]:
    """Cut an over-budget block at its own units, then down the ladder."""
    if not block.units:
        return fit(doc, start, block.end, budget, below(Rung.UNIT))
    if block.type is BlockType.TABLE:
        doc.bump("table_rows")
    units = list(block.units)
    # Everything before the first unit (heading, table header) rides with it.
    units[0] = (start, units[0][1])
    return fit_each(doc, units, budget, below(Rung.UNIT))


def refit(doc: Document, atom: Atom, budget: int) -> list[Atom]:
    """An atom too big for its chunk once rendered, cut smaller at words, or at
    graphemes (to half the budget) if no word boundary helps."""
    spans = fit(doc, atom.start, atom.end, budget, Rung.WORD, known_too_big=True)
    if len(spans) <= 1:
        spans = cut_graphemes(doc, atom.start, atom.end, max(1, budget // 2))
    return [replace(atom, start=s, end=e, tokens=t, exact=x) for s, e, t, x in spans]


def _kind_for(block_type: BlockType, section: Section) -> ChunkKind:
    if section.transcribed:
        return ChunkKind.TRANSCRIBED
    return {
        BlockType.TABLE: ChunkKind.TABLE,
        BlockType.LINEAR_TABLE: ChunkKind.TABLE,
        BlockType.CODE: ChunkKind.CODE,
        BlockType.LIST: ChunkKind.LIST,
    }.get(block_type, ChunkKind.PROSE)
