"""The plain data the chunking passes hand each other."""

from __future__ import annotations

from dataclasses import dataclass, field

from chunkwise.chunking.blocks import Block
from chunkwise.schema import ChunkKind

# (start, end, plain tokens, exact): a span proposed as an atom.
Piece = tuple[int, int, int, bool]
# A half-open code-point span of the input.
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Section:
    """The heading context in force for an atom."""

    path: tuple[str, ...]
    transcribed: bool
    page: int | None
    lang: str = "und"


@dataclass(slots=True)
class Atom:
    """The unit of packing: a span no pass cuts again unless the cap forces it."""

    start: int
    end: int
    kind: ChunkKind
    section: Section
    tokens: int  # plain tokens of text[start:end] (no special tokens)
    exact: bool = True  # False when cut inside a word: counts do not add up across it
    starts_section: bool = False
    table_id: int | None = None
    table_header: Span | None = None
    # First atom of its block: a paragraph boundary, where a chunk past the soft target closes.
    starts_block: bool = False
    # The page the atom's leading headings open on, when it is not its content's: a
    # slide title with no body of its own, or a heading at the foot of a page.
    lead_page: int | None = None
    # The page a paragraph run on across a page anchor ends on, when the atom holds
    # both sides of the break (`split.atomize`).
    end_page: int | None = None


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
class Plan:
    """A content block with its context, before its tokens are known."""

    block: Block
    start: int  # may precede block.start: headings ride with the next block
    section: Section
    table_id: int
    caption: bool
    starts_section: bool
    pieces: list[Span]  # spans to count; their sum is the block's count
    lead_page: int | None = None  # page at `start` when the leading headings began earlier
    # The block goes on with the paragraph before the page anchor it follows: the
    # anchor is a citation inside one sentence, not a section start (`sections`).
    continues: bool = False


@dataclass(slots=True)
class Frame:
    """One open heading on the section stack."""

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
