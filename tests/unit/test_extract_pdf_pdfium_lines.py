"""How PDFium's characters become a line's glyphs and segments (no PDF needed).

PDFium hands back one character per letter of a ligature glyph, each with the
glyph's box; a glyph overprinted in place comes back twice in one box too.
"""

from __future__ import annotations

from chunkwise.extract.pdf_pdfium import _Font, _LineBuilder

FONT = _Font(size=10.0, family="LMRoman10-Regular")


def _line(chars: list[tuple[str, float, float]]) -> str:
    builder = _LineBuilder()
    for ch, x0, x1 in chars:
        builder.chars.append(ch)
        if not ch.isspace():
            builder.add(ch, FONT, x0, x1, 600.0)
    builder.flush()
    (line,) = builder.lines
    return " | ".join(segment.text for segment in line.segments)


def test_the_letters_of_a_ligature_in_one_box_stay_both() -> None:
    # encguide p14: "27 (ff)" in a table cell came out "27 (f)".
    chars = [("2", 137.9, 141.9), ("7", 143.0, 147.2), (" ", 150.7, 150.7)]
    chars += [("(", 151.7, 154.0), ("f", 154.8, 160.8), ("f", 154.8, 160.8), (")", 161.2, 163.5)]
    assert _line(chars) == "27 (ff)"


def test_a_letter_drawn_twice_in_place_is_read_once() -> None:
    chars = [("a", 10.0, 15.0), ("a", 10.0, 15.0), ("b", 15.0, 20.0)]
    assert _line(chars) == "ab"
