"""The word-integrity reference is corrected only where a second reader shows a symbol."""

from pathlib import Path

from bench.realdocs.metrics import (
    corrected_reference_text,
    fold_ligatures,
    reference_words,
    symbol_corrections,
    word_integrity,
    words_corrected,
)

from tests.raw_pdf import one_page_pdf

# pdftotext -raw of a line of dhua.pdf p4, and pdfminer's glyphs of it (no spaces,
# "ﬁ" kept as a ligature, the cmsy angle brackets named by the font program).
PDFTOTEXT = "Um ein Makro hneui für eine Abkürzung zu definieren: \\newdhua{hneui}{hErgebnisi}\n"
PDFMINER = "UmeinMakro⟨neu⟩füreineAbkürzungzudeﬁnieren:\\newdhua{⟨neu⟩}{⟨Ergebnis⟩}"
# What a reader that drops the unmapped brackets writes.
TOOL_OUTPUT = "Um ein Makro neu für eine Abkürzung zu definieren: \\newdhua{neu}{Ergebnis}"


def test_letters_aligned_with_brackets_become_brackets() -> None:
    fixes = symbol_corrections(PDFTOTEXT, PDFMINER)
    assert sorted(PDFTOTEXT[i] for i in fixes) == ["h", "h", "h", "i", "i", "i"]
    assert set(fixes.values()) == {"\u27e8", "\u27e9"}
    corrected = corrected_reference_text(PDFTOTEXT, [PDFMINER])
    assert "\u27e8neu\u27e9 für" in corrected
    assert "{\u27e8Ergebnis\u27e9}" in corrected


def test_corrected_reference_counts_the_words_the_page_has() -> None:
    before = reference_words(PDFTOTEXT)
    after = reference_words(corrected_reference_text(PDFTOTEXT, [PDFMINER]))
    # "hneui" (twice) and "hErgebnisi" are not words of the page; "Ergebnis" is.
    assert word_integrity(before, TOOL_OUTPUT) < 1.0
    assert word_integrity(after, TOOL_OUTPUT) == 1.0
    assert words_corrected(before, after) == 3


def test_a_tool_that_writes_the_letters_misses_against_the_corrected_reference() -> None:
    after = reference_words(corrected_reference_text(PDFTOTEXT, [PDFMINER]))
    assert word_integrity(after, PDFTOTEXT) < 1.0


def test_no_symbol_on_the_other_reader_means_no_correction() -> None:
    # The same letters, but the other reader sees letters there too: a real "h…i" word.
    other = PDFMINER.replace("\u27e8", "h").replace("\u27e9", "i")
    assert symbol_corrections(PDFTOTEXT, other) == {}
    assert corrected_reference_text(PDFTOTEXT, [other]) == PDFTOTEXT


def test_only_the_page_with_the_symbols_is_corrected() -> None:
    raw = "hallo hneui\fhneui welt\f"
    corrected = corrected_reference_text(raw, ["hallo⟨neu⟩", "hneuiwelt", ""])
    assert corrected == "hallo \u27e8neu\u27e9\fhneui welt\f"


def test_a_symbol_is_never_put_in_for_a_non_letter() -> None:
    # cmsy's "mapsto" comes out as the digit 7; the words do not change, nothing to correct.
    assert symbol_corrections("foo 7→ (c,m)", "foo\u2211→(c,m)") == {}


def test_an_unequal_replacement_is_left_as_it_is() -> None:
    # Where the readers disagree on more than one glyph for one, no position is claimed.
    assert symbol_corrections("abc hx def", "abc⟨⟩ydef") == {}


def test_ligature_glyphs_and_letters_are_the_same_word_for_the_corrected_figure() -> None:
    # pdftotext keeps "ﬁ" on a Distiller-made page; a tool that writes "fi" has the word.
    reference = "Die Tabelle wird modiﬁziert und deﬁniert.\n"
    tool = "Die Tabelle wird modifiziert und definiert."
    assert word_integrity(reference_words(reference), tool) < 1.0
    assert word_integrity(reference_words(fold_ligatures(reference)), fold_ligatures(tool)) == 1.0
    # and the other way round: the reference has letters, the tool kept the glyph
    assert word_integrity(reference_words(fold_ligatures(tool)), fold_ligatures(reference)) == 1.0
    assert fold_ligatures("\ufb00\ufb03\ufb04\ufb05") == "ff" + "ffi" + "ffl" + "st"


