"""Pass: the hard token cap, checked on every final `text` with the real sizer.

Any draft over the cap (merges and overlap are priced on plans) is split
again: without its overlap first, then in halves of atoms, then its one atom
cut smaller; so the cap holds whatever the earlier passes did.
"""

from __future__ import annotations

from dataclasses import replace

from chunkwise.chunking.context import Document
from chunkwise.chunking.model import Draft
from chunkwise.chunking.split import refit


def enforce_token_cap(doc: Document, drafts: list[Draft]) -> tuple[list[Draft], list[int]]:
    """The drafts, each within the cap, and their exact token counts."""
    counts = doc.count_texts(drafts)
    if all(c <= doc.cap for c in counts):
        return drafts, counts
    result: list[Draft] = []
    for draft, count in zip(drafts, counts, strict=True):
        result.extend(_split_until_fits(doc, draft) if count > doc.cap else [draft])
    return result, doc.count_texts(result)


def _split_until_fits(doc: Document, draft: Draft) -> list[Draft]:
    if doc.tokens(draft) <= doc.cap:
        return [draft]
    if draft.overlap:
        bare = replace(draft, overlap="", overlap_tokens=0, tokens=None)
        return _split_until_fits(doc, bare)
    if len(draft.atoms) > 1:
        mid = len(draft.atoms) // 2
        left = Draft(draft.atoms[:mid], path=draft.path)
        right = Draft(draft.atoms[mid:], path=draft.path)
        return _split_until_fits(doc, left) + _split_until_fits(doc, right)
    atom = draft.atoms[0]
    budget = doc.budget(atom.section, atom.table_header)
    shrink = max(1, budget - (doc.tokens(draft) - doc.cap) - 2)
    pieces = [Draft([a], path=draft.path) for a in refit(doc, atom, shrink)]
    if len(pieces) <= 1:
        return pieces  # a single grapheme cluster over the cap: nothing smaller exists
    return [p for piece in pieces for p in _split_until_fits(doc, piece)]
