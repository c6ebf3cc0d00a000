"""The chunker: canonical text -> citable, token-capped, structure-aware chunks.

Pipeline of pure steps (each a small function below):

1. `parse_blocks` finds typed blocks (headings, paragraphs, lists, code,
   tables); blocks are the atoms of packing.
2. `_Atomizer` turns blocks into atoms. A block that fits the budget is one
   atom. A block that does not is cut at its own semantic levels, in order:
   table rows / list items / code lines, then ICU sentences, then ICU words,
   and as a last resort ICU grapheme clusters. No cut ever falls inside a
   grapheme cluster.
3. `_pack` fills chunks greedily with whole atoms up to the character target
   and the hard token cap. A heading, a table edge or a switch between
   transcribed and native text always starts a new chunk.
4. `_coalesce_runts` merges chunks below the runt floor backward (forward when
   backward is blocked), never past the merge ceiling or the token cap.
5. `_enforce_token_cap` counts every final `text` with the real tokenizer and
   re-splits any chunk over the cap, so the cap holds whatever merges did.

`body` is always `text[start:end]` of the input, never normalised. Retrieval
context (heading path, overlap, table header) lives in separate fields and is
only joined into `text`, the string that is indexed and embedded.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from chunkwise.blocks import Block, BlockType, is_transcribed, page_number, parse_blocks
from chunkwise.config import ChunkerConfig
from chunkwise.lang import detect_language
from chunkwise.schema import Chunk, ChunkKind
from chunkwise.segment import grapheme_boundaries, split_sentences, word_boundaries
from chunkwise.tokens import HFTokenCounter, load_counter

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_WHITESPACE = re.compile(r"\s")
# How far past a cut target the grapheme window reaches, so that the window's
# own end never produces a fake boundary near the cut.
_GRAPHEME_WINDOW_SLACK = 64


@dataclass(frozen=True, slots=True)
class Section:
    """The heading context in force for an atom."""

    path: tuple[str, ...]
    transcribed: bool
    page: int | None


@dataclass(slots=True)
class Atom:
    start: int
    end: int
    kind: ChunkKind
    section: Section
    tokens: int
    starts_section: bool = False
    table_id: int | None = None
    table_header: tuple[int, int] | None = None


@dataclass(slots=True)
class Draft:
    """A chunk under construction: a contiguous run of atoms plus its context."""

    atoms: list[Atom]
    overlap: str = ""
    path: tuple[str, ...] = ()
    pages: tuple[int | None, int | None] = (None, None)

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
    split_levels: dict[str, int] = field(default_factory=dict)


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
    language = detect_language(text) if lang in (None, "auto") else str(lang)
    chunker = _Chunker(text, language, cfg, tok, report or ChunkingReport())
    return chunker.run()


class _Chunker:
    def __init__(
        self,
        text: str,
        lang: str,
        cfg: ChunkerConfig,
        counter: HFTokenCounter,
        report: ChunkingReport,
    ) -> None:
        self.text = text
        self.lang = lang
        self.cfg = cfg
        self.counter = counter
        self.report = report
        self.cap = cfg.max_tokens if cfg.max_tokens is not None else counter.max_tokens
        self._heading_tokens: dict[tuple[str, ...], int] = {}

    # -- public driver -------------------------------------------------------

    def run(self) -> list[Chunk]:
        atoms = self._atomize(parse_blocks(self.text))
        drafts = self._pack(atoms)
        drafts = self._coalesce_runts(drafts)
        drafts = self._enforce_token_cap(drafts)
        return self._emit(drafts)

    # -- rendering and counting ----------------------------------------------

    def _heading_line(self, path: tuple[str, ...]) -> str:
        return self.cfg.heading_separator.join(path)

    def _heading_cost(self, path: tuple[str, ...]) -> int:
        cost = self._heading_tokens.get(path)
        if cost is None:
            line = self._heading_line(path)
            cost = self.counter.count_many_plain([_indexable(line)])[0] if line else 0
            self._heading_tokens[path] = cost
        return cost

    def _header_text(self, draft: Draft) -> str:
        """The table header to repeat, if the draft holds rows of a table."""
        for atom in draft.atoms:
            if atom.table_header is not None:
                h_start, h_end = atom.table_header
                return self.text[h_start:h_end]
        return ""

    def _render(self, draft: Draft) -> str:
        body = self.text[draft.start : draft.end]
        header = self._header_text(draft)
        parts = [self._heading_line(draft.path), draft.overlap]
        # The first fragment of a table already holds its header in the body.
        if header and not body.startswith(header) and header not in body:
            parts.append(header)
        parts.append(body)
        return _indexable("\n".join(p for p in parts if p))

    def _count_texts(self, drafts: Sequence[Draft]) -> list[int]:
        return self.counter.count_many([self._render(d) for d in drafts])

    def _fixed_cost(self, section: Section, header: tuple[int, int] | None) -> int:
        cost = self.counter.special_tokens + self._heading_cost(section.path)
        if header is not None:
            cost += self.counter.count_many_plain([self.text[header[0] : header[1]]])[0]
        return cost + 2  # joining newlines are free for most tokenizers; keep slack

    # -- step 2: atoms -------------------------------------------------------

    def _atomize(self, blocks: list[Block]) -> list[Atom]:
        stack: list[_Frame] = []
        page: int | None = None
        pending_heading: int | None = None
        atoms: list[Atom] = []
        bodies = [b for b in blocks if b.type is not BlockType.HEADING]
        counts = self.counter.count_many_plain(
            [_indexable(self.text[b.start : b.end]) for b in bodies]
        )
        block_tokens = {id(b): c for b, c in zip(bodies, counts, strict=True)}
        table_id = 0
        for position, block in enumerate(blocks):
            if block.type is BlockType.HEADING:
                page = self._push_heading(stack, block, page)
                if pending_heading is None:
                    pending_heading = block.start
                continue
            section = _section(stack, page)
            start = pending_heading if pending_heading is not None else block.start
            table_id += block.type in (BlockType.TABLE, BlockType.LINEAR_TABLE)
            new = self._block_atoms(block, start, section, block_tokens[id(block)], table_id)
            if _is_caption(self.text, block, blocks[position + 1 : position + 2]):
                # A caption travels with its table: same table id, so no break
                # between them and no overlap into it; attached once, to the first fragment.
                for atom in new:
                    atom.table_id = table_id + 1
            if pending_heading is not None:
                new[0].starts_section = True
            pending_heading = None
            atoms.extend(new)
        if pending_heading is not None:  # trailing heading(s) without content
            section = _section(stack, page)
            end = blocks[-1].end
            tokens = self.counter.count_many_plain([_indexable(self.text[pending_heading:end])])[0]
            atoms.append(Atom(pending_heading, end, _kind_for(BlockType.PARAGRAPH, section),
                              section, tokens, starts_section=True))
        return atoms

    def _push_heading(self, stack: list[_Frame], block: Block, page: int | None) -> int | None:
        while stack and stack[-1].level >= block.heading_level:
            stack.pop()
        anchor = page_number(block.heading_title)
        if anchor is not None:
            page = anchor
        transcribed = is_transcribed(block.heading_title) or any(f.transcribed for f in stack)
        stack.append(_Frame(block.heading_level, block.heading_title, transcribed, page))
        return page

    def _block_atoms(
        self, block: Block, start: int, section: Section, tokens: int, table_id: int
    ) -> list[Atom]:
        kind = _kind_for(block.type, section)
        is_table = block.type in (BlockType.TABLE, BlockType.LINEAR_TABLE)
        tid = table_id if is_table else None
        budget = self.cap - self._fixed_cost(section, block.header)
        heading_tokens = 0
        if start != block.start:
            heading_tokens = self.counter.count_many_plain(
                [_indexable(self.text[start : block.start])]
            )[0]
        if block.end - start <= self.cfg.max_chars and tokens + heading_tokens <= budget:
            return [Atom(start, block.end, kind, section, tokens + heading_tokens,
                         table_id=tid, table_header=block.header)]
        spans = self._split_block(block, start, budget)
        counts = self.counter.count_many_plain([_indexable(self.text[s:e]) for s, e in spans])
        return [
            Atom(s, e, kind, section, c, table_id=tid, table_header=block.header)
            for (s, e), c in zip(spans, counts, strict=True)
        ]

    def _split_block(self, block: Block, start: int, budget: int) -> list[tuple[int, int]]:
        """Cut an over-budget block at its own units, then sentences, words, graphemes."""
        if block.units:
            units = list(block.units)
            # Everything before the first unit (heading, table header) rides with it.
            units[0] = (start, units[0][1])
            if block.type is BlockType.TABLE and block.header is not None:
                self._bump("table_rows")
        else:
            units = [(start, block.end)]
        spans: list[tuple[int, int]] = []
        for u_start, u_end in units:
            spans.extend(self._fit(u_start, u_end, budget, level=0))
        return spans

    def _fit(self, start: int, end: int, budget: int, level: int) -> list[tuple[int, int]]:
        """Spans covering [start, end) that each fit the char and token budget."""
        piece = self.text[start:end]
        if len(piece) <= self.cfg.max_chars and (
            self.counter.count_many_plain([_indexable(piece)])[0] <= budget
        ):
            return [(start, end)]
        if level == 0:
            self._bump("sentences")
            cuts = [start + s for s, _ in split_sentences(piece, self.lang)][1:]
            return self._fit_parts(start, end, cuts, budget, level)
        if level == 1:
            self._bump("words")
            cuts = [start + b for b in word_boundaries(piece, self.lang)][1:-1]
            return self._group(start, end, cuts, budget)
        self._bump("graphemes")
        return self._grapheme_cuts(start, end, budget)

    def _fit_parts(
        self, start: int, end: int, cuts: list[int], budget: int, level: int
    ) -> list[tuple[int, int]]:
        bounds = [start, *cuts, end]
        spans: list[tuple[int, int]] = []
        for s, e in itertools.pairwise(bounds):
            s2, e2 = _trim(self.text, s, e)
            if s2 < e2:
                spans.extend(self._fit(s2, e2, budget, level + 1))
        return spans

    def _group(self, start: int, end: int, cuts: list[int], budget: int) -> list[tuple[int, int]]:
        """Greedy grouping of word pieces; words too long alone fall to graphemes."""
        bounds = [start, *cuts, end]
        spans: list[tuple[int, int]] = []
        group_start = start
        last = start
        for b in bounds[1:]:
            if b - group_start > self.cfg.max_chars and last > group_start:
                spans.extend(self._check_group(group_start, last, budget))
                group_start = last
            last = b
        spans.extend(self._check_group(group_start, end, budget))
        return [span for span in spans if span[0] < span[1]]

    def _check_group(self, start: int, end: int, budget: int) -> list[tuple[int, int]]:
        s, e = _trim(self.text, start, end)
        if s >= e:
            return []
        piece = _indexable(self.text[s:e])
        tokens = self.counter.count_many_plain([piece])[0]
        if tokens <= budget and e - s <= self.cfg.max_chars:
            return [(s, e)]
        cuts = [s + b for b in word_boundaries(self.text[s:e], self.lang)][1:-1]
        if not cuts:
            return self._grapheme_cuts(s, e, budget)
        middle = cuts[len(cuts) // 2]
        return self._check_group(s, middle, budget) + self._check_group(middle, e, budget)

    def _grapheme_cuts(self, start: int, end: int, budget: int) -> list[tuple[int, int]]:
        """Last resort: cut at grapheme boundaries, shrinking until the tokens fit."""
        spans: list[tuple[int, int]] = []
        pos = start
        while pos < end:
            target = min(end, pos + self.cfg.max_chars)
            while True:
                cut = self._grapheme_floor(pos, target, end)
                tokens = self.counter.count_many_plain([_indexable(self.text[pos:cut])])[0]
                if tokens <= budget or cut - pos <= 1:
                    break
                target = pos + max(1, int((cut - pos) * budget / tokens * 0.9))
            spans.append((pos, cut))
            pos = cut
        return spans

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
            if current is not None and not self._breaks(current, atom):
                extra = atom.end - current.start
                if extra <= self.cfg.max_chars and used + atom.tokens <= self.cap:
                    current.atoms.append(atom)
                    used += atom.tokens
                    continue
            current = self._open(atom, drafts[-1] if drafts else None)
            used = self._opening_cost(current) + atom.tokens
            drafts.append(current)
        return drafts

    def _breaks(self, current: Draft, atom: Atom) -> bool:
        last = current.atoms[-1]
        return (
            atom.starts_section
            or atom.table_id != last.table_id
            or atom.section.transcribed != last.section.transcribed
        )

    def _open(self, atom: Atom, previous: Draft | None) -> Draft:
        draft = Draft([atom], path=atom.section.path)
        if previous is not None and self._may_overlap(previous, atom):
            tail_of = self.text[previous.start : previous.end]
            overlap = _overlap_tail(tail_of, self.cfg.overlap_chars)
            if overlap:
                cost = self.counter.count_many_plain([_indexable(overlap)])[0]
                fixed = self._fixed_cost(atom.section, atom.table_header)
                if fixed + cost + atom.tokens <= self.cap:
                    draft.overlap = overlap
        return draft

    def _opening_cost(self, draft: Draft) -> int:
        cost = self._fixed_cost(draft.atoms[0].section, draft.atoms[0].table_header)
        if draft.overlap:
            cost += self.counter.count_many_plain([_indexable(draft.overlap)])[0]
        return cost

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
            if drafts[i].chars < floor and self._try_merge(drafts, i - 1):
                i = min(i - 1, len(drafts) - 1)
                continue
            i -= 1
        i = 0
        while i < len(drafts) - 1:  # forward, where backward was blocked
            if drafts[i].chars < floor and self._try_merge(drafts, i):
                continue
            i += 1
        i = 0
        while i < len(drafts):  # a merge would break the token cap: share atoms out
            if len(drafts) > 1 and drafts[i].chars < floor:
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
                if repacked is not None and all(d.chars >= floor for d in repacked):
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
        drafts = [Draft(groups[0], overlap=head.overlap, path=head.path)]
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

    def _try_merge(self, drafts: list[Draft], i: int) -> bool:
        """Merge drafts[i+1] into drafts[i] if the ceiling and token cap allow."""
        left, right = drafts[i], drafts[i + 1]
        if left.atoms[-1].section.transcribed != right.atoms[0].section.transcribed:
            return False
        if right.end - left.start > self.cfg.merge_ceiling:
            return False
        merged = Draft(left.atoms + right.atoms, overlap=left.overlap,
                       path=_common_prefix(left.path, right.path))
        if self.counter.count(self._render(merged)) > self.cap:
            return False
        drafts[i : i + 2] = [merged]
        return True

    # -- step 5: the hard cap -------------------------------------------------

    def _enforce_token_cap(self, drafts: list[Draft]) -> list[Draft]:
        counts = self._count_texts(drafts)
        if all(c <= self.cap for c in counts):
            return drafts
        result: list[Draft] = []
        for draft, count in zip(drafts, counts, strict=True):
            result.extend(self._split_until_fits(draft) if count > self.cap else [draft])
        return result

    def _split_until_fits(self, draft: Draft) -> list[Draft]:
        if self.counter.count(self._render(draft)) <= self.cap:
            return [draft]
        if draft.overlap:
            return self._split_until_fits(replace(draft, overlap=""))
        if len(draft.atoms) > 1:
            mid = len(draft.atoms) // 2
            left = Draft(draft.atoms[:mid], path=draft.path)
            right = Draft(draft.atoms[mid:], path=draft.path)
            return self._split_until_fits(left) + self._split_until_fits(right)
        atom = draft.atoms[0]
        budget = self.cap - self._fixed_cost(atom.section, atom.table_header)
        shrink = max(1, budget - (self.counter.count(self._render(draft)) - self.cap) - 2)
        spans = self._fit(atom.start, atom.end, shrink, level=1)
        if len(spans) <= 1:
            spans = self._grapheme_cuts(atom.start, atom.end, max(1, shrink // 2))
        pieces = [Draft([replace(atom, start=s, end=e)], path=draft.path) for s, e in spans]
        if len(pieces) <= 1:
            return pieces  # a single grapheme cluster over the cap: nothing smaller exists
        return [p for piece in pieces for p in self._split_until_fits(piece)]

    # -- output --------------------------------------------------------------

    def _emit(self, drafts: list[Draft]) -> list[Chunk]:
        texts = [self._render(d) for d in drafts]
        counts = self.counter.count_many(texts)
        chunks: list[Chunk] = []
        byte_pos = 0
        byte_at = 0
        floor = self.cfg.runt_floor
        for index, (draft, rendered, tokens) in enumerate(zip(drafts, texts, counts, strict=True)):
            byte_at += _utf8_len(self.text[byte_pos : draft.start])
            byte_pos = draft.start
            body = self.text[draft.start : draft.end]
            byte_start = byte_at
            byte_end = byte_start + _utf8_len(body)
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
                    kind=_draft_kind(draft),
                    lang=self.lang,
                    page_start=min(pages) if pages else None,
                    page_end=max(pages) if pages else None,
                    content_sha256=hashlib.sha256(
                        body.encode("utf-8", "surrogatepass")
                    ).hexdigest(),
                )
            )
            if len(drafts) > 1 and len(body) < floor:
                self.report.runts += 1
        self.report.chunks = len(chunks)
        self.report.max_tokens = max(counts, default=0)
        return chunks


# -- small pure helpers ------------------------------------------------------


def _section(stack: list[_Frame], page: int | None) -> Section:
    transcribed = any(f.transcribed for f in stack)
    return Section(tuple(f.title for f in stack if f.title), transcribed, page)


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


def _hard_edge(left: Draft, right: Draft) -> bool:
    """Drafts that must never share atoms: transcribed next to native text."""
    return left.atoms[-1].section.transcribed != right.atoms[0].section.transcribed


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


def _indexable(text: str) -> str:
    """A copy safe for the tokenizer: lone surrogates become U+FFFD."""
    if _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
