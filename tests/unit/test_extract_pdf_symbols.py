"""Symbols a Type 1 font names but readers write as the letter of their code.

TeX's cmsy has `angbracketleft` / `angbracketright` at the codes of "h" / "i"
and no ToUnicode map; the names are not in the Adobe Glyph List, so PDFium
wrote "⟨file⟩" as "hfilei" and pdfminer as "(cid:104)file(cid:105)" (then
dropped: "file"). Both readers must give the symbols the font program names.
"""

from __future__ import annotations

from chunkwise.extract import extract
from chunkwise.extract.pdf.symbols import FontFacts, PageSymbols, named_symbols
from tests.raw_pdf import TIMES, one_page_pdf

# The clear-text part of a Type 1 program: only its built-in encoding matters here.
_PROGRAM = (
    b"%!PS-AdobeFont-1.0: CMSY10 003.002\n/FontName /CMSY10 def\n/Encoding 256 array\n"
    b"0 1 255 {1 index exch /.notdef put} for\n"
    b"dup 102 /braceleft put\ndup 104 /angbracketleft put\ndup 105 /angbracketright put\n"
    b"readonly def\ncurrentdict end\ncurrentfile eexec\n"
)


# "Write ⟨file⟩ here", the brackets in the cmsy-like font F2.
_TEXT = (
    b"BT /F1 12 Tf 40 100 Td (Write ) Tj /F2 12 Tf (h) Tj /F1 12 Tf (file) Tj"
    b" /F2 12 Tf (i) Tj /F1 12 Tf ( here) Tj ET"
)
_RULE = b" 40 80 m 200 80 l S"  # a vector path: the page goes to pdfplumber


def _pdf(stream: bytes, program: bytes = _PROGRAM) -> bytes:
    """One page of `stream`; F1 is Times, F2 a Type 1 font without ToUnicode whose
    built-in encoding is `program`'s."""
    cmsy = b"<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+CMSY10 /FontDescriptor 7 0 R >>"
    descriptor = (
        b"<< /Type /FontDescriptor /FontName /ABCDEF+CMSY10 /Flags 4 /FontBBox [0 -250 1000 750]"
        b" /ItalicAngle 0 /Ascent 750 /Descent -250 /CapHeight 683 /StemV 40 /FontFile 8 0 R >>"
    )
    font_file = b"<< /Length %d /Length1 %d /Length2 0 /Length3 0 >>\nstream\n%s\nendstream" % (
        len(program),
        len(program),
        program,
    )
    return one_page_pdf(stream, [TIMES, cmsy], more=[descriptor, font_file])


def test_pdfium_writes_the_named_brackets_not_the_letters() -> None:
    result = extract(_pdf(_TEXT), filename="symbols.pdf")
    assert result.report.page_readers == {"pdfium": 1, "pdfplumber": 0}
    assert "Write \u27e8file\u27e9 here" in result.text
    assert "hfilei" not in result.text


def test_pdfplumber_writes_the_named_brackets_instead_of_dropping_them() -> None:
    result = extract(_pdf(_TEXT + _RULE), filename="symbols.pdf")
    assert result.report.page_readers == {"pdfium": 0, "pdfplumber": 1}
    assert "Write \u27e8file\u27e9 here" in result.text
    assert not [w for w in result.report.warnings if "Unicode mapping" in w]


_AGL = {"h": "h", "i": "i", "braceleft": "{", "A": "A"}.get


def test_only_names_outside_the_glyph_list_become_symbols() -> None:
    facts = FontFacts("Type1", {}, {104: "angbracketleft", 102: "braceleft", 65: "A"})
    assert named_symbols(facts, _AGL) == {"h": "\u27e8", "(cid:104)": "\u27e8"}


def test_codes_a_to_unicode_map_covers_and_other_font_kinds_are_left_to_the_readers() -> None:
    names = {104: "angbracketleft", 105: "Info"}
    # pdfTeX's ToUnicode maps the bracket but leaves out marvosym's Info at code 105.
    facts = FontFacts("Type1", {104: "\u27e8"}, names)
    assert named_symbols(facts, _AGL) == {"i": "\U0001f6c8", "(cid:105)": "\U0001f6c8"}
    assert named_symbols(FontFacts("TrueType", {}, names), _AGL) == {}


def test_a_letter_the_to_unicode_map_gives_another_code_stays_a_letter() -> None:
    facts = FontFacts("Type1", {97: "h"}, {104: "angbracketleft"})
    assert named_symbols(facts, _AGL) == {}


def test_a_letter_another_glyph_is_named_as_stays_a_letter() -> None:
    # Code 104 is a bracket, but code 97 is named "h": PDFium's "h" could be either.
    facts = FontFacts("Type1", {}, {104: "angbracketleft", 97: "h", 80: "summationtext"})
    assert named_symbols(facts, _AGL) == {"P": "\u2211", "(cid:80)": "\u2211"}


def test_cmex_sizes_and_text_or_display_operators_are_named() -> None:
    facts = FontFacts("Type1", {}, {0x68: "bracketleftBig", 0x58: "summationdisplay"})
    assert named_symbols(facts, _AGL) == {
        "h": "[",
        "(cid:104)": "[",
        "X": "\u2211",
        "(cid:88)": "\u2211",
    }


def test_page_symbols_match_fonts_without_subset_prefix_and_restore_pdfminer_chars() -> None:
    page = PageSymbols({"CMSY10": {"h": "\u27e8", "(cid:104)": "\u27e8"}})
    chars = [
        {"text": "(cid:104)", "fontname": "XYZABC+CMSY10"},
        {"text": "h", "fontname": "XYZABC+CMR10"},  # a letter of the text font stays
        {"text": "h", "fontname": "CMSY10"},
    ]
    assert page.restore_chars(chars) == 2
    assert [c["text"] for c in chars] == ["\u27e8", "h", "\u27e8"]
    assert page.characters == frozenset({"h"})


def test_a_space_pdfium_puts_in_is_not_taken_for_a_glyph_of_code_32() -> None:
    # cmex has parenleftBigg at code 32 (the page's glyph between "h" and "i" here);
    # the space PDFium puts in for the wide kern inside the same TJ carries their
    # font, but it is no glyph of the page.
    program = _PROGRAM.replace(b"dup 102 /braceleft put", b"dup 32 /parenleftBigg put")
    stream = b"BT /F2 12 Tf 40 100 Td [(h i) -3000 (h)] TJ ET"
    result = extract(_pdf(stream, program), filename="cmex.pdf")
    assert result.report.page_readers == {"pdfium": 1, "pdfplumber": 0}
    assert "\u27e8(\u27e9 \u27e8" in result.text
