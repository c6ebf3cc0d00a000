"""How PDFium's characters become a line's glyphs and segments (no PDF needed).

PDFium hands back one character per letter of a ligature glyph, each with the
glyph's box; a glyph overprinted in place comes back twice in one box too.
"""

from __future__ import annotations

from chunkwise.extract.pdf.pdfium import _Font, _LineBuilder

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


def _lines(glyphs: list[tuple[str, float, float]]) -> list[str]:
    """(character, x0, baseline) in PDFium's order, no line end between them."""
    builder = _LineBuilder()
    for ch, x0, base in glyphs:
        builder.chars.append(ch)
        if not ch.isspace():
            builder.add(ch, FONT, x0, x0 + 5.0, base)
    builder.flush()
    return [line.text for line in builder.lines]


def test_a_line_after_a_hyphen_starts_below_a_lowered_glyph_of_the_line_before() -> None:
    # PDFium marks a hyphen at a line end and gives no line break after it; the
    # next line is told by its glyphs' height. TeX's logo lowers its "E" by 2 pt:
    # its bottom reached below the next line's tops and the two lines became one
    # (clsguide p6: "...they are now as pow-" / "erful as the TEX primitives.").
    first = [("T", 100.0, 578.5), ("E", 105.0, 580.7), ("X", 110.0, 578.5), (" ", 115.0, 578.5)]
    first += [(ch, 120.0 + 5 * i, 578.5) for i, ch in enumerate("pow-")]
    second = [(ch, 100.0 + 5 * i, 590.4) for i, ch in enumerate("erful")]
    assert _lines(first + second) == ["TEX pow-", "erful"]


def test_a_subscript_stays_in_its_line() -> None:
    glyphs = [("x", 100.0, 578.5), ("i", 105.0, 581.0), (" ", 110.0, 578.5), ("y", 115.0, 578.5)]
    assert _lines(glyphs) == ["xi y"]
