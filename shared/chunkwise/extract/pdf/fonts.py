"""Fonts of a PDF page known by their metrics: which ones are fixed-pitch (typewriter).

A font's name does not always say that it is a typewriter face
(microtype-code sets its code in "LetterGothic12PitchBT-Roman"), and TeX
writes no FixedPitch flag in the font descriptor. The widths a simple font
lists for its glyphs do tell: in a fixed-pitch font every glyph drawn is
equally wide.
"""

from __future__ import annotations

from typing import Any

from pdfminer.pdftypes import resolve1

from .lines import strip_subset

_MIN_GLYPHS = 10  # widths listed: fewer tell nothing (a font subset of a few symbols)


def _fixed_pitch(font: dict[str, Any]) -> bool:
    widths = resolve1(font.get("Widths"))
    if not isinstance(widths, list):
        return False
    drawn = [w for w in map(resolve1, widths) if isinstance(w, (int, float)) and w > 0]
    return len(drawn) >= _MIN_GLYPHS and max(drawn) - min(drawn) < 0.5


def fixed_pitch_fonts(resources: Any, seen: dict[int, str | None]) -> set[str]:
    """Names (without the subset prefix) of the page's fixed-pitch fonts; `seen` caches
    the answer per font object across pages (name, or None when not fixed-pitch)."""
    fonts = resolve1(resources.get("Font")) if isinstance(resources, dict) else None
    out: set[str] = set()
    for ref in fonts.values() if isinstance(fonts, dict) else ():
        key = getattr(ref, "objid", None) or id(ref)
        if key not in seen:
            font = resolve1(ref)
            name = resolve1(font.get("BaseFont")) if isinstance(font, dict) else None
            fixed = isinstance(font, dict) and _fixed_pitch(font)
            seen[key] = strip_subset(str(getattr(name, "name", name))) if fixed else None
        name = seen[key]
        if name is not None:
            out.add(name)
    return out
