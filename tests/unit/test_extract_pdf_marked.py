"""Marked content: hidden optional content left out, ActualText put in place of its glyphs.

microtype's manual draws one quote four times over itself in optional content
groups and shows one; read together they glued into "MMMMaaaarrrrggggiiiinnnn".
TeX's logos are glyphs "T", lowered "E", "X" marked with ActualText "TeX".
The PDFs here are made by hand (reportlab writes neither construct).
"""

from __future__ import annotations

from chunkwise.extract import extract
from tests.raw_pdf import pdf_from_objects

_RULE = b"0.5 w 40 60 m 260 60 l S\n"  # a vector path: the page goes to pdfplumber


def _pdf(stream: bytes, *, layers: bool = True) -> bytes:
    """One page; objects 6 (hidden by BaseState OFF) and 7 (ON) are layers named
    /Hidden and /Shown in the page's /Properties."""
    oc = b" /OCProperties << /OCGs [6 0 R 7 0 R] /D << /BaseState /OFF /ON [7 0 R] >> >>"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R%s >>" % (oc if layers else b""),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Resources << /Font << /F1 5 0 R >>"
        b" /Properties << /Hidden 6 0 R /Shown 7 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>",
        b"<< /Type /OCG /Name (variant) >>",
        b"<< /Type /OCG /Name (shown) >>",
    ]
    return pdf_from_objects(objects, version="1.5")


# The same words twice, the hidden copy 0.4 pt to the right (as with and without
# font expansion), and a hidden line nested in a shown group.
_VARIANTS = (
    b"BT /F1 12 Tf 40 150 Td (Margin kerning is hanging punctuation) Tj ET\n"
    b"/OC /Hidden BDC BT /F1 12 Tf 40.4 150 Td (Margin kerning is hanging punctuation) Tj ET EMC\n"
    b"/OC /Shown BDC BT /F1 12 Tf 40 120 Td (The shown layer stays) Tj ET\n"
    b"/OC /Hidden BDC BT /F1 12 Tf 40 100 Td (Secret nested variant) Tj ET EMC EMC\n"
)


def test_hidden_optional_content_is_left_out_on_a_page_with_paths() -> None:
    result = extract(_pdf(_RULE + _VARIANTS), filename="layers.pdf")
    assert result.report.page_readers == {"pdfium": 0, "pdfplumber": 1}
    assert "Margin kerning is hanging punctuation" in result.text
    assert "MMaarrggiinn" not in result.text
    assert result.text.count("kerning") == 1
    assert "The shown layer stays" in result.text
    assert "Secret" not in result.text


def test_a_page_without_paths_naming_a_hidden_layer_is_not_read_by_pdfium() -> None:
    # PDFium's text page reads hidden layers too: such a page goes to pdfplumber.
    result = extract(_pdf(_VARIANTS), filename="layers.pdf")
    assert result.report.page_readers == {"pdfium": 0, "pdfplumber": 1}
    assert result.text.count("kerning") == 1
    assert "Secret" not in result.text


def test_without_a_hidden_default_every_layer_is_text() -> None:
    result = extract(_pdf(_RULE + _VARIANTS, layers=False), filename="layers.pdf")
    assert "Secret nested variant" in result.text


_LOGO = (
    b"BT /F1 12 Tf 40 150 Td (Typeset with pdf) Tj"
    b" /Span << /ActualText (TeX) >> BDC (T) Tj -2.5 Ts (E) Tj 0 Ts (X) Tj EMC"
    b" ( and a key ) Tj /Span << /ActualText (\\\\protect <) >> BDC (<) Tj EMC (name) Tj"
    b" /Span << /ActualText () >> BDC (~) Tj EMC ET\n"
)


def test_actual_text_replaces_the_glyphs_it_stands_for() -> None:
    result = extract(_pdf(_RULE + _LOGO), filename="logo.pdf")
    assert result.report.page_readers == {"pdfium": 0, "pdfplumber": 1}
    assert "Typeset with pdfTeX and a key" in result.text
    assert "pdfTEX" not in result.text
    assert "~" not in result.text  # an empty ActualText: the glyphs say nothing


