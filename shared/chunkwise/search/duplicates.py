"""Duplicate texts in a result list: the same passage from two documents takes one slot
(pure; `chunkwise.search.hybrid.postprocess` calls it).

The same manual uploaded as PDF and as DOCX, or one file in two folders, are two
documents with the same passages; without this both copies fill the top k with the
same text and push the next passage out. The better-ranked copy stays and lists the
others in ``also_in`` (where else the text lives: key, revision, span, pages), so a
caller can still cite every copy. A query may turn it off (``collapse=False``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, Self, TypeVar

from pydantic import BaseModel, ConfigDict


class Elsewhere(BaseModel):
    """Another chunk with the same text as the hit, collapsed into it."""

    model_config = ConfigDict(frozen=True)

    id: str
    doc_id: str
    key: str
    revision: str
    start: int
    end: int
    page_start: int | None = None
    page_end: int | None = None


_PAGE_ANCHOR_LINE = re.compile(
    r"^ {0,3}#{1,6}[ \t]+(?:Page|Seite)[ \t]+\d{1,6}[ \t]*$", re.IGNORECASE | re.MULTILINE
)
_WORD = re.compile(r"\w+")


def text_fingerprint(body: str) -> str:
    """What two copies of one text share whatever file they came from: its words in
    order, case-folded; whitespace, Markdown markup (heading and list markers, table
    pipes) and page anchors do not count (a PDF's ``## Page 2`` is not in its DOCX)."""
    words = _WORD.findall(_PAGE_ANCHOR_LINE.sub(" ", body).casefold())
    return hashlib.sha256(" ".join(words).encode("utf-8", "surrogatepass")).hexdigest()


class _Cited(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def revision(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def page_start(self) -> int | None: ...
    @property
    def page_end(self) -> int | None: ...
    @property
    def body(self) -> str: ...


class Collapsible(Protocol):
    """What collapsing needs of a hit (`chunkwise.search.hybrid.Hit` has it)."""

    @property
    def id(self) -> str: ...
    @property
    def doc_id(self) -> str: ...
    @property
    def citation(self) -> _Cited: ...
    @property
    def also_in(self) -> tuple[Elsewhere, ...]: ...

    def model_copy(
        self, *, update: Mapping[str, Any] | None = None, deep: bool = False
    ) -> Self: ...


H = TypeVar("H", bound=Collapsible)


def _elsewhere(h: Collapsible) -> Elsewhere:
    c = h.citation
    return Elsewhere(
        id=h.id,
        doc_id=h.doc_id,
        key=c.key,
        revision=c.revision,
        start=c.start,
        end=c.end,
        page_start=c.page_start,
        page_end=c.page_end,
    )


def collapse_duplicates(hits: Iterable[H]) -> list[H]:
    """One hit per text: a later hit with the same `text_fingerprint` as a better-ranked
    one (another document, or another revision) is dropped and listed in the kept hit's
    ``also_in``. An empty body is no text and never collapses."""
    kept: list[H] = []
    first: dict[str, int] = {}
    extra: dict[int, list[Elsewhere]] = {}
    for h in hits:
        if not _WORD.search(h.citation.body):
            kept.append(h)
            continue
        key = text_fingerprint(h.citation.body)
        if key in first:
            extra.setdefault(first[key], []).append(_elsewhere(h))
            continue
        first[key] = len(kept)
        kept.append(h)
    return [
        h.model_copy(update={"also_in": (*h.also_in, *extra[i])}) if i in extra else h
        for i, h in enumerate(kept)
    ]
