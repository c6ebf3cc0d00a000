"""Scoring of one tool's output on one document: facts, word integrity, glued tokens.

Facts are checked on what retrieval sees, a chunk's `text` (for chunkwise:
heading path line, table header and body; for the fixed-size baseline: the
window itself):

- table: one chunk holds the column header, and one line of that chunk holds
  the row label followed by the cell within 150 characters (the row reads
  alone, with its header);
- table, strict (the structure measure): the cell sits in a GFM table row whose
  row-label cell is the row label, in the column whose header cell names the
  column (a table without a header row: its first row names the columns, as in
  key-value tables, or the caption line directly above names the table); a row
  that only comes out as a paragraph next to its header does not count;
- prose: the snippet occurs in the document's text (exactly, after collapsing
  whitespace: a word broken at a line end or hyphenated must come out whole);
- heading: a chunk holding the snippet names the heading, in its heading path
  or in its text before the snippet.

Comparison copies only (never the canonical text): whitespace collapsed
(NBSP counts as a space), Markdown escapes and emphasis markers dropped, and
Unicode NFC (pdftotext writes a TeX accent as letter + combining mark, "u\u0308",
which is the letter "\u00fc" of the page; split by the word pattern it made two
words of the reference's "geschützt").

Word integrity compares against `pdftotext -raw`: the share of its words of
5+ letters that come out as words (each occurrence counted once; a word that
pdftotext hyphenates at a line end counts as found whole or in its parts).
Lines that recur on many pages (running headers and footers) are left out of
the reference, since dropping them is right. Glued tokens are runs of 20+
letters in the output that are not a word of pdftotext's text.

Corrected reference (reported beside, never instead of, the figure above):
pdftotext writes some of TeX's math symbols as letters (cmsy's angle brackets
as "h" and "i": "⟨neu⟩" -> "hneui"; see glyphs.py). A letter of pdftotext's
page is replaced by the symbol only where a second reader's text of the same
page (pdfminer's glyphs, the symbol named by the font program) has that symbol
at the same place: the two pages' letters aligned, and only in one-for-one
replacements (a symbol for a letter). Nothing else of the
reference changes, and which words the tool's output has plays no part.
The corrected reference also has an ActualText written as TeX source, which
pdftotext prints in place of the glyphs it marks ("protect <" over a "⟨",
see actualtext.py), without its control words: the words of the page stay,
the names of TeX macros go.
For the corrected figure both sides also have their presentation-form
ligatures (U+FB00-U+FB06, "ﬁ") written as letters: pdftotext keeps them as one
character on some tool chains' PDFs (Distiller, LuaTeX), so "modiﬁed" and
"modified" would count as different words whichever side writes which.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from chunkwise.canonical import CELL_SPLIT, is_separator

_WORD = re.compile(r"[^\W\d_]+")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_EMPHASIS = re.compile(r"\*\*|`")
_SPACE = re.compile(r"[\s\u00a0\u202f]+")
_DIGITS = re.compile(r"\d+")
_MIN_LETTERS = 5
_GLUED_LETTERS = 20
_ROW_REACH = 150  # characters of other cells allowed between a row label and its cell
# Glyph names of TeX's cmsy / cmex / msam fonts (and marvosym's information sign,
# mathdesign's big star) that
# pdftotext writes as letters on the development PDFs (found by aligning its text
# with pdfminer's, see glyphs.py), and the symbols they are: the only characters a
# correction of the reference puts in.
SYMBOL_GLYPHS = {
    "angbracketleft": "\u27e8",
    "angbracketright": "\u27e9",
    "summationtext": "\u2211",
    "summationdisplay": "\u2211",
    "producttext": "\u220f",
    "productdisplay": "\u220f",
    "integraltext": "\u222b",
    "integraldisplay": "\u222b",
    "star": "\u2605",  # msam10's \bigstar, written "F"
    "bigstar": "\u2605",  # mathdesign's, written "\u00c6"
    "Info": "\U0001f6c8",  # marvosym's \Info; not U+2139, which is a letter
}
SYMBOLS = frozenset(SYMBOL_GLYPHS.values())


@dataclass(frozen=True)
class View:
    """What retrieval sees of one chunk."""

    text: str
    heading_path: tuple[str, ...] = ()


def norm(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    text = _ESCAPE.sub(r"\1", text)
    text = _EMPHASIS.sub("", text)
    return _SPACE.sub(" ", text).strip()


def _norm_lines(text: str) -> list[str]:
    return [norm(line) for line in text.split("\n")]


def _row_holds(line: str, row: str, cell: str) -> bool:
    """The cell follows the row label on the line, with at most a row's other cells between."""
    at = line.find(row)
    while at >= 0:
        after = at + len(row)
        if cell in line[after : after + _ROW_REACH + len(cell)]:
            return True
        at = line.find(row, at + 1)
    return False


