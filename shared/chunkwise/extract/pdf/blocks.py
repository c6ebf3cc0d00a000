"""Text lines -> blocks: headings, paragraphs, list items and tables.

Running headers and footers found across pages and stripped (`running_keys`,
`strip_running`), lines joined into a block's text with line-end hyphens
undone or kept (`join_lines`), heading levels from numbering and font size
(`HeadingRules`, `heading_rules`, `heading_levels`), lines grouped into
`Item`s (items.py) merged with the page's tables by position (`group`) and
captions attached to their table (`captions_below`, `attach_captions`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Container, Iterable
from dataclasses import dataclass, field, replace

from ..tables import caption_breaks_off, is_caption
from .hyphen import Hyphenation
from .items import Item, PageContent
from .lines import Line

# A bullet glyph may touch its text; "-", "*" and "–" only count as bullets
# when a space follows: "-s", "-1" or "*.html" are data (options, numbers).
_BULLETS = re.compile(r"^(?:[\u2022\u25aa\u25cf\u25e6\u2023\u2043\u2219\u00b7]\s*|[\-*\u2013]\s+)")
_NUMBERED = re.compile(r"^(\d{1,3}[.)])\s+")
_PAGE_NUMBER = re.compile(
    r"^[\s\-\u2013\u2014]*(?:(?:page|seite|p\.|s\.)\s*)?\d{1,5}"
    r"(?:\s*(?:of|von|/)\s*\d{1,5})?[\s\-\u2013\u2014]*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_TOC_ENTRY = re.compile(r"(?:\.\s?){3,}\s*\d+$|\s\d{1,4}$")
_DATE = re.compile(
    r"^\d{1,2}\.\s+(?:Jan|Feb|Mär|Mar|Apr|Mai|May|Jun|Jul|Aug|Sep|Okt|Oct|Nov|Dez|Dec)",
    re.IGNORECASE,
)
# "2.6. Pakete", "1.1.8 How to shutdown", "A.1 Text encodings": the number
# gives the level; what follows must start like a title, not like a number.
# A roman section number ("I. INTRODUCTION", "IV. Results", two-column journal
# styles) is a first-level one and needs its dot: "I think" and "V Vorwort" are
# not numbers, nor are lower-case "i)" / "ii." enumerations.
_HEADING_NUMBER = re.compile(
    r"^((?:\d{1,2}|[A-H])(?:\.\d{1,2}){0,4}\.?|(?=[IVX])X{0,3}(?:IX|IV|V?I{0,3})\.)"
    r"\s+(?=[^\W\d_]|\\)"
)
_ROMAN = re.compile(r"\b[ivxlc]{1,7}\b")
_LEADERS = re.compile(r"[\s.\u2026\u00b7]+")
_MARGIN = 0.12  # share of the page height where running headers and footers sit
_WORD_START = re.compile(r"[^\W_]*")
_HYPHEN_STEM = re.compile(r"(?:^|[\s\-/(])([^\W_]+)-$")  # the word part before a line-end hyphen
_HYPHEN_KEEP = frozenset({"und", "oder", "bzw.", "sowie", "bis", "and", "or"})
# "to" keeps a suspended hyphen only before a compound ("two- to three-fold");
# else it is a syllable: "Benutzerkon-" + "to" is "Benutzerkonto".
_HYPHEN_KEEP_RANGE = frozenset({"to"})


def _running_key(line: Line, page_height: float) -> tuple[str, str, int]:
    """What a running header/footer has in common on every page, whichever reader read it.

    Page numbers (arabic or roman) are masked; spaces and dot leaders are
    dropped, since PDFium and pdfplumber space them differently (". . .Page 5"
    vs ".....Page 5"). The position is the margin zone, not the exact top,
    which the two readers also place a little differently; the font size
    keeps a title on the first page apart from the same words as a header.
    """
    text = _DIGITS.sub("#", line.text.casefold())
    text = _ROMAN.sub("#", text)
    text = _LEADERS.sub("", text)
    if line.top < _MARGIN * page_height:
        zone = "head"
    elif line.bottom > (1 - _MARGIN) * page_height:
        zone = "foot"
    else:
        zone = str(round(line.top / 4))
    return text, zone, round(line.size)


def _edge(lines: list[Line]) -> list[Line]:
    return lines[:2] + lines[-2:] if len(lines) > 4 else lines


def running_keys(pages: list[tuple[float, list[Line]]]) -> set[tuple[str, str, int]]:
    """Keys of lines repeated as header/footer: on at least half of the pages, or
    (in the margin band) as page furniture that alternates or changes (`_furniture`)."""
    n = len(pages)
    if n < 2:
        return set()
    on_page = [{_running_key(ln, height) for ln in _edge(lines)} for height, lines in pages]
    counts = Counter(k for keys in on_page for k in keys)
    need = max(2, math.ceil(0.5 * n))
    return {k for k, c in counts.items() if c >= need} | _furniture(on_page)


# Fewest pages a margin line must repeat on to be furniture by parity or by run: a
# real heading may happen to open two pages (a chapter's and its appendix's).
_MIN_FURNITURE = 3


def _furniture(on_page: list[set[tuple[str, str, int]]]) -> set[tuple[str, str, int]]:
    """Margin lines that are page furniture without being on half of all pages.

    A book sets its title on even pages and the chapter's on odd ones (each on
    under half of the pages), or the chapter title on that chapter's pages only.
    So a line in the top or bottom band counts when it is on at least half of
    the pages of one parity, or on a run of pages each at most two after the
    last (every page, or every other one), at least `_MIN_FURNITURE` times
    either way.
    """
    pages_of: dict[tuple[str, str, int], list[int]] = {}
    for index, keys in enumerate(on_page):
        for key in keys:
            if key[1] in ("head", "foot"):
                pages_of.setdefault(key, []).append(index)
    parity = [len(on_page[side::2]) for side in (0, 1)]
    found: set[tuple[str, str, int]] = set()
    for key, indexes in pages_of.items():
        if len(indexes) < _MIN_FURNITURE:
            continue
        for side in (0, 1):
            same = sum(1 for i in indexes if i % 2 == side)
            if same >= max(_MIN_FURNITURE, math.ceil(0.5 * parity[side])):
                found.add(key)
        run = 1
        for before, after in itertools.pairwise(indexes):
            run = run + 1 if after - before <= 2 else 1
            if run >= _MIN_FURNITURE:
                found.add(key)
                break
    return found


def strip_running(
    lines: list[Line], keys: set[tuple[str, str, int]], page_height: float
) -> tuple[list[Line], int]:
    kept: list[Line] = []
    removed = 0
    last = len(lines) - 1
    for i, ln in enumerate(lines):
        edge = i < 2 or i > last - 2
        in_margin = ln.top < 0.1 * page_height or ln.bottom > 0.9 * page_height
        if edge and (
            _running_key(ln, page_height) in keys or (in_margin and _PAGE_NUMBER.match(ln.text))
        ):
            removed += 1
            continue
        kept.append(ln)
    return kept, removed


_BROKEN_END = re.compile(r"([^\W\d_]{2,})-$")
_BROKEN_START = re.compile(r"[^\W\d_]{2,}")


def _capitals_broken(line: str, following: str, hyphenation: Hyphenation | None) -> bool:
    """A word in capitals hyphenated at the line end ("CONDI-" + "TIONAL", a manual
    page's cross-reference to a section head): one word where the document writes
    the two parts joined elsewhere and never with the hyphen."""
    head, tail = _BROKEN_END.search(line), _BROKEN_START.match(following)
    if hyphenation is None or head is None or tail is None:
        return False
    if not (head.group(1).isupper() and tail.group(0).isupper()):
        return False
    return hyphenation.joined_elsewhere(line, following)


def join_lines(
    lines: Iterable[str],
    hyphenation: Hyphenation | None = None,
    code_ends: Container[int] = (),
    in_cell: bool = False,
) -> str:
    """A block's lines as one text, with line-end hyphens resolved.

    "Tabellenein-" + "träge" is one hyphenated word: the hyphen goes, unless
    the document writes the pair with its hyphen elsewhere ("timer-based" in
    an office document, which breaks lines only at hyphens it has; see
    `hyphen`). A hyphen before a capital is part of the word ("E-" + "Mail",
    "Computer-Modern-" + "Schriftfamilien"), and before a digit ("KP-" + "100"):
    it stays, without a space, unless both parts are capitals the document writes
    joined elsewhere ("CONDI-" + "TIONAL"); so it does after one letter, capitals or digits
    ("X-" + "authority-Datei", "X11-" + "forwarding"). Before
    a conjunction it is a suspended compound ("Zeilen- und Spalten"): it stays
    with its space. A soft hyphen marks where a word was broken: it goes. An
    option's dashes ("--" + "type=service") and, in a table cell (`in_cell`), a
    slash inside a word or path ("~/.ssh/" + "authorized_keys") are where an
    office suite wrapped a word it could not hyphenate: the next line attaches
    without a space. So does
    the line after one whose last glyph is code (`code_ends`: indexes of such
    lines), as code is rarely hyphenated ("systemd-" + "hostnamed.service"),
    unless the document writes the joined word elsewhere and never the pair.
    """
    out = ""
    for i, text in enumerate(lines):
        hyphen = out.endswith("-") and len(out) > 1 and out[-2].isalpha()
        if not out:
            out = text
        elif out.endswith("\u00ad"):
            out = out[:-1] + text
        elif text[:1].isalnum() and _in_path(out):
            out = out + text  # a path or identifier wrapped at its own hyphen
        elif text[:1].islower() and _unbreakable_stem(out) and not _suspended(text):
            out = out + text
        elif hyphen and text[:1].islower() and not _suspended(text):
            if i - 1 in code_ends:  # code keeps its hyphen unless the document joins it
                keep = hyphenation is None or not hyphenation.joined_elsewhere(out, text)
            else:
                keep = hyphenation is not None and bool(hyphenation.keeps(out, text))
            out = (out if keep else out[:-1]) + text
        elif hyphen and _capitals_broken(out, text, hyphenation):
            out = out[:-1] + text
        elif (hyphen and (text[:1].isupper() or text[:1].isdigit())) or _attaches(
            out, text, in_cell
        ):
            out = out + text
        else:
            out = out + " " + text
    return out


def _in_path(out: str) -> bool:
    """The text ends in a hyphen inside a token with a slash or an underscore
    ("/usr/lib/x86_64-linux-"): a path or an identifier, which neither TeX nor an
    office suite hyphenates; the line broke at the token's own hyphen, which stays.
    (A TeX control word, "\\phan-" + "tomsection", is hyphenated: not counted.)"""
    if not out.endswith("-") or len(out) < 2 or not out[-2].isalnum():
        return False
    token = out.rsplit(None, 1)[-1]
    return any(c in token[:-1] for c in "/_")


def _unbreakable_stem(out: str) -> bool:
    """The text ends in a hyphen after a part no hyphenation breaks off: one letter, or
    capitals and digits only ("X-" + "authority-Datei", "X11-" + "forwarding", "16-" +
    "bit"). Hyphenation leaves at least two letters before a break and does not split
    abbreviations or numbers, so the hyphen is the word's own."""
    stem = _HYPHEN_STEM.search(out)
    if stem is None:
        return False
    part = stem.group(1)
    return (len(part) == 1 and part.isalpha()) or not any(c.islower() for c in part)


def _suspended(text: str) -> bool:
    """Does the line after a line-end hyphen start like the rest of a suspended
    compound ("und Spalten", "to 16-bit")?"""
    words = text.split(" ", 2)
    if words[0] in _HYPHEN_KEEP:
        return True
    return words[0] in _HYPHEN_KEEP_RANGE and len(words) > 1 and "-" in words[1]


def _attaches(out: str, text: str, in_cell: bool) -> bool:
    """The line ends in an option's dashes ("-", "--" after a space) or, in a table cell,
    a slash within a word or a dot within a path, and the next starts with a letter or
    digit: one token wrapped at the line end. (In prose and listings a path's last slash
    is often followed by a word of its own: "the /usr/share/applications/ directory".)"""
    if not text[:1].isalnum():
        return False
    stem = out.rstrip("-")
    dashes = len(out) - len(stem)
    if dashes and (not stem or stem.endswith(" ")):
        # "--" + "type=service"; one dash only before an option letter or two
        # ("-" + "f"): before a word it is a dash between words ("hinzufügen - aber").
        start = _WORD_START.match(text)
        letters = start.end() if start else 0
        return dashes == 2 or (dashes == 1 and letters <= 2)
    if not in_cell or len(out) < 2:
        return False
    if out.endswith("/"):
        return not out[-2].isspace()
    # A path wrapped after a dot of its own ("~/.config/autostart/org." + "example-
    # agent.desktop"): the token before has a slash, the dot follows a letter or digit,
    # and the next line goes on in lower case or a digit, as a new sentence would not.
    token = out.rsplit(None, 1)[-1]
    return (
        out.endswith(".")
        and "/" in token
        and out[-2].isalnum()
        and (text[0].islower() or text[0].isdigit())
    )


@dataclass
class HeadingRules:
    """Which lines are headings, from the statistics of the whole document.

    Without numbered headings (fewer than three), a line at least 15 % larger
    than the body text is a heading and levels follow the sizes. With numbered
    headings ("2.6. Pakete", bold or larger than the body), the number gives
    the level (depth 1 = ###, below the `## Page N` anchors) and an unnumbered
    line is a heading only in a font that the numbered headings use (chapter
    titles, "Contents", "Index"): a large example word set in the body font
    ("gigantisch" set huge) stays text. The topmost large line of page 1 is
    the document's title (#). Contents lines ("1. Allgemeines 5") and dates
    ("30. Juli 2022") are not numbered headings.
    """

    body: float
    heading_fonts: frozenset[str] = frozenset()
    depth_sizes: dict[int, float] = field(default_factory=dict)  # depth -> typical size
    title: tuple[int, float] | None = None  # (page, size) of the document title

    @property
    def numbered(self) -> bool:
        return bool(self.depth_sizes)

    def numbered_depth(self, ln: Line) -> int:
        """Depth of a numbered heading line ("2.6." -> 2, "IV." -> 1), 0 if it is not one.

        A heading stands out by weight or size, or, at the body's size and weight,
        by its title in capitals or small capitals (`_capitals_title`)."""
        if len(ln.text) > 150:
            return 0
        match = _HEADING_NUMBER.match(ln.text)
        if match is None or is_caption(ln.text) or ln.text.rstrip().endswith((",", ";")):
            return 0
        title = ln.text[match.end() :]
        if not (ln.bold or ln.size >= self.body * 1.1 or _capitals_title(ln, title)):
            return 0
        if _TOC_ENTRY.search(ln.text) or _DATE.match(ln.text):  # contents line, date
            return 0
        number = match.group(1).rstrip(".")
        return number.count(".") + 1

    def level(self, ln: Line, page: int) -> int:
        """Heading level of a line (1-6), 0 = not a heading, -1 = by size rank."""
        if len(ln.text) > 200 or is_caption(ln.text):
            return 0
        if self.title is not None and (page, round(ln.size, 1)) == self.title:
            return 1
        if not self.numbered:
            return -1 if ln.size >= self.body * 1.15 else 0
        depth = self.numbered_depth(ln)
        if depth:
            return min(6, 2 + depth)
        if ln.font not in self.heading_fonts or ln.size < self.body * 1.15:
            return 0
        return self._level_by_size(ln.size)

    def _level_by_size(self, size: float) -> int:
        """An unnumbered heading sits at the level of numbered ones of its size."""
        best = min(self.depth_sizes)
        for depth, typical in sorted(self.depth_sizes.items()):
            if size >= typical - 0.5:
                best = depth
                break
        else:
            best = max(self.depth_sizes)
        return min(6, 2 + best)

    def continues_heading(self, ln: Line) -> bool | None:
        """Whether the line may go on with the heading above it, when something other
        than the layout knows (a tagged PDF's structure tree); None: the layout decides."""
        return None


# A small-capitals font by its name: TeX's cmcsc / LM's "Caps", "SmallCaps", "-SC".
_INITIAL = re.compile(r"\b[A-Z]\.")
_SMALL_CAPS_FONT = re.compile(r"csc\d|caps|smcp|[-_]sc(?:$|[-_\d])|sc$")


def _capitals_title(ln: Line, title: str) -> bool:
    """The title after a section number is set in capitals or small capitals, as
    journal styles set their section titles at the body's size and weight ("I.
    INTRODUCTION"): every letter a capital (small capitals made of smaller
    capitals extract as capitals) or a small-capitals font. A short title of
    words, not code: a sentence ends with its full stop, a listing is mono."""
    letters = [c for c in title if c.isalpha()]
    words = title.split()
    if len(letters) < 4 or not 1 <= len(words) <= 8 or len(title) > 60:
        return False
    if title.rstrip().endswith((".", ":", "!", "?")) or any(s.mono for s in ln.segments):
        return False
    if _INITIAL.search(title):  # "A. SMITH AND B. JONES": names in capitals, not a title
        return False
    if all(c.isupper() for c in letters):
        return True
    return bool(_SMALL_CAPS_FONT.search(ln.font.lower())) and title[:1].isupper()


def heading_rules(pages: list[list[Line]], body: float) -> HeadingRules:
    rules = HeadingRules(body)
    fonts: Counter[str] = Counter()
    sizes: dict[int, Counter[float]] = {}
    for lines in pages:
        for ln in lines:
            depth = rules.numbered_depth(ln)
            if depth:
                fonts[ln.font] += 1
                sizes.setdefault(depth, Counter())[round(ln.size, 1)] += 1
    if sum(fonts.values()) >= 3:
        rules.heading_fonts = frozenset(fonts)
        rules.depth_sizes = {d: c.most_common(1)[0][0] for d, c in sizes.items()}
    first = [ln for ln in pages[0] if ln.size >= body * 1.3] if pages else []
    if first and rules.numbered:  # the topmost large line of page 1
        rules.title = (1, round(min(first, key=lambda ln: ln.top).size, 1))
    return rules


def _continues_heading(prev: Item, ln: Line, level: int, rules: HeadingRules) -> bool:
    """The line is the next line of a heading that wraps (same size and font)."""
    if rules.continues_heading(ln) is False:
        return False
    return (
        prev.kind == "heading"
        and abs(prev.size - ln.size) < 0.5
        and (prev.lines[-1].font == ln.font or ln.size >= rules.body * 1.15)
        and (level != 0 or rules.numbered)
        and not rules.numbered_depth(ln)
        and sum(len(x.text) for x in prev.lines) + len(ln.text) <= 200
    )


def _caption_ends(block: Item) -> bool:
    """A caption is a paragraph of its own, unless its line breaks off inside it
    (l2kurz's two-line captions go on centred below)."""
    text = " ".join(ln.text for ln in block.lines)
    return is_caption(text) and not caption_breaks_off(text)


def group(
    lines: list[Line],
    body: float,
    tables: list[Item],
    rules: HeadingRules | None = None,
    page: int = 1,
    hyphenation: Hyphenation | None = None,
) -> list[Item]:
    """Lines -> heading / paragraph / list items; merged with tables by position."""
    rules = rules or HeadingRules(body)
    blocks: list[Item] = []
    for ln in lines:
        bullet = _BULLETS.match(ln.text)
        is_item = bool(bullet) and len(ln.text) > (bullet.end() if bullet else 0)
        if is_item and ln.text[0] in "-*\u2013" and ln.text.rstrip().endswith(ln.text[0]):
            is_item = False  # "* cell *": a table's column markers, not a bullet
        text = ln.text[bullet.end() :] if (bullet and is_item) else ln.text
        level = 0 if is_item else rules.level(ln, page)
        prev = blocks[-1] if blocks else None
        gap = ln.top - prev.bottom if prev else 1e9
        tight = gap < 0.6 * max(ln.size, 1.0)
        # A heading does not wrap back up the page (the next column's title);
        # a paragraph may run on at the top of the next column.
        up = prev is not None and ln.bottom <= prev.lines[-1].top
        if prev is not None and tight and not up and _continues_heading(prev, ln, level, rules):
            prev.lines.append(ln)
            prev.bottom = ln.bottom
            continue
        if level:
            blocks.append(
                Item("heading", ln.top, ln.bottom, size=ln.size, level=max(level, 0), lines=[ln])
            )
            continue
        if is_item:
            # The item's text without its marker; the line keeps its place (seq).
            item_line = replace(ln, text=text, segments=[])
            blocks.append(Item("item", ln.top, ln.bottom, size=ln.size, lines=[item_line]))
            continue
        if prev is not None and tight and _continues_paragraph(prev, ln, text):
            prev.lines.append(ln)
            prev.bottom = ln.bottom
        else:
            blocks.append(Item("para", ln.top, ln.bottom, size=ln.size, lines=[ln]))
    for b in blocks:
        b.text = _block_text(b.lines, hyphenation)
        b.order = b.lines[0].seq
    merged = blocks + tables
    if lines and all(ln.seq >= 0 for ln in lines) and all(t.order >= 0 for t in tables):
        merged.sort(key=lambda it: it.order)  # reading order: two-column pages
    else:
        merged.sort(key=lambda it: it.top)
    return merged


def _continues_paragraph(prev: Item, ln: Line, text: str) -> bool:
    """The line (close below `prev`) goes on with the paragraph or list item `prev`."""
    return (
        prev.kind in ("para", "item")
        and abs(prev.size - ln.size) < 1.5
        and not is_caption(text)
        and not (prev.kind == "para" and _caption_ends(prev))
        # margin notes open a paragraph: the text they stand beside may follow
        and (not ln.note or prev.lines[-1].note)
    )


def _block_text(lines: list[Line], hyphenation: Hyphenation | None) -> str:
    code_ends = {i for i, ln in enumerate(lines) if ln.segments and ln.segments[-1].mono_end}
    return join_lines((ln.text for ln in lines), hyphenation, code_ends)


def heading_levels(pages: list[PageContent], body: float) -> dict[float, int]:
    """Levels by size rank, for headings that the rules did not give a level."""
    sizes = sorted(
        {
            round(it.size, 1)
            for p in pages
            for it in p.items
            if it.kind == "heading" and it.level == 0
        },
        reverse=True,
    )
    # Largest size = document title (#); further sizes sit below the page
    # anchors (## Page N): ###, ####, ...
    return {s: (1 if i == 0 else min(6, i + 2)) for i, s in enumerate(sizes)}


def _caption_at(items: list[Item], i: int) -> bool:
    return 0 <= i < len(items) and items[i].kind == "para" and is_caption(items[i].text)


def captions_below(pages: list[list[Item]]) -> bool:
    """The document sets its captions below its tables: more tables have a caption
    only below them than only above them (LaTeX documents keep to one side)."""
    below = above = 0
    for items in pages:
        for i, it in enumerate(items):
            if it.kind == "table":
                first, second = _caption_at(items, i - 1), _caption_at(items, i + 1)
                above += first and not second
                below += second and not first
    return below > above


def attach_captions(items: list[Item], below: bool = False) -> None:
    """A caption directly below a table moves directly above it. A table between two
    captions takes the one on the document's side: fntguide's captions sit below
    their tables, and a table after a caption that belongs to the table (or the
    one-line list) above it takes its own caption below it."""
    for i, it in enumerate(items):
        if it.kind != "table" or it.table is None or it.table.caption:
            continue  # not a table, or one met again after its caption moved above it
        after = _caption_at(items, i + 1)
        if _caption_at(items, i - 1) and not (below and after):
            it.table.caption = items[i - 1].text
        elif after and (below or not _captions_next_table(items, i + 1)):
            items[i], items[i + 1] = items[i + 1], it
            it.table.caption = items[i].text


def _captions_next_table(items: list[Item], at: int) -> bool:
    """The caption at `at`, between two tables, is nearer the one below it: that
    table's caption above (l2kurz), not this one's below (debian-reference)."""
    above, caption = items[at - 1], items[at]
    below = items[at + 1] if at + 1 < len(items) else None
    if below is None or below.kind != "table" or below.top < caption.bottom:
        return False
    return below.top - caption.bottom < caption.top - above.bottom
