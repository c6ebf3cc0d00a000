"""Pass: atoms -> drafts, filled greedily, each opened with its overlap.

A draft takes whole atoms up to the character maximum and the token cap; one
past the soft target closes at the next paragraph boundary (and the next
draft then carries no overlap). A heading, a table edge, a switch between
transcribed and native text or between languages always opens a new draft.
"""

from __future__ import annotations

import re

from chunkwise.chunking.context import Document
from chunkwise.chunking.model import Atom, Draft
from chunkwise.chunking.spans import indexable

_WHITESPACE = re.compile(r"\s")


def pack(doc: Document, atoms: list[Atom]) -> list[Draft]:
    drafts: list[Draft] = []
    current: Draft | None = None
    used = 0
    for atom in atoms:
        soft_close = False
        if current is not None and not _breaks(current, atom):
            soft_close = _past_soft_target(doc, current, atom, used)
            extra = atom.end - current.start
            fits = extra <= doc.cfg.max_chars and used + atom.tokens <= doc.cap
            if fits and not soft_close:
                current.atoms.append(atom)
                used += atom.tokens
                continue
        # After a soft close the next chunk starts a new paragraph on purpose:
        # the previous paragraph's tail would pull its vector toward another topic.
        previous = drafts[-1] if drafts and not soft_close else None
        current = open_draft(doc, atom, previous)
        used = _opening_cost(doc, current) + atom.tokens
        drafts.append(current)
    return drafts


def _breaks(current: Draft, atom: Atom) -> bool:
    last = current.atoms[-1]
    return (
        atom.starts_section
        or atom.table_id != last.table_id
        or atom.section.transcribed != last.section.transcribed
        or atom.section.lang != last.section.lang
    )


def _past_soft_target(doc: Document, current: Draft, atom: Atom, used: int) -> bool:
    """A chunk whose body already reached the soft target closes at the next
    paragraph boundary rather than take in another whole paragraph: one dense
    vector then stands for one topic, not an average of two.

    Table rows (one table id on both sides) and the sentences of one long
    paragraph (not a block start) keep filling up to the hard maximum. The
    chunk after a soft close carries no overlap.
    """
    if not atom.starts_block or atom.table_id is not None:
        return False
    fraction = doc.cfg.soft_target_fraction
    return current.chars >= fraction * doc.cfg.max_chars or used >= fraction * doc.cap


def open_draft(doc: Document, atom: Atom, previous: Draft | None) -> Draft:
    """A new draft holding `atom`, with the tail of `previous` as overlap if
    overlap is allowed there and the token cap leaves room for it."""
    draft = Draft([atom], path=atom.section.path)
    if previous is not None and _may_overlap(doc, previous, atom):
        tail_of = doc.text[previous.start : previous.end]
        overlap = overlap_tail(tail_of, doc.cfg.overlap_chars)
        if overlap:
            cost = doc.counter.count_plain(indexable(overlap))
            fixed = doc.fixed_cost(atom.section, atom.table_header)
            if fixed + cost + atom.tokens <= doc.cap:
                draft.overlap = overlap
                draft.overlap_tokens = cost
    return draft


def _opening_cost(doc: Document, draft: Draft) -> int:
    atom = draft.atoms[0]
    return doc.fixed_cost(atom.section, atom.table_header) + draft.overlap_tokens


def _may_overlap(doc: Document, previous: Draft, atom: Atom) -> bool:
    """No overlap into or out of tables and transcribed text, nor across sections."""
    last = previous.atoms[-1]
    return not (
        doc.cfg.overlap_chars == 0
        or atom.starts_section
        or atom.table_id is not None
        or last.table_id is not None
        or atom.section.transcribed
        or last.section.transcribed
    )


def overlap_tail(body: str, limit: int) -> str:
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
