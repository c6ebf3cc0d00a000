"""The canonical-text grammar: one owner for what extraction writes and chunking reads.

Every revision's extracted text is markdown-like (samdocs/architecture.md, "The
canonical text"). Writers (extract/pdf, tables, docx, html, markdown) produce it
with the helpers here; readers (chunking/blocks, chunking/rows, the extraction
report, the evaluation baselines) recognise it with the patterns here, so the two
sides cannot drift apart. Pure: strings in, strings out.

Lines
    heading          ``#`` .. ``######`` + space (a heading starts a block)
    page anchor      ``## Page N`` before each page (``Seite N`` reads the same)
    slide anchor     ``## Slide N`` before each slide of a deck (``Folie N`` reads
                     the same): a page anchor (N is the chunk's page) that also
                     ends the sections above it, since a slide is self-contained
    transcribed      ``### Page N (transcribed by OCR)``: OCR text, quarantined
    table            a pipe line, then a separator row of dashes (one or more
                     per cell, optional colons), then one line per row; a cell's
                     ``|`` is written ``\\|`` and its ``\\`` as ``\\\\``
    linear row       ``Key: value | Key: value`` (a table row read as prose)
    list item        ``-``, ``*``, ``+``, ``1.`` or ``1)`` + space
    code fence       three or more backticks or tildes; literal inside
"""

from __future__ import annotations

import re

# ----------------------------------------------------------------------------- reading

HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
# Where a heading begins (the start of a line is enough to decide it).
HEADING_START = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
PIPE_LINE = re.compile(r"\s*\|?.*\|.*")
SEPARATOR_LINE = re.compile(r"\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
LINEAR_ROW = re.compile(r"[^|:\n]{1,40}: .+( \| [^|:\n]{1,40}: .+)+$")
LIST_ITEM = re.compile(r"\s{0,12}(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
# An unescaped cell boundary of a table line.
CELL_SPLIT = re.compile(r"(?<!\\)\|")
# The title of a page-anchor heading (after the #s); a slide anchor is one.
_PAGE_TITLE = re.compile(r"(?:Page|Seite|Slide|Folie)\s+(\d{1,6})\s*$", re.IGNORECASE)
_SLIDE_TITLE = re.compile(r"(?:Slide|Folie)\s+\d{1,6}\s*$", re.IGNORECASE)
#: The sub-heading a slide's speaker notes are written under.
NOTES_TITLE = "Notes"
TRANSCRIBED_MARK = "(transcribed"


def is_separator(line: str) -> bool:
    """A table's separator row (``|---|:-:|``; one dash per cell is enough, as in GFM)."""
    return "-" in line and SEPARATOR_LINE.match(line) is not None


def is_table_start(line: str, next_line: str) -> bool:
    """A table header: a pipe line directly followed by a separator row. The
    two-line lookahead tells a real table from prose that contains a pipe."""
    return "|" in line and PIPE_LINE.match(line) is not None and is_separator(next_line)


def table_headers(text: str) -> list[str]:
    """The header lines of the tables in a canonical text, in order."""
    lines = text.split("\n")
    return [lines[i - 1] for i in range(1, len(lines)) if is_table_start(lines[i - 1], lines[i])]


def page_number(title: str) -> int | None:
    """The page of a page-anchor heading's title (``Page 3``), else None."""
    match = _PAGE_TITLE.fullmatch(title.strip())
    return int(match.group(1)) if match else None


# What a paragraph broken off by a page break ends in: a letter or digit, or a
# comma or dash within the sentence (a closing quote or bracket is looked through).
_CLOSERS = "\"'\u00bb\u00ab\u201c\u201d\u2019)]"
_RUNS_ON = ",-\u2010\u2013\u2014/("


def runs_on(before: str, after: str) -> bool:
    """A page anchor between these two paragraphs' texts cuts one sentence.

    The first does not end a sentence (it ends in a word or inside a clause) and
    the second starts with a word: in small letters, or after a word in small
    letters or a comma or dash (German nouns run on in capitals: "der" + "Datenbank").
    A paragraph ending in a number or a title word before a capital is taken as
    ended ("Figure 3", then "The next section").
    """
    end = before.rstrip().rstrip(_CLOSERS)
    start = after.lstrip()
    if not end or not start or not start[0].isalnum():
        return False
    last = end[-1]
    if not (last.isalnum() or last in _RUNS_ON):
        return False
    return start[0].islower() or last.islower() or last in _RUNS_ON


def is_slide_anchor(title: str) -> bool:
    """A slide anchor's title (``Slide 3``): a page anchor after which nothing of
    the previous slide's sections goes on (a PDF page break does not end a section;
    a new slide does)."""
    return _SLIDE_TITLE.fullmatch(title.strip()) is not None


def page_anchors(text: str) -> list[tuple[int, int]]:
    """(offset of the heading line, page number) of every page anchor, in order."""
    out = []
    offset = 0
    for line in text.split("\n"):
        heading = HEADING.match(line)
        if heading and heading.group(2) is not None:
            number = page_number(heading.group(2))
            if number is not None:
                out.append((offset, number))
        offset += len(line) + 1
    return out


def is_transcribed(title: str) -> bool:
    """OCR content announces itself in the heading the extractor wrote."""
    return TRANSCRIBED_MARK in title


# ----------------------------------------------------------------------------- writing

TABLE_SEPARATOR_CELL = "---"
_BLOCK_SYNTAX = re.compile(r"^(?:`{3,}|~{3,}|\||>|[-*_](?:\s*[-*_]){2,}\s*$)")
# Wider than HEADING_START (any whitespace after the #s): an escape too many costs
# nothing, one too few would turn prose into a heading.
_HEADING_LIKE = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")


def page_anchor(number: int) -> str:
    return f"## Page {number}"


def slide_anchor(number: int) -> str:
    return f"## Slide {number}"


def transcribed_heading(number: int) -> str:
    return f"### Page {number} {TRANSCRIBED_MARK} by OCR)"


def escape_cell(text: str) -> str:
    """A cell's text for a table line: backslashes and pipes escaped."""
    return text.replace("\\", "\\\\").replace("|", "\\|")


def unescape_cell(text: str) -> str:
    return text.replace("\\|", "|")


def table_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def separator_row(width: int) -> str:
    return table_row([TABLE_SEPARATOR_CELL] * width)


def escape_paragraph(text: str) -> str:
    """Escape the lines of a paragraph that would read as block syntax.

    Text from PDF/DOCX/HTML is prose: a code fence, a pipe, a quote or a
    thematic break must not turn into an unterminated code block or a table
    in the canonical text, so such a line gets a backslash. A line starting
    with "# " is escaped only as the paragraph's first line, where it would be
    a heading; further down it is prose in chunkwise's grammar (a heading
    starts a block), so a cited shell prompt or listing comment keeps its "#".
    """
    lines = text.split("\n")
    return "\n".join(
        "\\" + ln if _BLOCK_SYNTAX.match(ln) or (i == 0 and _HEADING_LIKE.match(ln)) else ln
        for i, ln in enumerate(lines)
    )