def table_fact(views: Sequence[View], cell: str, column: str, row: str) -> bool:
    cell_n, column_n, row_n = norm(cell), norm(column), norm(row)
    for view in views:
        flat = norm(view.text)
        if column_n not in flat:
            continue
        if any(_row_holds(line, row_n, cell_n) for line in _norm_lines(view.text)):
            return True
    return False


@dataclass(frozen=True)
class TableView:
    """One GFM table of a chunk: the line before it (its caption), header cells, body rows."""

    context: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def _cells(line: str) -> tuple[str, ...]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return tuple(norm(c) for c in CELL_SPLIT.split(inner))


def tables_in(text: str) -> list[TableView]:
    """The GFM tables of a chunk's text (runs of lines starting with "|")."""
    out: list[TableView] = []
    lines = text.split("\n")
    context = ""
    i = 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("|"):
            if lines[i].strip():
                context = norm(lines[i])
            i += 1
            continue
        run: list[tuple[str, ...]] = []
        raw: list[str] = []
        while i < len(lines) and lines[i].lstrip().startswith("|"):
            run.append(_cells(lines[i]))
            raw.append(lines[i])
            i += 1
        if len(run) >= 2 and is_separator(raw[1]):
            out.append(TableView(context, run[0], tuple(run[2:])))
        else:
            out.append(TableView(context, (), tuple(run)))
        context = ""
    return out


def _row_label_at(cells: tuple[str, ...], row: str) -> int:
    for i, value in enumerate(cells):
        if value == row or value.startswith(row + " "):
            return i
    return -1


def table_fact_strict(views: Sequence[View], cell: str, column: str, row: str) -> bool:
    """The cell is in a table's body row whose row-label cell is `row`, in the column whose
    header names `column` (or, for a table without such a header cell, one whose caption
    line directly above does): structure, not co-location."""
    cell_n, column_n, row_n = norm(cell), norm(column), norm(row)
    for view in views:
        for table in tables_in(view.text):
            header, rows = table.header, table.rows
            if not any(header) and rows:  # no header row: the first row names the columns
                header = rows[0]
            columns = [j for j, h in enumerate(header) if column_n in h]
            if not columns and column_n not in table.context:
                continue
            for cells in rows:
                at = _row_label_at(cells, row_n)
                if at < 0:
                    continue
                wanted = columns or range(len(cells))
                if any(j != at and j < len(cells) and cell_n in cells[j] for j in wanted):
                    return True
    return False


def prose_fact(full_text: str, snippet: str) -> bool:
    return norm(snippet) in norm(full_text)


def heading_fact(views: Sequence[View], snippet: str, heading: str) -> bool:
    snippet_n, heading_n = norm(snippet), norm(heading).casefold()
    for view in views:
        flat = norm(view.text)
        at = flat.find(snippet_n)
        if at < 0:
            continue
        if any(heading_n in norm(h).casefold() for h in view.heading_path):
            return True
        if heading_n in flat[:at].casefold():
            return True
    return False


@dataclass
class Reference:
    """pdftotext -raw words: alternatives per occurrence, and the set of all words."""

    occurrences: list[tuple[str, ...]]
    vocabulary: set[str]


def symbol_corrections(reference_page: str, other_page: str) -> dict[int, str]:
    """Index in `reference_page` -> symbol, where the other reader has a symbol for its letter.

    The texts are aligned on their letters alone (and the other's SYMBOLS): the
    readers differ in spacing, in where they put line numbers and punctuation, and
    in accents (pdftotext writes a combining mark after the letter, pdfminer a
    spacing accent before it); ligature glyphs ("ﬁ", which either reader may keep)
    count as their letters. Only one-for-one replacements of a letter by a
    symbol count.
    """
    if not SYMBOLS.intersection(other_page):
        return {}
    # A ligature glyph pdftotext keeps ("ﬁ") stands for its letters, as in NFKC.
    ours = [
        (i, letter)
        for i, c in enumerate(reference_page)
        for letter in _LIGATURES.get(c, c)
        if letter.isalpha()
    ]
    theirs = [c for c in unicodedata.normalize("NFKC", other_page) if c.isalpha() or c in SYMBOLS]
    matcher = SequenceMatcher(None, [c for _, c in ours], theirs, autojunk=False)
    corrections: dict[int, str] = {}
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op != "replace" or i2 - i1 != j2 - j1:
            continue
        for (at, _), symbol in zip(ours[i1:i2], theirs[j1:j2], strict=True):
            if symbol in SYMBOLS:
                corrections[at] = symbol
    return corrections


