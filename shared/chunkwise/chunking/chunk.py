"""The chunker: canonical text -> citable, token-capped, structure-aware chunks.

Pipeline of pure steps (each a small function below):

1. `parse_blocks` finds typed blocks (headings, paragraphs, lists, code,
   tables); blocks are the atoms of packing.
2. `_Atomizer` turns blocks into atoms. A block that fits the budget is one
   atom. A block that does not is cut at its own semantic levels, in order:
   table rows / list items / code lines, then ICU sentences, then ICU words,
   and as a last resort ICU grapheme clusters. No cut ever falls inside a
   grapheme cluster.
3. `_pack` fills chunks greedily with whole atoms up to the character maximum
   and the hard token cap; a chunk past the soft target closes at the next
   paragraph boundary (and the next chunk then carries no overlap). A heading,
   a table edge or a switch between transcribed and native text always starts
   a new chunk.
4. `_coalesce_runts` merges chunks below the runt floor backward (forward when
   backward is blocked), never past the merge ceiling or the token cap.
5. `_enforce_token_cap` counts every final `text` with the real tokenizer and
   re-splits any chunk over the cap, so the cap holds whatever merges did.

`body` is always `text[start:end]` of the input, never normalised. Retrieval
context (heading path, overlap, table header) lives in separate fields and is
only joined into `text`, the string that is indexed and embedded.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from chunkwise.canonical import is_transcribed, page_number
from chunkwise.chunking.blocks import Block, BlockType, parse_blocks
from chunkwise.chunking.config import ChunkerConfig
from chunkwise.chunking.tokens import HFTokenCounter, load_counter
from chunkwise.schema import Chunk, ChunkKind
from chunkwise.stats import percentiles
from chunkwise.text.lang import detect_language, part_language, part_sample, stop_words
from chunkwise.text.offsets import utf8_len
from chunkwise.text.segment import grapheme_boundaries, split_sentences, word_boundaries

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_WHITESPACE = re.compile(r"\s")
# How far past a cut target the grapheme window reaches, so that the window's
# own end never produces a fake boundary near the cut.
_GRAPHEME_WINDOW_SLACK = 64
# Token count of a block too long to be one atom: never compared, only split.
_UNCOUNTED = 1 << 40
#: Longest heading kept in a chunk's `heading_path` (retrieval context, not cited
#: text): the field is a keyword, and one term over 32 KB would reject the whole
#: document; a real heading is far shorter.
MAX_HEADING_CHARS = 256
_HEADING_ELLIPSIS = "…"

# (start, end, plain tokens, exact): a span proposed as an atom.
Piece = tuple[int, int, int, bool]


@dataclass(frozen=True, slots=True)
class Section:
    """The heading context in force for an atom."""

    path: tuple[str, ...]
    transcribed: bool
    page: int | None
    lang: str = "und"


@dataclass(slots=True)
class Atom:
    start: int
    end: int
    kind: ChunkKind
    section: Section
    tokens: int  # plain tokens of text[start:end] (no special tokens)
    exact: bool = True  # False when cut inside a word: counts do not add up across it
    starts_section: bool = False
    table_id: int | None = None
    table_header: tuple[int, int] | None = None
    # First atom of its block: a paragraph boundary, where a chunk past the soft target closes.
    starts_block: bool = False


@dataclass(slots=True)
class Draft:
    """A chunk under construction: a contiguous run of atoms plus its context."""

    atoms: list[Atom]
    overlap: str = ""
    path: tuple[str, ...] = ()
    overlap_tokens: int = 0
    tokens: int | None = None  # exact tokens of the rendered text, once known

    @property
    def start(self) -> int:
        return self.atoms[0].start

    @property
    def end(self) -> int:
        return self.atoms[-1].end

    @property
    def chars(self) -> int:
        return self.end - self.start


@dataclass(slots=True)
class _Plan:
    """A content block with its context, before its tokens are known."""

    block: Block
    start: int  # may precede block.start: headings ride with the next block
    section: Section
    table_id: int
    caption: bool
    starts_section: bool
    pieces: list[tuple[int, int]]  # spans to count; their sum is the block's count


@dataclass(slots=True)
class _Frame:
    level: int
    title: str
    transcribed: bool
    page: int | None


@dataclass(slots=True)
class ChunkingReport:
    """What a chunking run produced; logged and turned into metrics."""

    chunks: int = 0
    runts: int = 0
    max_tokens: int = 0
    total_tokens: int = 0
    split_levels: dict[str, int] = field(default_factory=dict)
    # Body length distribution: the mean hides runts, the low percentiles do not.
    length_percentiles: dict[str, int] = field(default_factory=dict)


def chunk_text(
    text: str,
    lang: str | None = None,
    config: ChunkerConfig | None = None,
    *,
    counter: HFTokenCounter | None = None,
    report: ChunkingReport | None = None,
) -> list[Chunk]:
    """Chunk canonical text. Empty or whitespace-only text gives []."""
    cfg = config or ChunkerConfig()
    if not text.strip():
        return []
    tok = counter or load_counter(cfg.tokenizer_path, cfg.max_tokens, cfg.add_special_tokens)
    auto = lang in (None, "auto")
    language = detect_language(text) if auto else str(lang)
    chunker = _Chunker(text, language, cfg, tok, report or ChunkingReport(), per_section=auto)
    return chunker.run()


class _Chunker:
    def __init__(
        self,
        text: str,
        lang: str,
        cfg: ChunkerConfig,
        counter: HFTokenCounter,
        report: ChunkingReport,
        *,
        per_section: bool = False,
    ) -> None:
        self.text = text
        self.lang = lang
        self.per_section = per_section
        # Where each language run starts, and its language (see _section_languages).
        self._lang_starts: list[int] = [0]
        self._langs: list[str] = [lang]
        self.cfg = cfg
        self.counter = counter
        self.report = report
        self.cap = cfg.max_tokens if cfg.max_tokens is not None else counter.max_tokens
        self._heading_cache: dict[tuple[str, ...], tuple[str, int]] = {}
        self._header_cache: dict[tuple[int, int], int] = {}

    # -- public driver -------------------------------------------------------

    def run(self) -> list[Chunk]:
        blocks = parse_blocks(self.text)
        if self.per_section:
            self._section_languages(blocks)
        atoms = self._atomize(blocks)
        drafts = self._pack(atoms)
        drafts = self._coalesce_runts(drafts)
        drafts, counts = self._enforce_token_cap(drafts)
        return self._emit(drafts, counts)

    # -- language ------------------------------------------------------------

    def _section_languages(self, blocks: list[Block]) -> None:
        """Guess the language of each section, then of each paragraph and list.

        A section runs from a heading (a PDF page anchor is one) to the next and
        is guessed with the document's language as the prior; a paragraph or a
        list is guessed with its section's language as the prior, so that an
        untranslated English paragraph in a German manual is English. Tables
        and code take their section's language. A heading with no content of
        its own takes the language of what follows it, as its text rides in the
        next chunk. Each block's stop words are counted once; a section's are
        the sum of its blocks'. The result is a list of runs: (start, language).
        """
        counts = [stop_words(part_sample(self.text[b.start : b.end])) for b in blocks]
        section_langs = self._section_langs(blocks, counts)
        self._lang_starts, self._langs = [], []
        section = -1
        pending: int | None = None
        for block, (german, english) in zip(blocks, counts, strict=True):
            section += block.type is BlockType.HEADING or section < 0
            if block.type is BlockType.HEADING:
                pending = block.start if pending is None else pending
                continue
            lang = section_langs[section]
            if block.type in (BlockType.PARAGRAPH, BlockType.LIST):
                lang = part_language(german, english, lang)
            self._add_run(pending if pending is not None else block.start, lang)
            pending = None
        if pending is not None:
            self._add_run(pending, section_langs[section])
        if not self._langs:
            self._lang_starts, self._langs = [0], [self.lang]
        self._lang_starts[0] = 0

    def _section_langs(self, blocks: list[Block], counts: list[tuple[int, int]]) -> list[str]:
        """The language of each section (see `_section_languages`), in order."""
        sections: list[list[int]] = []  # [German, English, content blocks]
        for block, (german, english) in zip(blocks, counts, strict=True):
            if block.type is BlockType.HEADING or not sections:
                sections.append([0, 0, 0])
            sections[-1][0] += german
            sections[-1][1] += english
            sections[-1][2] += block.type is not BlockType.HEADING
        langs: list[str] = []
        following = self.lang
        for german, english, content in reversed(sections):
            if content:
                following = part_language(german, english, self.lang)
            langs.append(following)
        return langs[::-1]

    def _add_run(self, start: int, lang: str) -> None:
        if not self._langs or self._langs[-1] != lang:
            self._lang_starts.append(start)
            self._langs.append(lang)

    def _lang_at(self, pos: int) -> str:
        """The language of the text at offset `pos`."""
        return self._langs[max(0, bisect.bisect_right(self._lang_starts, pos) - 1)]

    # -- rendering and counting ----------------------------------------------

    def _heading_line(self, path: tuple[str, ...]) -> str:
        """The heading context put into `text`, cut down if it would crowd out the body.

        A path costing more than a quarter of the token cap is reduced to its
        last heading, and dropped from `text` if even that is too long; the
        chunk's `heading_path` field always keeps the full path.
        """
        cached = self._heading_cache.get(path)
        if cached is None:
            cached = ("", 0)
            limit = self.cap // 4
            for candidate in (path, path[-1:]):
                line = _indexable(self.cfg.heading_separator.join(candidate))
                cost = self.counter.count_plain(line) if line else 0
                if cost <= limit:
                    cached = (line, cost)
                    break
            self._heading_cache[path] = cached
        return cached[0]

    def _heading_cost(self, path: tuple[str, ...]) -> int:
        self._heading_line(path)
        return self._heading_cache[path][1]

    def _header_span(self, draft: Draft) -> tuple[int, int] | None:
        for atom in draft.atoms:
            if atom.table_header is not None:
                return atom.table_header
        return None

    def _header_text(self, draft: Draft) -> str:
        """The table header of the rows this draft holds, if any."""
        span = self._header_span(draft)
        return self.text[span[0] : span[1]] if span is not None else ""

    def _header_cost(self, span: tuple[int, int] | None) -> int:
        """Tokens of a repeated table header; a header over half the cap is not
        repeated (it would leave no room for rows) and costs nothing."""
        if span is None:
            return 0
        cost = self._header_cache.get(span)
        if cost is None:
            cost = self.counter.count_plain(_indexable(self.text[span[0] : span[1]]))
            self._header_cache[span] = cost
        return cost if cost <= self.cap // 2 else 0

    def _repeats_header(self, draft: Draft) -> bool:
        span = self._header_span(draft)
        # The first fragment of a table already holds its header in the body.
        return span is not None and span[0] < draft.start and self._header_cost(span) > 0

    def _render(self, draft: Draft) -> str:
        parts = [self._heading_line(draft.path), draft.overlap]
        if self._repeats_header(draft):
            parts.append(self._header_text(draft))
        parts.append(self.text[draft.start : draft.end])
        return _indexable("\n".join(p for p in parts if p))

    def _tokens(self, draft: Draft) -> int:
        """Exact token count of the draft's `text` (cached on the draft).

        With a tokenizer whose pre-tokenizer splits at whitespace and
        punctuation (BERT WordPiece), the count of pieces joined at such a
        character is the sum of their counts, so it is computed from the atoms'
        counts without tokenizing again. Any other join, or any other
        tokenizer, is counted on the rendered text.
        """
        if draft.tokens is None:
            if self.counter.additive and self._joins_are_additive(draft):
                draft.tokens = (
                    self.counter.special_tokens
                    + self._heading_cost(draft.path)
                    + draft.overlap_tokens
                    + (
                        self._header_cost(self._header_span(draft))
                        if self._repeats_header(draft)
                        else 0
                    )
                    + sum(a.tokens for a in draft.atoms)
                )
            else:
                draft.tokens = self.counter.count(self._render(draft))
        return draft.tokens

    def _joins_are_additive(self, draft: Draft) -> bool:
        atoms = draft.atoms
        if any(a.tokens >= _UNCOUNTED or not a.exact for a in atoms):
            return False
        return all(
            _additive_join(self.text, left.end, right.start)
            for left, right in itertools.pairwise(atoms)
        )

    def _count_texts(self, drafts: Sequence[Draft]) -> list[int]:
        """Exact token counts of the drafts' `text`, tokenizing only what is new."""
        todo = [
            d
            for d in drafts
            if d.tokens is None and not (self.counter.additive and self._joins_are_additive(d))
        ]
        if todo:
            for draft, count in zip(
                todo, self.counter.count_many([self._render(d) for d in todo]), strict=True
            ):
                draft.tokens = count
        return [self._tokens(d) for d in drafts]

    def _fixed_cost(self, section: Section, header: tuple[int, int] | None) -> int:
        return (
            self.counter.overhead_tokens
            + self._heading_cost(section.path)
            + self._header_cost(header)
        )

    # -- step 2: atoms -------------------------------------------------------

    def _atomize(self, blocks: list[Block]) -> list[Atom]:
        plans = self._plan_blocks(blocks)
        # One tokenizer batch for the whole document: every piece is counted once.
        spans = [span for plan in plans for span in plan.pieces]
        counts = self.counter.count_many_plain([_indexable(self.text[s:e]) for s, e in spans])
        span_tokens = dict(zip(spans, counts, strict=True))
        atoms: list[Atom] = []
        for plan in plans:
            new = self._plan_atoms(plan, [span_tokens[p] for p in plan.pieces])
            if plan.caption:
                # A caption travels with its table: same table id, so no break
                # between them and no overlap into it; attached once, to the first fragment.
                for atom in new:
                    atom.table_id = plan.table_id + 1
            new[0].starts_section = plan.starts_section
            new[0].starts_block = True
            atoms.extend(new)
        return atoms

    def _plan_blocks(self, blocks: list[Block]) -> list[_Plan]:
        """Heading context and the spans to count for every content block."""
        stack: list[_Frame] = []
        page: int | None = None
        pending: int | None = None
        table_id = 0
        plans: list[_Plan] = []
        for position, block in enumerate(blocks):
            if block.type is BlockType.HEADING:
                page = self._push_heading(stack, block, page)
                pending = block.start if pending is None else pending
                continue
            start = pending if pending is not None else block.start
            table_id += block.type in (BlockType.TABLE, BlockType.LINEAR_TABLE)
            caption = _is_caption(self.text, block, blocks[position + 1 : position + 2])
            plans.append(
                _Plan(
                    block,
                    start,
                    _section(stack, page, self._lang_at(start)),
                    table_id,
                    caption,
                    pending is not None,
                    self._pieces(block, start),
                )
            )
            pending = None
        if pending is not None:  # trailing heading(s) without content
            tail = Block(BlockType.PARAGRAPH, pending, blocks[-1].end)
            plans.append(
                _Plan(
                    tail,
                    pending,
                    _section(stack, page, self._lang_at(pending)),
                    table_id,
                    False,
                    True,
                    self._pieces(tail, pending),
                )
            )
        return plans

    def _pieces(self, block: Block, start: int) -> list[tuple[int, int]]:
        """What to count for a block: the whole span, or (for a long block and a
        tokenizer whose counts add up) its units or sentences, whose sum is the
        block's count, so a block that must be cut is never tokenized twice."""
        end = block.end
        if end - start > self.cfg.max_chars:
            return [(start, end)] if not self.counter.additive else self._split_spans(block, start)
        if not self.counter.additive or end - start <= 2 * self.cap:
            return [(start, end)]
        return self._split_spans(block, start)

    def _split_spans(self, block: Block, start: int) -> list[tuple[int, int]]:
        if block.units:
            spans = [(start, block.units[0][1]), *block.units[1:]]
        else:
            piece = self.text[block.start : block.end]
            spans = [
                _trim(self.text, block.start + s, block.start + e)
                for s, e in split_sentences(piece, self._lang_at(block.start))
            ]
            spans = [(s, e) for s, e in spans if s < e]
            spans[0] = (start, spans[0][1])
        if all(_additive_join(self.text, a[1], b[0]) for a, b in itertools.pairwise(spans)):
            return spans
        return [(start, block.end)]

    def _plan_atoms(self, plan: _Plan, counts: list[int]) -> list[Atom]:
        block, start, section = plan.block, plan.start, plan.section
        kind = _kind_for(block.type, section)
        is_table = block.type in (BlockType.TABLE, BlockType.LINEAR_TABLE)
        tid = plan.table_id if is_table else None
        budget = self._budget(section, block.header)
        too_long = block.end - start > self.cfg.max_chars
        if not too_long and sum(counts) <= budget:
            return [
                Atom(
                    start,
                    block.end,
                    kind,
                    section,
                    sum(counts),
                    table_id=tid,
                    table_header=block.header,
                )
            ]
        if len(plan.pieces) == 1:
            pieces = self._split_block(block, start, budget)
        else:
            if is_table:
                self._bump("table_rows")
            level = 0 if block.units else 1
            if not block.units:
                self._bump("sentences")
            pieces = []
            for (s, e), tokens in zip(plan.pieces, counts, strict=True):
                if e - s <= self.cfg.max_chars and tokens <= budget:
                    pieces.append((s, e, tokens, True))
                else:
                    pieces.extend(self._fit(s, e, budget, level, known_too_big=True))
        return [
            Atom(s, e, kind, section, t, exact=x, table_id=tid, table_header=block.header)
            for s, e, t, x in pieces
        ]

    def _push_heading(self, stack: list[_Frame], block: Block, page: int | None) -> int | None:
        popped: list[_Frame] = []
        while stack and stack[-1].level >= block.heading_level:
            popped.append(stack.pop())
        anchor = page_number(block.heading_title)
        if anchor is not None:
            page = anchor
        transcribed = is_transcribed(block.heading_title) or any(f.transcribed for f in stack)
        title = cap_heading(block.heading_title)
        stack.append(_Frame(block.heading_level, title, transcribed, page))
        if anchor is not None:
            stack.extend(_carried_sections(popped, block.heading_level))
        return page

    def _budget(self, section: Section, header: tuple[int, int] | None) -> int:
        """Tokens left for the body once the fixed context is paid for."""
        return max(1, self.cap - self._fixed_cost(section, header))

    def _split_block(self, block: Block, start: int, budget: int) -> list[Piece]:
        """Cut an over-budget block at its own units, then sentences, words, graphemes."""
        if not block.units:
            return self._fit(start, block.end, budget, level=0)
        if block.type is BlockType.TABLE:
            self._bump("table_rows")
        units = list(block.units)
        # Everything before the first unit (heading, table header) rides with it.
        units[0] = (start, units[0][1])
        return self._fit_each(units, budget, level=0)

    def _fit_each(self, spans: list[tuple[int, int]], budget: int, level: int) -> list[Piece]:
        """Count spans in one batch; keep those that fit, cut the others further."""
        short = [(s, e) for s, e in spans if e - s <= self.cfg.max_chars]
        counts = dict(
            zip(
                short,
                self.counter.count_many_plain([_indexable(self.text[s:e]) for s, e in short]),
                strict=True,
            )
        )
        pieces: list[Piece] = []
        for s, e in spans:
            tokens = counts.get((s, e), _UNCOUNTED)
            if tokens <= budget:
                pieces.append((s, e, tokens, True))
            else:
                pieces.extend(self._fit(s, e, budget, level, known_too_big=True))
        return pieces

    def _fit(
        self, start: int, end: int, budget: int, level: int, known_too_big: bool = False
    ) -> list[Piece]:
        """Pieces covering [start, end) that each fit the char and token budget."""
        if not known_too_big and end - start <= self.cfg.max_chars:
            tokens = self.counter.count_plain(_indexable(self.text[start:end]))
            if tokens <= budget:
                return [(start, end, tokens, True)]
        piece = self.text[start:end]
        if level == 0:
            self._bump("sentences")
            cuts = [start + s for s, _ in split_sentences(piece, self._lang_at(start))]
            parts = [_trim(self.text, s, e) for s, e in itertools.pairwise([*cuts, end])]
            return self._fit_each([(s, e) for s, e in parts if s < e], budget, level=1)
        self._bump("words")
        cuts = [start + b for b in word_boundaries(piece, self._lang_at(start))][1:-1]
        return self._group(start, end, cuts, budget)

    def _group(self, start: int, end: int, cuts: list[int], budget: int) -> list[Piece]:
        """Greedy grouping of words by characters, then checked against the tokens."""
        bounds = [start, *cuts, end]
        groups: list[tuple[int, int]] = []
        group_start = start
        last = start
        for b in bounds[1:]:
            if b - group_start > self.cfg.max_chars and last > group_start:
                groups.append((group_start, last))
                group_start = last
            last = b
        groups.append((group_start, end))
        pieces: list[Piece] = []
        for s, e in groups:
            pieces.extend(self._check_group(s, e, budget))
        return pieces

    def _check_group(self, start: int, end: int, budget: int) -> list[Piece]:
        s, e = _trim(self.text, start, end)
        if s >= e:
            return []
        if e - s <= self.cfg.max_chars:
            tokens = self.counter.count_plain(_indexable(self.text[s:e]))
            if tokens <= budget:
                return [(s, e, tokens, True)]
        cuts = [s + b for b in word_boundaries(self.text[s:e], self._lang_at(s))][1:-1]
        if not cuts:
            return self._grapheme_cuts(s, e, budget)
        middle = cuts[len(cuts) // 2]
        return self._check_group(s, middle, budget) + self._check_group(middle, e, budget)

    def _grapheme_cuts(self, start: int, end: int, budget: int) -> list[Piece]:
        """Last resort: cut at grapheme boundaries, shrinking until the tokens fit.

        Pieces cut inside a word are marked inexact: their token counts do not
        add up when joined again, so drafts holding them are counted whole.
        """
        self._bump("graphemes")
        pieces: list[Piece] = []
        pos = start
        while pos < end:
            target = min(end, pos + self.cfg.max_chars)
            previous_cut = -1
            while True:
                cut = self._grapheme_floor(pos, target, end)
                tokens = self.counter.count_plain(_indexable(self.text[pos:cut]))
                if tokens <= budget or cut == previous_cut:
                    break  # fits, or one cluster that cannot be made smaller
                previous_cut = cut
                target = pos + max(1, int((cut - pos) * budget / tokens * 0.9))
            pieces.append((pos, cut, tokens, False))
            pos = cut
        return pieces

    def _grapheme_floor(self, pos: int, target: int, end: int) -> int:
        """Largest grapheme boundary in (pos, target], or the first one after pos."""
        if target >= end:
            return end
        window_end = min(end, target + _GRAPHEME_WINDOW_SLACK)
        # The window starts at a known boundary, so boundaries inside it are true
        # ones; only its own end may be fake, and we never pick a point near it.
        bounds = grapheme_boundaries(self.text[pos:window_end])
        best = 0
        for b in bounds:
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

    def _bump(self, level: str) -> None:
        self.report.split_levels[level] = self.report.split_levels.get(level, 0) + 1

    # -- step 3: packing -----------------------------------------------------

    def _pack(self, atoms: list[Atom]) -> list[Draft]:
        drafts: list[Draft] = []
        current: Draft | None = None
        used = 0
        for atom in atoms:
            soft_close = False
            if current is not None and not self._breaks(current, atom):
                soft_close = self._past_soft_target(current, atom, used)
                extra = atom.end - current.start
                fits = extra <= self.cfg.max_chars and used + atom.tokens <= self.cap
                if fits and not soft_close:
                    current.atoms.append(atom)
                    used += atom.tokens
                    continue
            # After a soft close the next chunk starts a new paragraph on purpose:
            # the previous paragraph's tail would pull its vector toward another topic.
            previous = drafts[-1] if drafts and not soft_close else None
            current = self._open(atom, previous)
            used = self._opening_cost(current) + atom.tokens
            drafts.append(current)
        return drafts

    def _breaks(self, current: Draft, atom: Atom) -> bool:
        last = current.atoms[-1]
        return (
            atom.starts_section
            or atom.table_id != last.table_id
            or atom.section.transcribed != last.section.transcribed
            or atom.section.lang != last.section.lang
        )

    def _past_soft_target(self, current: Draft, atom: Atom, used: int) -> bool:
        """A chunk whose body already reached the soft target closes at the next
        paragraph boundary rather than take in another whole paragraph: one dense
        vector then stands for one topic, not an average of two.

        Table rows (one table id on both sides) and the sentences of one long
        paragraph (not a block start) keep filling up to the hard maximum. The
        chunk after a soft close carries no overlap.
        """
        if not atom.starts_block or atom.table_id is not None:
            return False
        fraction = self.cfg.soft_target_fraction
        return current.chars >= fraction * self.cfg.max_chars or used >= fraction * self.cap

    def _open(self, atom: Atom, previous: Draft | None) -> Draft:
        draft = Draft([atom], path=atom.section.path)
        if previous is not None and self._may_overlap(previous, atom):
            tail_of = self.text[previous.start : previous.end]
            overlap = _overlap_tail(tail_of, self.cfg.overlap_chars)
            if overlap:
                cost = self.counter.count_plain(_indexable(overlap))
                fixed = self._fixed_cost(atom.section, atom.table_header)
                if fixed + cost + atom.tokens <= self.cap:
                    draft.overlap = overlap
                    draft.overlap_tokens = cost
        return draft

    def _opening_cost(self, draft: Draft) -> int:
        atom = draft.atoms[0]
        return self._fixed_cost(atom.section, atom.table_header) + draft.overlap_tokens

    def _may_overlap(self, previous: Draft, atom: Atom) -> bool:
        """No overlap into or out of tables and transcribed text, nor across sections."""
        last = previous.atoms[-1]
        return not (
            self.cfg.overlap_chars == 0
            or atom.starts_section
            or atom.table_id is not None
            or last.table_id is not None
            or atom.section.transcribed
            or last.section.transcribed
        )

    # -- step 4: runts -------------------------------------------------------

    def _coalesce_runts(self, drafts: list[Draft]) -> list[Draft]:
        if len(drafts) < 2:
            return drafts
        floor = self.cfg.runt_floor
        i = len(drafts) - 1
        while i > 0:  # backward: small pieces coalesce with each other first
            if self._is_runt(drafts[i], floor) and self._try_merge(drafts, i - 1):
                i = min(i - 1, len(drafts) - 1)
                continue
            i -= 1
        i = 0
        while i < len(drafts) - 1:  # forward, where backward was blocked
            if self._is_runt(drafts[i], floor) and self._try_merge(drafts, i):
                continue
            i += 1
        i = 0
        while i < len(drafts):  # a merge would break the token cap: share atoms out
            if len(drafts) > 1 and self._is_runt(drafts[i], floor):
                self._rebalance(drafts, i)
            i += 1
        return drafts

    def _rebalance(self, drafts: list[Draft], i: int) -> None:
        """Re-pack a runt with up to three neighbours into as many even chunks."""
        floor = self.cfg.runt_floor
        for width in (2, 3, 4):
            for first in range(max(0, i - width + 1), min(i, len(drafts) - width) + 1):
                window = drafts[first : first + width]
                if any(_hard_edge(a, b) for a, b in itertools.pairwise(window)):
                    continue
                atoms = [a for d in window for a in d.atoms]
                repacked = self._even_split(atoms, width, window[0])
                if repacked is not None and not any(self._is_runt(d, floor) for d in repacked):
                    drafts[first : first + width] = repacked
                    return

    def _even_split(self, atoms: list[Atom], parts: int, head: Draft) -> list[Draft] | None:
        """`parts` drafts of near-equal length over `atoms`, or None if caps forbid."""
        total = atoms[-1].end - atoms[0].start
        target = total / parts
        groups: list[list[Atom]] = [[]]
        for atom in atoms:
            group = groups[-1]
            over = group and len(groups) < parts and (atom.end - group[0].start) > target * 1.02
            # Close the group here unless keeping the atom brings it closer to the target.
            if over and abs(atom.start - group[0].start - target) <= abs(
                atom.end - group[0].start - target
            ):
                groups.append([])
            groups[-1].append(atom)
        if len(groups) != parts or not all(groups):
            return None
        drafts = [
            Draft(
                groups[0], overlap=head.overlap, path=head.path, overlap_tokens=head.overlap_tokens
            )
        ]
        for group in groups[1:]:
            previous = drafts[-1]
            drafts.append(self._open_group(group, previous))
        for draft in drafts:
            if draft.chars > self.cfg.merge_ceiling:
                return None
        counts = self._count_texts(drafts)
        return drafts if all(c <= self.cap for c in counts) else None

    def _open_group(self, group: list[Atom], previous: Draft) -> Draft:
        draft = self._open(group[0], previous)
        draft.atoms.extend(group[1:])
        return draft

    def _is_runt(self, draft: Draft, floor: int) -> bool:
        """Small by both measures: under the char floor and under the token floor.

        With a small-context model the token cap binds long before the character
        target (German runs ~2.2 chars/token with all-MiniLM-L6-v2), so a chunk
        holding most of the token budget is not a fragment even if it is short
        in characters.
        """
        if draft.chars >= floor:
            return False
        return self._tokens(draft) < self.cfg.runt_fraction * self.cap

    def _try_merge(self, drafts: list[Draft], i: int) -> bool:
        """Merge drafts[i+1] into drafts[i] if the ceiling and token cap allow."""
        left, right = drafts[i], drafts[i + 1]
        if _hard_edge(left, right):
            return False
        if right.end - left.start > self.cfg.merge_ceiling:
            return False
        merged = Draft(
            left.atoms + right.atoms,
            overlap=left.overlap,
            path=_common_prefix(left.path, right.path),
            overlap_tokens=left.overlap_tokens,
        )
        if self._tokens(merged) > self.cap:
            return False
        drafts[i : i + 2] = [merged]
        return True

    # -- step 5: the hard cap -------------------------------------------------

    def _enforce_token_cap(self, drafts: list[Draft]) -> tuple[list[Draft], list[int]]:
        counts = self._count_texts(drafts)
        if all(c <= self.cap for c in counts):
            return drafts, counts
        result: list[Draft] = []
        for draft, count in zip(drafts, counts, strict=True):
            result.extend(self._split_until_fits(draft) if count > self.cap else [draft])
        return result, self._count_texts(result)

    def _split_until_fits(self, draft: Draft) -> list[Draft]:
        if self._tokens(draft) <= self.cap:
            return [draft]
        if draft.overlap:
            return self._split_until_fits(replace(draft, overlap="", overlap_tokens=0, tokens=None))
        if len(draft.atoms) > 1:
            mid = len(draft.atoms) // 2
            left = Draft(draft.atoms[:mid], path=draft.path)
            right = Draft(draft.atoms[mid:], path=draft.path)
            return self._split_until_fits(left) + self._split_until_fits(right)
        atom = draft.atoms[0]
        budget = self._budget(atom.section, atom.table_header)
        shrink = max(1, budget - (self._tokens(draft) - self.cap) - 2)
        spans = self._fit(atom.start, atom.end, shrink, level=1, known_too_big=True)
        if len(spans) <= 1:
            spans = self._grapheme_cuts(atom.start, atom.end, max(1, shrink // 2))
        pieces = [
            Draft([replace(atom, start=s, end=e, tokens=t, exact=x)], path=draft.path)
            for s, e, t, x in spans
        ]
        if len(pieces) <= 1:
            return pieces  # a single grapheme cluster over the cap: nothing smaller exists
        return [p for piece in pieces for p in self._split_until_fits(piece)]

    # -- output --------------------------------------------------------------

    def _emit(self, drafts: list[Draft], counts: list[int]) -> list[Chunk]:
        texts = [self._render(d) for d in drafts]
        chunks: list[Chunk] = []
        byte_pos = 0
        byte_at = 0
        for index, (draft, rendered, tokens) in enumerate(zip(drafts, texts, counts, strict=True)):
            byte_at += utf8_len(self.text[byte_pos : draft.start])
            byte_pos = draft.start
            body = self.text[draft.start : draft.end]
            byte_start = byte_at
            byte_end = byte_start + utf8_len(body)
            pages = [a.section.page for a in draft.atoms if a.section.page is not None]
            chunks.append(
                Chunk(
                    chunk_index=index,
                    start=draft.start,
                    end=draft.end,
                    byte_start=byte_start,
                    byte_end=byte_end,
                    body=body,
                    heading_path=list(draft.path),
                    overlap_prefix=draft.overlap,
                    table_header=self._header_text(draft),
                    text=rendered,
                    token_count=tokens,
                    sized_by_model=self.counter.model_id,
                    sized_by_tokenizer=self.counter.tokenizer_id,
                    kind=_draft_kind(draft),
                    lang=draft.atoms[0].section.lang,
                    page_start=min(pages) if pages else None,
                    page_end=max(pages) if pages else None,
                    content_sha256=hashlib.sha256(
                        body.encode("utf-8", "surrogatepass")
                    ).hexdigest(),
                )
            )
            if len(drafts) > 1 and is_runt(len(body), tokens, self.cfg, self.cap):
                self.report.runts += 1
        self.report.chunks = len(chunks)
        self.report.max_tokens = max(counts, default=0)
        self.report.total_tokens = sum(counts)
        lengths = [len(c.body) for c in chunks]
        self.report.length_percentiles = {k: int(v) for k, v in percentiles(lengths).items()}
        return chunks


# -- small pure helpers ------------------------------------------------------


def is_runt(chars: int, tokens: int, config: ChunkerConfig, cap: int) -> bool:
    """The runt invariant, shared by the chunker, its report and the tests."""
    return chars < config.runt_floor and tokens < config.runt_fraction * cap


def _carried_sections(popped: list[_Frame], anchor_level: int) -> list[_Frame]:
    """Sections that continue past a page anchor: a page break does not end a section.

    A PDF's `## Page N` anchor is a citation, not a section: the headings below
    the previous anchor stay the context of the text that follows on the new
    page, until a heading of their level replaces them. Transcribed (OCR)
    sections are not carried: they belong to their page only.
    """
    carried: list[_Frame] = []
    for frame in reversed(popped):  # outermost first
        if frame.level <= anchor_level or page_number(frame.title) is not None:
            continue
        if frame.transcribed:
            break
        carried.append(frame)
    return carried


def _section(stack: list[_Frame], page: int | None, lang: str) -> Section:
    transcribed = any(f.transcribed for f in stack)
    return Section(tuple(f.title for f in stack if f.title), transcribed, page, lang)


def _kind_for(block_type: BlockType, section: Section) -> ChunkKind:
    if section.transcribed:
        return ChunkKind.TRANSCRIBED
    return {
        BlockType.TABLE: ChunkKind.TABLE,
        BlockType.LINEAR_TABLE: ChunkKind.TABLE,
        BlockType.CODE: ChunkKind.CODE,
        BlockType.LIST: ChunkKind.LIST,
    }.get(block_type, ChunkKind.PROSE)


def _draft_kind(draft: Draft) -> ChunkKind:
    """The kind covering most of the body's characters."""
    weights: dict[ChunkKind, int] = {}
    for atom in draft.atoms:
        weights[atom.kind] = weights.get(atom.kind, 0) + (atom.end - atom.start)
    return max(weights.items(), key=lambda kv: (kv[1], kv[0].value))[0]


_CAPTION_MAX_CHARS = 300


def _is_caption(text: str, block: Block, following: list[Block]) -> bool:
    """A short one-line paragraph right before a table is that table's caption."""
    return (
        block.type is BlockType.PARAGRAPH
        and bool(following)
        and following[0].type in (BlockType.TABLE, BlockType.LINEAR_TABLE)
        and block.end - block.start <= _CAPTION_MAX_CHARS
        and "\n" not in text[block.start : block.end]
    )


# Characters BERT's normaliser treats as whitespace (Python's isspace() is wider).
_BERT_SPACE = frozenset(" \t\n\r")


def _is_split_char(ch: str) -> bool:
    """A character at which a BERT pre-tokenizer always splits: space or punctuation."""
    if ch in _BERT_SPACE:
        return True
    category = unicodedata.category(ch)
    return (
        category == "Zs"
        or category.startswith("P")
        or (ch.isascii() and not ch.isalnum() and ch.isprintable())
    )


def _additive_join(text: str, left_end: int, right_start: int) -> bool:
    """True if tokens(left + gap + right) == tokens(left) + tokens(right) for BERT."""
    gap = text[left_end:right_start]
    if gap and any(_is_split_char(ch) for ch in gap) and all(ch.isspace() for ch in gap):
        return True
    if gap:
        return False
    return _is_split_char(text[left_end - 1]) or _is_split_char(text[right_start])


def _hard_edge(left: Draft, right: Draft) -> bool:
    """Drafts that must never share atoms: transcribed next to native text, or
    text in two languages (a chunk has one `lang`, one analyzer)."""
    last, first = left.atoms[-1].section, right.atoms[0].section
    return last.transcribed != first.transcribed or last.lang != first.lang


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink a span so it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _overlap_tail(body: str, limit: int) -> str:
    """The last `limit` characters of a body, snapped forward to a word start."""
    if limit <= 0 or not body:
        return ""
    if len(body) <= limit:
        return body.strip()
    tail = body[-limit:]
    match = _WHITESPACE.search(tail)
    if match is None:
        return ""  # one unbroken word: no clean snap point, no overlap
    return tail[match.end() :].strip()


def cap_heading(title: str, limit: int = MAX_HEADING_CHARS) -> str:
    """``title`` cut to at most ``limit`` code points, at a space if one is near the
    end, never inside a combining sequence, marked with an ellipsis."""
    if len(title) <= limit:
        return title
    cut = limit - len(_HEADING_ELLIPSIS)
    space = title.rfind(" ", cut - 32, cut + 1)
    if space > 0:
        cut = space
    while cut > 0 and unicodedata.combining(title[cut]):
        cut -= 1  # keep a base letter with its marks
    return title[:cut].rstrip() + _HEADING_ELLIPSIS


def _indexable(text: str) -> str:
    """A copy safe for the tokenizer: lone surrogates become U+FFFD."""
    if _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)

