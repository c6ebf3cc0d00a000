"""Section titles numbered in roman numerals and set in (small) capitals at the body's
size, as two-column journal styles set them ("I. INTRODUCTION"), are headings; roman
initials in prose, lower-case enumerations and sentences in capitals are not (#26 b)."""

from __future__ import annotations

import textwrap

import pytest

from chunkwise.extract.pdf.blocks import HeadingRules, group, heading_rules
from chunkwise.extract.pdf.lines import Line, Segment

BODY = 10.0
ROMAN = "Times-Roman"


def _line(text: str, top: float, size: float = BODY, font: str = ROMAN, **kw: bool) -> Line:
    mono = kw.pop("mono", False)
    seg = Segment(50.0, 50.0 + 5 * len(text), text, mono=mono, size=size, font=font)
    return Line(text, top, top + size, 50.0, size, kw.pop("bold", False), font, [seg])


@pytest.mark.parametrize(
    ("text", "font", "depth"),
    [
        ("I. INTRODUCTION", ROMAN, 1),  # small capitals made of smaller capitals
        ("IV. RELATED WORK", ROMAN, 1),
        ("XII. CONCLUSION AND OUTLOOK", ROMAN, 1),
        ("II. Related Work", "CMCSC10", 1),  # a small-capitals font: lower-case codes
        ("2 EXPERIMENTAL SETUP", ROMAN, 1),  # arabic numbers take the same cue
        ("3.1 DATA SETS", ROMAN, 2),
    ],
)
def test_a_numbered_title_in_capitals_at_body_size_is_a_heading(
    text: str, font: str, depth: int
) -> None:
    assert HeadingRules(BODY).numbered_depth(_line(text, 100.0, font=font)) == depth


@pytest.mark.parametrize(
    ("text", "mono", "bold"),
    [
        ("I. Newton showed that the force is the same", False, False),  # an initial in prose
        ("I think that is the case", False, True),  # no dot: a pronoun
        ("i) ERSTENS", False, False),  # lower-case enumerations
        ("ii. ZWEITENS", False, False),
        ("IIII. NOT A NUMERAL", False, False),
        ("II. THE RESULT IS NOT YET KNOWN.", False, False),  # a sentence in capitals
        ("A. SMITH AND B. JONES", False, False),  # names with initials in capitals
        ("1 ADD R1, R2", True, False),  # a listing line in capitals
        ("3 USB", False, False),  # too short to be a title
        ("II. Results and discussion", False, False),  # body font, not capitals, not bold
    ],
)
def test_roman_initials_enumerations_sentences_and_code_are_not_headings(
    text: str, mono: bool, bold: bool
) -> None:
    assert HeadingRules(BODY).numbered_depth(_line(text, 100.0, mono=mono, bold=bold)) == 0


def test_roman_capitals_titles_give_numbered_headings_across_a_document() -> None:
    page = [
        _line("I. INTRODUCTION", 40),
        _line("Documents reach a search index as files.", 60),
        _line("II. RELATED WORK", 90),
        _line("Earlier readers looked at the size of letters alone.", 110),
        _line("III. METHOD", 140),
        _line("i) the first step of the method, in prose", 160),
        _line("I. Newton is cited here as an initial, not a section.", 180),
    ]
    rules = heading_rules([page], BODY)
    assert rules.numbered
    items = {it.text: (it.kind, it.level) for it in group(page, BODY, [], rules, 1)}
    assert items["I. INTRODUCTION"] == ("heading", 3)
    assert items["II. RELATED WORK"] == ("heading", 3)
    assert items["III. METHOD"] == ("heading", 3)
    assert items["i) the first step of the method, in prose"][0] == "para"
    assert items["I. Newton is cited here as an initial, not a section."][0] == "para"


_SECTIONS = {
    ("I.", "Introduction"): "Documents reach a search index as files, and most of them were "
    "never meant to be read by a program. A page of a journal sets its text in two columns, "
    "with the section titles in small capitals at the size of the text itself.",
    ("II.", "Related Work"): "Earlier readers of such pages looked at the size of the letters "
    "alone and took a title for a heading only when it was larger or heavier than the text "
    "around it, which small capitals are not.",
    ("III.", "Method"): "We read each page as glyphs, group them into lines and the lines "
    "into blocks; a line that is short, set in capitals and opened by a section number is "
    "taken for the title of its section.",
    ("IV.", "Results"): "On the pages we tried, the titles were found in both columns, while "
    "list items numbered in prose and the numbered steps of an enumeration stayed part of "
    "their paragraphs as before.",
}


def _journal_page(c: object) -> None:
    """A two-column page with the section titles in small capitals made as journal
    classes make them: the first letter at body size, the rest smaller capitals."""
    c.setFont("Times-Bold", 18)  # type: ignore[attr-defined]
    c.drawString(150, 780, "A Study of Reading Order")  # type: ignore[attr-defined]
    sections = list(_SECTIONS.items())
    for x, column in ((50, sections[:2]), (310, sections[2:])):
        y = 740.0
        for (number, title), body in column:
            first = f"{number} {title[0]}"
            c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
            c.drawString(x + 80, y, first)  # type: ignore[attr-defined]
            width = c.stringWidth(first, "Times-Roman", 10)  # type: ignore[attr-defined]
            c.setFont("Times-Roman", 8)  # type: ignore[attr-defined]
            c.drawString(x + 80 + width, y, title[1:].upper())  # type: ignore[attr-defined]
            y -= 16
            c.setFont("Times-Roman", 10)  # type: ignore[attr-defined]
            for text in textwrap.wrap(body, 50):
                c.drawString(x, y, text)  # type: ignore[attr-defined]
                y -= 12
            y -= 10


def test_small_capitals_section_titles_of_a_two_column_page_are_headings() -> None:
    pytest.importorskip("reportlab")
    from chunkwise.extract import extract
    from tests.drawn_pdf import drawn_pdf

    text = extract(drawn_pdf(_journal_page), filename="journal.pdf").text
    for (number, title), body in _SECTIONS.items():
        assert f"\n### {number} {title.upper()}\n" in text
        assert body[:40] in text


def test_a_bold_roman_numbered_title_is_a_heading_in_any_case() -> None:
    line = _line("IV. Results and Discussion", 100.0, bold=True)
    assert HeadingRules(BODY).numbered_depth(line) == 1