def corrected_reference_text(pdftotext_raw: str, other_pages: Sequence[str]) -> str:
    """pdftotext's text with the letters symbol_corrections finds, page by page, replaced."""
    pages = pdftotext_raw.split("\f")
    for n, other in enumerate(other_pages[: len(pages)]):
        fixes = symbol_corrections(pages[n], other)
        if fixes:
            pages[n] = "".join(fixes.get(i, c) for i, c in enumerate(pages[n]))
    return "\f".join(pages)


def without_tex_source(pdftotext_raw: str, pages: Sequence[Sequence[tuple[str, str]]]) -> str:
    """pdftotext's text with each page's ActualTexts of TeX source (as printed, as meant;
    actualtext.py) put back as meant, one occurrence each, in the page's order."""
    texts = pdftotext_raw.split("\f")
    for n, sources in enumerate(pages[: len(texts)]):
        at = 0
        for printed, meant in sources:
            found = texts[n].find(printed, at)
            if found >= 0:
                texts[n] = texts[n][:found] + meant + texts[n][found + len(printed) :]
                at = found + len(meant)
    return "\f".join(texts)


_LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}
_LIGATURE = re.compile("[" + "".join(_LIGATURES) + "]")


def fold_ligatures(text: str) -> str:
    """`text` with the presentation-form ligatures "ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ" as their letters
    (a comparison copy for the corrected figure; both sides get it)."""
    return _LIGATURE.sub(lambda m: _LIGATURES[m.group()], text)


def words_corrected(before: Reference, after: Reference) -> int:
    """Reference words the correction changed (occurrences of `before` that `after` lacks)."""
    return sum((Counter(before.occurrences) - Counter(after.occurrences)).values())


def reference_words(pdftotext_raw: str) -> Reference:
    pdftotext_raw = unicodedata.normalize("NFC", pdftotext_raw)
    pages = pdftotext_raw.split("\f")
    line_pages: Counter[str] = Counter()
    for page in pages:
        line_pages.update({_DIGITS.sub("#", ln.strip()) for ln in page.split("\n") if ln.strip()})
    running = max(3, len(pages) // 4)
    vocabulary = set(_WORD.findall(pdftotext_raw))
    occurrences: list[tuple[str, ...]] = []
    for page in pages:
        lines = [ln.strip() for ln in page.split("\n")]
        carried = False  # the line's first word ends a word hyphenated on the line before
        for i, line in enumerate(lines):
            words = _WORD.findall(line)
            if not words or line_pages[_DIGITS.sub("#", line)] >= running:
                carried = False
                continue
            following = _WORD.findall(lines[i + 1]) if i + 1 < len(lines) else []
            hyphen = line.endswith("-") and bool(following) and following[0][:1].islower()
            for j, word in enumerate(words):
                if carried and j == 0:
                    continue
                if hyphen and j == len(words) - 1:
                    joined = word + following[0]
                    vocabulary.add(joined)
                    if len(joined) >= _MIN_LETTERS:
                        occurrences.append((joined, word))
                elif len(word) >= _MIN_LETTERS:
                    occurrences.append((word,))
            carried = hyphen
    return Reference(occurrences, vocabulary)


def word_integrity(reference: Reference, text: str) -> float:
    found = Counter(_WORD.findall(unicodedata.normalize("NFC", text)))
    hits = 0
    for alternatives in reference.occurrences:
        for word in alternatives:
            if found[word] > 0:
                found[word] -= 1
                hits += 1
                break
    return hits / len(reference.occurrences) if reference.occurrences else 1.0


def glued_tokens(reference: Reference, text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text)
    return [
        w for w in _WORD.findall(text) if len(w) >= _GLUED_LETTERS and w not in reference.vocabulary
    ]