def test_actual_text_holding_tex_source_keeps_the_glyphs() -> None:
    # "\protect <": a macro that was not expanded, not text; the glyph "<" is.
    result = extract(_pdf(_RULE + _LOGO), filename="logo.pdf")
    assert "<name" in result.text
    assert "protect" not in result.text


# microtype's manual: the backslash not escaped in the PDF string. By the standard
# the string is "protect <"; pdfminer reads "rotect <" (it drops the letter too).
_UNESCAPED = (
    b"BT /F1 12 Tf 40 150 Td (a key ) Tj /Span << /ActualText (\\protect <) >> BDC (<) Tj EMC"
    b" (name) Tj /Span << /ActualText (\\protect >) >> BDC (>) Tj EMC ( and more) Tj ET\n"
)


def test_actual_text_of_tex_source_with_unescaped_backslashes_keeps_the_glyphs() -> None:
    result = extract(_pdf(_RULE + _UNESCAPED), filename="macros.pdf")
    assert result.report.page_readers == {"pdfium": 0, "pdfplumber": 1}
    assert "a key <name> and more" in result.text
    assert "rotect" not in result.text


def test_a_page_with_actual_text_of_tex_source_is_read_by_pdfplumber() -> None:
    # PDFium's text page would put "protect <" in place of the glyph.
    result = extract(_pdf(_UNESCAPED, layers=False), filename="macros.pdf")
    assert result.report.page_readers == {"pdfium": 0, "pdfplumber": 1}
    assert "a key <name> and more" in result.text


def test_both_readers_read_actual_text_alike() -> None:
    slow = extract(_pdf(_RULE + _LOGO), filename="logo.pdf").text
    fast_result = extract(_pdf(_LOGO, layers=False), filename="logo.pdf")
    assert fast_result.report.page_readers["pdfium"] == 1
    assert "Typeset with pdfTeX" in fast_result.text and "Typeset with pdfTeX" in slow


class _Form:
    """A form XObject as pdfminer gives it (`attrs`), counting how often it is read."""

    reads = 0

    def __init__(self, resources: dict[str, object]) -> None:
        self._resources = resources

    @property
    def attrs(self) -> dict[str, object]:
        _Form.reads += 1
        if _Form.reads > 1000:
            raise AssertionError("the forms' resources are searched over and over")
        return {"Resources": self._resources}


def test_forms_sharing_their_resources_are_searched_once_each() -> None:
    # A hostile file: 40 forms whose resources name all 40 forms (a cycle).
    from chunkwise.extract.pdf.marked import names_hidden

    shared: dict[str, object] = {}
    shared["XObject"] = {f"Fm{i}": _Form(shared) for i in range(40)}
    _Form.reads = 0
    assert names_hidden(shared, frozenset({999})) is False
    assert _Form.reads <= 40


# XeTeX's logo without ActualText: "X", the "E" mirrored (text matrix -1 0 0 1,
# drawn leftwards from its right edge, lowered), "TEX".
_MIRRORED = (
    b"BT /F1 12 Tf 40 150 Td (Typeset with X) Tj ET\n"
    b"BT /F1 12 Tf -1 0 0 1 120.12 147.5 Tm (E) Tj ET\n"
    b"BT /F1 12 Tf 1 0 0 1 119.12 150 Tm (TEX and more) Tj ET\n"
)


def test_a_glyph_drawn_mirrored_stays_in_its_word() -> None:
    # pdfminer calls a mirrored glyph not upright; grouped apart it split the logo
    # into "X E TEX".
    result = extract(_pdf(_RULE + _MIRRORED, layers=False), filename="xetex.pdf")
    assert result.report.page_readers == {"pdfium": 0, "pdfplumber": 1}
    assert "Typeset with XETEX and more" in result.text
