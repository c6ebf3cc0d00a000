"""The retrieval context of a chunk and what it costs: `contextualize` and `Document`.

A chunk's `text` (what is indexed and embedded) is its body preceded by its
context: the heading path, the overlap from the previous chunk and, for a
table fragment that does not start the table, the table header. The body is
never altered; the context lives in separate fields and is only joined here.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from chunkwise.canonical import is_separator
from chunkwise.chunking.config import ChunkerConfig
from chunkwise.chunking.languages import LanguageRuns
from chunkwise.chunking.model import ChunkingReport, Draft, Section, Span
from chunkwise.chunking.rows import name_cells, split_cells
from chunkwise.chunking.sizing import TokenCounter
from chunkwise.chunking.spans import additive_join, indexable

# Token count of a block too long to be one atom: never compared, only split.
UNCOUNTED = 1 << 40


def contextualize(heading_line: str, overlap: str, table_header: str, body: str) -> str:
    """The text to embed and index: the non-empty context parts, then the body,
    one per line, made safe for the tokenizer (lone surrogates replaced)."""
    parts = (heading_line, overlap, table_header, body)
    return indexable("\n".join(p for p in parts if p))


@dataclass(slots=True)
class Document:
    """The input text and what every pass shares about it: the settings, the
    sizer, the language runs and the costs of context already counted."""

    text: str
    cfg: ChunkerConfig
    counter: TokenCounter
    report: ChunkingReport
    languages: LanguageRuns
    cap: int = 0
    _headings: dict[tuple[str, ...], tuple[str, int]] = field(default_factory=dict)
    _headers: dict[Span, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        max_tokens = self.cfg.max_tokens
        self.cap = max_tokens if max_tokens is not None else self.counter.max_tokens

    def lang_at(self, pos: int) -> str:
        return self.languages.at(pos)

    def bump(self, level: str) -> None:
        """Count one cut at a rung of the split ladder (reported per run)."""
        self.report.split_levels[level] = self.report.split_levels.get(level, 0) + 1

    def count_spans(self, spans: Sequence[Span]) -> list[int]:
        """Plain token counts of spans of the text, in one batch."""
        return self.counter.count_many_plain([indexable(self.text[s:e]) for s, e in spans])

    def count_span(self, start: int, end: int) -> int:
        return self.counter.count_plain(indexable(self.text[start:end]))

    # -- context costs -------------------------------------------------------

    def heading_line(self, path: tuple[str, ...]) -> str:
        """The heading context put into `text`, cut down if it would crowd out the body.

        A path costing more than a quarter of the token cap is reduced to its
        last heading, and dropped from `text` if even that is too long; the
        chunk's `heading_path` field always keeps the full path.
        """
        cached = self._headings.get(path)
        if cached is None:
            cached = ("", 0)
            limit = self.cap // 4
            for candidate in (path, path[-1:]):
                line = indexable(self.cfg.heading_separator.join(candidate))
                cost = self.counter.count_plain(line) if line else 0
                if cost <= limit:
                    cached = (line, cost)
                    break
            self._headings[path] = cached
        return cached[0]

    def heading_cost(self, path: tuple[str, ...]) -> int:
        self.heading_line(path)
        return self._headings[path][1]

    def _header_tokens(self, span: Span) -> int:
        cost = self._headers.get(span)
        if cost is None:
            cost = self.count_span(*span)
            self._headers[span] = cost
        return cost

    def long_header(self, span: Span | None) -> bool:
        """A header over half the cap: repeated whole it would leave no room for rows,
        so a fragment carries its rows' cells named instead (`named_cells`)."""
        return span is not None and self._header_tokens(span) > self.cap // 2

    def header_cost(self, span: Span | None) -> int:
        """Tokens of a repeated table header; a long header (`long_header`) is not
        repeated and costs nothing: the rows are packed as without a header, so they
        stay whole, and their named cells take only the room left (`named_cells`)."""
        if span is None or self.long_header(span):
            return 0
        return self._header_tokens(span)

    def named_cells(self, draft: Draft, span: Span) -> str:
        """The rows of a fragment under a long header, each as ``column: cell`` pairs
        (empty cells left out, as the row-level index names them), so a value says
        which column it is in; rows are added while the chunk's text fits the cap."""
        names = split_cells(self.text[span[0] : span[1]].splitlines()[0])
        body = self.text[draft.start : draft.end]
        heading = self.heading_line(draft.path)
        lines: list[str] = []
        for line in body.splitlines():
            if "|" not in line or is_separator(line):
                continue
            named = name_cells(names, split_cells(line))
            if not named:
                continue
            context = "\n".join([*lines, named])
            text = contextualize(heading, draft.overlap, context, body)
            if self.counter.count(text) > self.cap:
                break
            lines.append(named)
        return "\n".join(lines)

    def fixed_cost(self, section: Section, header: Span | None) -> int:
        """What a chunk in `section` pays before its body: specials, prefix,
        heading line and repeated table header."""
        return (
            self.counter.overhead_tokens
            + self.heading_cost(section.path)
            + self.header_cost(header)
        )

    def budget(self, section: Section, header: Span | None) -> int:
        """Tokens left for the body once the fixed context is paid for."""
        return max(1, self.cap - self.fixed_cost(section, header))

    # -- drafts --------------------------------------------------------------

    def header_text(self, draft: Draft) -> str:
        """The table header of the rows this draft holds, if any."""
        span = _header_span(draft)
        return self.text[span[0] : span[1]] if span is not None else ""

    def repeats_header(self, draft: Draft) -> bool:
        span = _header_span(draft)
        # The first fragment of a table already holds its header in the body.
        if span is None or span[0] >= draft.start:
            return False
        return self.long_header(span) or self.header_cost(span) > 0

    def render(self, draft: Draft) -> str:
        """The draft's `text`: see `contextualize`."""
        header = ""
        if self.repeats_header(draft):
            span = _header_span(draft)
            # A long header is not repeated whole (the `table_header` field keeps it):
            # the text carries the rows' named cells instead.
            if span is not None and self.long_header(span):
                header = self.named_cells(draft, span)
            else:
                header = self.header_text(draft)
        body = self.text[draft.start : draft.end]
        return contextualize(self.heading_line(draft.path), draft.overlap, header, body)

    def tokens(self, draft: Draft) -> int:
        """Exact token count of the draft's `text` (cached on the draft).

        With a tokenizer whose pre-tokenizer splits at whitespace and
        punctuation (BERT WordPiece), the count of pieces joined at such a
        character is the sum of their counts, so it is computed from the atoms'
        counts without tokenizing again. Any other join, or any other
        tokenizer, is counted on the rendered text.
        """
        if draft.tokens is None:
            if self._sums_up(draft):
                draft.tokens = self._summed_tokens(draft)
            else:
                draft.tokens = self.counter.count(self.render(draft))
        return draft.tokens

    def count_texts(self, drafts: Sequence[Draft]) -> list[int]:
        """Exact token counts of the drafts' `text`, tokenizing only what is new."""
        todo = [d for d in drafts if d.tokens is None and not self._sums_up(d)]
        if todo:
            counts = self.counter.count_many([self.render(d) for d in todo])
            for draft, count in zip(todo, counts, strict=True):
                draft.tokens = count
        return [self.tokens(d) for d in drafts]

    def _summed_tokens(self, draft: Draft) -> int:
        header = self.header_cost(_header_span(draft)) if self.repeats_header(draft) else 0
        return (
            self.counter.special_tokens
            + self.heading_cost(draft.path)
            + draft.overlap_tokens
            + header
            + sum(a.tokens for a in draft.atoms)
        )

    def _sums_up(self, draft: Draft) -> bool:
        """The draft's count is the sum of its parts' counts (see `tokens`)."""
        if not self.counter.additive:
            return False
        atoms = draft.atoms
        if self.long_header(_header_span(draft)):
            return False  # its named cells cost what they cost: counted on the text
        if any(a.tokens >= UNCOUNTED or not a.exact for a in atoms):
            return False
        return all(
            additive_join(self.text, left.end, right.start)
            for left, right in itertools.pairwise(atoms)
        )


def _header_span(draft: Draft) -> Span | None:
    for atom in draft.atoms:
        if atom.table_header is not None:
            return atom.table_header
    return None
