"""Word and cell gaps of PDFium-read pages: word spaces set as character spacing
(groff's PDFs through Ghostscript), spaces after narrow-inked punctuation.

Ghostscript writes the last letter of a word and the first of the next as one
string with a character spacing (Tc) as wide as the space between them and no
space character: "(yr) Tj" with 2.7 Tc for "any redirections". PDFium makes up
no space there, so the gap between the glyphs has to tell.
"""

from __future__ import annotations

import pypdfium2 as pdfium  # type: ignore[import-untyped]

from chunkwise.extract import extract
from chunkwise.extract.pdf.pdfium import read_page_fast
from tests.raw_pdf import one_page_pdf


def _pdf(stream: bytes) -> bytes:
    times = b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>"
    return one_page_pdf(stream, [times], size=(595, 842))


def _line(y: int) -> bytes:
    """'...performed before any redirections specified here.' as Ghostscript sets it."""
    return (
        b"BT /F1 10 Tf 72 %d Td (This connection is performed before an) Tj"
        b" 2.714 Tc 157.31 0 Td (yr) Tj 0 Tc 11.04 0 Td (edirections specified here.) Tj ET" % y
    )


def test_a_word_space_set_as_character_spacing_is_a_space() -> None:
    stream = b" ".join(_line(780 - 12 * k) for k in range(6))
    text = extract(_pdf(stream), filename="bash.pdf").text
    assert "before any redirections specified" in text
    assert "anyredirections" not in text


def test_a_space_after_a_typewriter_full_stop_does_not_split_the_line_into_cells() -> None:
    # Courier inks a third of its full stop's cell; the cell's blank rest and one
    # space were wider than the gap between two table cells, measured from the ink.
    stream = b"BT /F2 10 Tf 72 700 Td (Ends with timezone. Other types follow.) Tj ET"
    pdf = _pdf(stream).replace(b"/F1 4 0 R", b"/F2 4 0 R").replace(b"/Times-Roman", b"/Courier")
    page = pdfium.PdfDocument(pdf)[0]
    lines, _ = read_page_fast(page)
    assert [[seg.text for seg in ln.segments] for ln in lines] == [
        ["Ends with timezone. Other types follow."]
    ]


def test_a_space_character_with_no_room_between_its_letters_is_not_a_word_space() -> None:
    # Ghostscript's groff pages draw a space glyph inside a word and move back over
    # it: "neg" " " "ative" with the letters a fortieth of an em apart.
    stream = (
        b"BT /F1 10 Tf 72 700 Td (so neg) Tj 25.83 0 Td [( ) 250 (ative indices count back)] TJ ET"
    )
    page = pdfium.PdfDocument(_pdf(stream))[0]
    lines, _ = read_page_fast(page)
    assert [ln.text for ln in lines] == ["so negative indices count back"]
