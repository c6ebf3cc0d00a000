"""A paragraph that runs on over a page break: the page's footnotes out of its way.

Each page is written after its `## Page N` anchor, so a paragraph continued on
the next page is cut by that anchor; the chunker reads the anchor as a citation
inside the sentence (`canonical.runs_on`, `chunking.sections`) when nothing else
stands between the two halves. The page's footnotes do: set below the text, in
smaller type, they come after the paragraph's first half. They are moved before
that paragraph, on their own page: after the joined paragraph they would sit
under the next page's anchor and be cited with the wrong page.
"""

from __future__ import annotations

import itertools

from chunkwise.canonical import runs_on

from .items import Item, PageContent

# A footnote is set at least this much smaller than the text it stands under (pt).
_SMALLER = 0.5


def footnotes_before_run_on(pages: list[PageContent]) -> int:
    """Move each page's footnotes before its last paragraph where that paragraph
    runs on at the top of the next page; returns how many pages changed."""
    moved = 0
    for page, following in itertools.pairwise(pages):
        if page.ocr_text is not None or following.ocr_text is not None:
            continue
        at = _run_on_with_notes(page.items, following.items)
        if at is not None:
            items = page.items
            page.items = [*items[:at], *items[at + 1 :], items[at]]
            moved += 1
    return moved


def _run_on_with_notes(items: list[Item], following: list[Item]) -> int | None:
    """The index of the paragraph that runs on over the break, when only footnotes
    (paragraphs in smaller type below it) follow it on its page."""
    if not following or following[0].kind != "para":
        return None
    at = len(items) - 1
    while at >= 0 and items[at].kind == "para" and _note_size(items, at):
        at -= 1
    if at < 0 or at == len(items) - 1 or items[at].kind != "para":
        return None
    para, resumed = items[at], following[0]
    notes = items[at + 1 :]
    if any(n.size > para.size - _SMALLER or n.top < para.bottom for n in notes):
        return None
    if abs(resumed.size - para.size) >= _SMALLER or not runs_on(para.text, resumed.text):
        return None
    return at


def _note_size(items: list[Item], at: int) -> bool:
    """Smaller than some paragraph before it on the page: footnote type."""
    return any(it.kind == "para" and it.size - items[at].size >= _SMALLER for it in items[:at])
