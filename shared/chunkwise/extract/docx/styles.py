"""Paragraph styles: headings (Title, Heading N, outline levels), subtitles, captions.

A paragraph's style is read with the styles it is based on (`StyleChains`), so
that a style based on "Heading 2" is a heading too.
"""

from __future__ import annotations

import re
from typing import Any

from .ooxml import w

_HEADING = re.compile(r"^(?:heading|überschrift)\s*(\d)$", re.IGNORECASE)


class StyleChains:
    """A paragraph's style and those it is based on (nearest first), per style id.

    python-docx looks a paragraph's style up anew on every access (scanning all
    styles for the default one); resolving each style id once keeps a long
    document linear.
    """

    def __init__(self) -> None:
        self._chains: dict[str | None, list[Any]] = {}

    def of(self, paragraph: Any) -> list[Any]:
        key = paragraph._p.style
        if key not in self._chains:
            style = paragraph.style
            chain: list[Any] = []
            while style is not None and len(chain) < 5:
                chain.append(style)
                style = style.base_style
            self._chains[key] = chain
        return self._chains[key]


def style_names(chain: list[Any]) -> list[str]:
    """The names of a style chain, nearest style first."""
    return [str(style.name or "").strip() for style in chain]


def _is_subtitle(names: list[str]) -> bool:
    return bool(names) and names[0].lower() in ("subtitle", "untertitel")


def is_title(chain: list[Any]) -> bool:
    """A Title paragraph (a Subtitle is not one, even where its style is based on Title)."""
    names = style_names(chain)
    return not _is_subtitle(names) and any(name.lower() == "title" for name in names)


def heading_level(paragraph: Any, chain: list[Any], shift: int) -> int | None:
    """Title is level 1; Heading N (or outline level N-1) is N + shift, at most 6.

    `shift` is 1 when the document has a Title paragraph, so that Heading 1
    sections sit below the title in the heading path; without a Title,
    Heading 1 stays at level 1.
    """
    names = style_names(chain)
    if _is_subtitle(names):
        return None  # a paragraph under the title, even where its style is based on Title
    for name in names:
        if name.lower() == "title":
            return 1
        m = _HEADING.match(name)
        if m:
            return min(6, max(1, int(m.group(1))) + shift)
    ppr = paragraph._p.pPr
    if ppr is not None:
        lvl = ppr.find(w("outlineLvl"))
        if lvl is not None:
            try:
                outline = int(lvl.get(w("val"), "9"))
            except ValueError:
                return None
            # outline level 9 is "body text" in OOXML
            return min(6, outline + 1 + shift) if 0 <= outline < 9 else None
    return None


def is_caption_style(chain: list[Any]) -> bool:
    """A Caption paragraph (Word's "Caption", German "Beschriftung")."""
    return bool(chain) and str(chain[0].name or "").lower() in ("caption", "beschriftung")
