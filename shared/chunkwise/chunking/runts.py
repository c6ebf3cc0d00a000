"""Pass: merge runts (chunks small by characters and by tokens) into neighbours.

Backward first (small pieces coalesce with each other), forward where backward
was blocked, never past the merge ceiling or the token cap; a runt that no
merge can absorb is re-packed with up to three neighbours into even drafts.
"""

from __future__ import annotations

import itertools

from chunkwise.canonical import is_slide_anchor, page_number
from chunkwise.chunking.context import Document
from chunkwise.chunking.model import Atom, Draft
from chunkwise.chunking.pack import open_draft


def coalesce_runts(doc: Document, drafts: list[Draft]) -> list[Draft]:
    if len(drafts) < 2:
        return drafts
    i = len(drafts) - 1
    while i > 0:  # backward: small pieces coalesce with each other first
        if _is_runt(doc, drafts[i]) and _try_merge(doc, drafts, i - 1):
            i = min(i - 1, len(drafts) - 1)
            continue
        i -= 1
    i = 0
    while i < len(drafts) - 1:  # forward, where backward was blocked
        if _is_runt(doc, drafts[i]) and _try_merge(doc, drafts, i):
            continue
        i += 1
    i = 0
    while i < len(drafts):  # a merge would break the token cap: share atoms out
        if len(drafts) > 1 and _is_runt(doc, drafts[i]):
            _rebalance(doc, drafts, i)
        i += 1
    return drafts


def hard_edge(left: Draft, right: Draft) -> bool:
    """Drafts that must never share atoms: transcribed next to native text, or
    text in two languages (a chunk has one `lang`, one analyzer)."""
    last, first = left.atoms[-1].section, right.atoms[0].section
    return last.transcribed != first.transcribed or last.lang != first.lang


def _is_runt(doc: Document, draft: Draft) -> bool:
    """Small by both measures: under the char floor and under the token floor.

    With a small-context model the token cap binds long before the character
    target (German runs ~2.2 chars/token with all-MiniLM-L6-v2), so a chunk
    holding most of the token budget is not a fragment even if it is short
    in characters.
    """
    if draft.chars >= doc.cfg.runt_floor:
        return False
    return doc.tokens(draft) < doc.cfg.runt_fraction * doc.cap


def _try_merge(doc: Document, drafts: list[Draft], i: int) -> bool:
    """Merge drafts[i+1] into drafts[i] if the ceiling and token cap allow."""
    left, right = drafts[i], drafts[i + 1]
    if hard_edge(left, right):
        return False
    if right.end - left.start > doc.cfg.merge_ceiling:
        return False
    merged = Draft(
        left.atoms + right.atoms,
        overlap=left.overlap,
        path=_common_prefix(left.path, right.path),
        overlap_tokens=left.overlap_tokens,
    )
    if doc.tokens(merged) > doc.cap:
        return False
    drafts[i : i + 2] = [merged]
    return True


def _rebalance(doc: Document, drafts: list[Draft], i: int) -> None:
    """Re-pack a runt with up to three neighbours into as many even chunks."""
    for width in (2, 3, 4):
        for first in range(max(0, i - width + 1), min(i, len(drafts) - width) + 1):
            window = drafts[first : first + width]
            if any(hard_edge(a, b) for a, b in itertools.pairwise(window)):
                continue
            atoms = [a for d in window for a in d.atoms]
            repacked = _even_split(doc, atoms, width, window[0])
            if repacked is not None and not any(_is_runt(doc, d) for d in repacked):
                drafts[first : first + width] = repacked
                return


def _even_split(doc: Document, atoms: list[Atom], parts: int, head: Draft) -> list[Draft] | None:
    """`parts` drafts of near-equal length over `atoms`, or None if caps forbid."""
    groups = _even_groups(atoms, parts)
    if groups is None:
        return None
    drafts = [
        Draft(groups[0], overlap=head.overlap, path=head.path, overlap_tokens=head.overlap_tokens)
    ]
    for group in groups[1:]:
        draft = open_draft(doc, group[0], drafts[-1])
        draft.atoms.extend(group[1:])
        drafts.append(draft)
    if any(draft.chars > doc.cfg.merge_ceiling for draft in drafts):
        return None
    counts = doc.count_texts(drafts)
    return drafts if all(c <= doc.cap for c in counts) else None


def _even_groups(atoms: list[Atom], parts: int) -> list[list[Atom]] | None:
    """`atoms` in `parts` runs of near-equal length, or None if they do not divide."""
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
    return groups


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    """The headings both paths share. Two page anchors at the same depth count as shared
    (the first one's is kept): the sections carried past a page break ("Page 2 > 3.1.2"
    and "Page 3 > 3.1.2") are the same sections, and a chunk spanning the break is in them.
    Two slides are not: a chunk spanning "Slide 2 > Agenda" and "Slide 3 > Ziele" is in
    neither's sections (its pages still say which slides it cites)."""
    n = 0
    while n < min(len(a), len(b)) and (a[n] == b[n] or _both_pages(a[n], b[n])):
        n += 1
    return a[:n]


def _both_pages(a: str, b: str) -> bool:
    if is_slide_anchor(a) or is_slide_anchor(b):
        return False
    return page_number(a) is not None and page_number(b) is not None