def test_alignment_is_on_letters_so_line_numbers_and_accents_do_not_hide_a_bracket() -> None:
    # microtype-DE p36: pdfminer reads the code listing's line number "3" right before
    # the bracket, pdftotext leaves it out; and pdftotext's "u" + combining diaeresis
    # against pdfminer's spacing diaeresis before the "u".
    raw = "\\def\\MT@MT\nhpackagei {microtype} fu\u0308r\n"
    other = "\\def\\MT@MT3⟨package⟩{microtype}f¨ur"
    fixes = symbol_corrections(raw, other)
    assert [raw[i] for i in sorted(fixes)] == ["h", "i"]
    assert "\u27e8package\u27e9 {microtype}" in corrected_reference_text(raw, [other])


def test_a_ligature_glyph_on_either_side_does_not_hide_a_bracket() -> None:
    # listings p29: "⟨ﬁlename⟩"; pdftotext keeps the ligature on some pages, pdfminer too.
    for raw, other in (("h\ufb01lenamei", "⟨filename⟩"), ("hfilenamei", "⟨\ufb01lename⟩")):
        assert corrected_reference_text(raw, [other]).startswith("\u27e8"), raw
        assert len(symbol_corrections(raw, other)) == 2, raw


def test_names_in_differences_count_as_the_fonts_names() -> None:
    # Latin Modern's math fonts name their angle brackets in /Differences, where
    # pdfminer keeps the base encoding's "h" / "i" for a name it does not know.
    from bench.realdocs.glyphs import differences_names
    from pdfminer.psparser import LIT

    encoding = {"Differences": [104, LIT("angbracketleft"), LIT("angbracketright"), 32, LIT("a")]}
    assert differences_names(encoding) == {104: "angbracketleft", 105: "angbracketright", 32: "a"}
    assert differences_names(LIT("WinAnsiEncoding")) == {}


# microtype.pdf p5: ActualText written as TeX with the backslash not escaped, over
# cmsy's angle brackets; pdftotext prints the string as the PDF standard reads it.
PRINTED_LINE = "true, false, protect <font set nameprotect > * true\n"
MEANT_LINE = "true, false, <font set name> * true\n"


def test_tex_source_in_actual_text_is_read_as_printed_and_as_meant() -> None:
    from bench.realdocs.actualtext import as_meant, as_printed, is_tex_source

    assert is_tex_source(b"\\protect <") and is_tex_source(b"\\\\protect >")
    assert not is_tex_source(b"TeX") and not is_tex_source(b"a\\(b\\)\\n")
    assert as_printed(b"\\protect <") == "protect <"
    assert as_printed(b"a\\(b\\)\\101") == "a(b)A"
    assert as_meant(b"\\protect <") == "<"
    long = b"\\protect <font\\protect \\unhbox \\voidb@x \\protect \\penalty \\@M \\ {}"
    long += b"name\\protect >"
    assert as_meant(long) == "<font name>"


def test_actual_text_of_tex_source_leaves_the_corrected_reference() -> None:
    from bench.realdocs.metrics import without_tex_source

    sources = [("protect <", "<"), ("protect >", ">")]
    fixed = without_tex_source(PRINTED_LINE + "\f" + PRINTED_LINE, [sources, []])
    assert fixed == MEANT_LINE + "\f" + PRINTED_LINE  # only the page that has them
    before, after = reference_words(PRINTED_LINE), reference_words(MEANT_LINE)
    tool = "true, false, \u27e8font set name\u27e9 * true"
    assert word_integrity(before, tool) < 1.0  # "protect", "nameprotect" are not on the page
    assert word_integrity(after, tool) == 1.0
    assert words_corrected(before, after) == 2


def test_tex_source_is_put_back_once_per_occurrence_in_order() -> None:
    from bench.realdocs.metrics import without_tex_source

    page = "protect <aprotect > and protect <bprotect > and protect <c"
    sources = [("protect <", "<"), ("protect >", ">"), ("protect <", "<")]
    assert without_tex_source(page, [sources]) == "<a> and <bprotect > and protect <c"


def test_the_pages_actual_texts_of_tex_source_are_found_in_their_content(tmp_path: Path) -> None:
    from bench.realdocs.actualtext import tex_source_pages

    stream = (
        b"BT /F1 12 Tf 40 150 Td /Span << /ActualText (TeX) >> BDC (TEX) Tj EMC"
        b" /Span << /ActualText (\\protect <) >> BDC (h) Tj EMC (name) Tj ET"
    )
    path = tmp_path / "macros.pdf"
    path.write_bytes(one_page_pdf(stream))
    assert tex_source_pages(path) == [[("protect <", "<")]]
