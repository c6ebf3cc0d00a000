"""Pass: the language of each stretch of the text (one `lang` per chunk)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from chunkwise.chunking.blocks import Block, BlockType
from chunkwise.text.lang import part_language, part_sample, stop_words


@dataclass(slots=True)
class LanguageRuns:
    """Where each language run starts, and its language; the first starts at 0."""

    starts: list[int] = field(default_factory=lambda: [0])
    langs: list[str] = field(default_factory=lambda: ["und"])

    @classmethod
    def single(cls, lang: str) -> LanguageRuns:
        return cls([0], [lang])

    def at(self, pos: int) -> str:
        """The language of the text at offset `pos`."""
        return self.langs[max(0, bisect.bisect_right(self.starts, pos) - 1)]

    def add(self, start: int, lang: str) -> None:
        if not self.langs or self.langs[-1] != lang:
            self.starts.append(start)
            self.langs.append(lang)


def section_languages(text: str, blocks: list[Block], document_lang: str) -> LanguageRuns:
    """Guess the language of each section, then of each paragraph and list.

    A section runs from a heading (a PDF page anchor is one) to the next and
    is guessed with the document's language as the prior; a paragraph or a
    list is guessed with its section's language as the prior, so that an
    untranslated English paragraph in a German manual is English. Tables
    and code take their section's language. A heading with no content of
    its own takes the language of what follows it, as its text rides in the
    next chunk. Each block's stop words are counted once; a section's are
    the sum of its blocks'.
    """
    counts = [stop_words(part_sample(text[b.start : b.end])) for b in blocks]
    section_langs = _section_langs(blocks, counts, document_lang)
    runs = LanguageRuns([], [])
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
        runs.add(pending if pending is not None else block.start, lang)
        pending = None
    if pending is not None:
        runs.add(pending, section_langs[section])
    if not runs.langs:
        return LanguageRuns.single(document_lang)
    runs.starts[0] = 0
    return runs


def _section_langs(
    blocks: list[Block], counts: list[tuple[int, int]], document_lang: str
) -> list[str]:
    """The language of each section (see `section_languages`), in order."""
    sections: list[list[int]] = []  # [German, English, content blocks]
    for block, (german, english) in zip(blocks, counts, strict=True):
        if block.type is BlockType.HEADING or not sections:
            sections.append([0, 0, 0])
        sections[-1][0] += german
        sections[-1][1] += english
        sections[-1][2] += block.type is not BlockType.HEADING
    langs: list[str] = []
    following = document_lang
    for german, english, content in reversed(sections):
        if content:
            following = part_language(german, english, document_lang)
        langs.append(following)
    return langs[::-1]
