"""A glyph PDFium cannot map to Unicode: the other reader is tried, and a loss is reported.

PDFium hands back a font's raw code (a control character) for a glyph whose
name it cannot map; pdfminer maps more glyph names (TeX ligatures in Type 1
fonts without ToUnicode) and marks the rest as "(cid:NN)". A page where
pdfminer leaves fewer glyphs unmapped is read by pdfplumber; whatever neither
reader maps is counted in the report's warnings, never dropped silently.
"""

from __future__ import annotations

from chunkwise.extract import extract
from tests.raw_pdf import one_page_pdf


def _pdf_with_glyph_named(glyph: str) -> bytes:
    """One page, no vector paths, "First o<code 28>cial version"; code 28 = /glyph."""
    stream = b"BT /F1 12 Tf 40 100 Td (First o\x1ccial version) Tj ET"
    font = (
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding"
        b" /BaseEncoding /WinAnsiEncoding /Differences [28 /%s] >> >>" % glyph.encode()
    )
    return one_page_pdf(stream, [font])


def test_a_glyph_only_pdfminer_maps_sends_the_page_to_pdfplumber() -> None:
    # "f_f_i" (a ligature in the Adobe Glyph List's naming): PDFium returns the
    # raw code 28, pdfminer maps the name to "ffi".
    result = extract(_pdf_with_glyph_named("f_f_i"), filename="ligature.pdf")
    assert result.report.page_readers == {"pdfium": 0, "pdfplumber": 1}
    assert "First official version" in result.text
    assert not [w for w in result.report.warnings if "Unicode mapping" in w]


def test_a_glyph_neither_reader_maps_is_reported_not_silently_dropped() -> None:
    result = extract(_pdf_with_glyph_named("g28"), filename="unmapped.pdf")
    assert result.report.page_readers == {"pdfium": 1, "pdfplumber": 0}
    assert "1 glyphs without a Unicode mapping dropped (PDFium)" in result.report.warnings
    assert "First" in result.text and "version" in result.text
    assert "\x1c" not in result.text


def test_a_named_ligature_is_read_fast_and_kept() -> None:
    result = extract(_pdf_with_glyph_named("ffi"), filename="ligature.pdf")
    assert result.report.page_readers == {"pdfium": 1, "pdfplumber": 0}
    assert "official" in result.text.replace("\ufb03", "ffi")
