"""ODT -> canonical text: headings, paragraphs, lists, tables (content.xml with lxml).

The same treatment as DOCX (extract/docx.py), read from the OpenDocument parts
(extract/odf.py: safe XML, ODF's white-space rules, list styles, tables):

- headings: ``text:h`` at its ``text:outline-level`` (0 or none: 1), with
  the number the outline style shows (``1.1.``, counted here as for DOCX), and
  a paragraph whose style (or a style it is based on) has a default outline
  level or is named ``Heading N``; a paragraph in the Title style is level 1,
  and the headings go one level down in a document that has one (as DOCX);
  Subtitle is a paragraph;
- lists by their list style (``-``, ``N.``; a level without a marker is a
  paragraph), two spaces per level;
- tables: the rows in ``table:table-header-rows`` are the header (combined
  into one line), else the first row, as DOCX; merged cells filled, repeated
  rows and columns bounded (odf.py);
- sections are read through; footnotes and endnotes follow the paragraph that
  cites them; text boxes follow the paragraph they are anchored in;
- not content: tables of contents and other generated indexes (they repeat
  the headings), tracked deletions, comments, page headers and footers (in
  styles.xml, never read); pictures and embedded objects are counted in the
  warnings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .context import ReadContext
from .errors import CorruptDocument, EmptyDocument
from .limits import ExtractLimits
from .odf import (
    DRAW,
    LIST,
    OFFICE,
    STYLE,
    STYLES_CAP,
    TABLE_TABLE,
    TEXT,
    H,
    ListStyles,
    P,
    check_not_encrypted,
    inline_text,
    list_paragraphs,
    list_styles,
    q,
    read_part,
    table_grid,
)
from .slides import Paragraphs, write_paragraphs
from .writer import CanonicalWriter, one_line

_HEADING_NAME = re.compile(r"^(?:heading|überschrift)[ _]*(\d)$", re.IGNORECASE)
_SECTION = q(TEXT, "section")
_FRAME, _TEXT_BOX = q(DRAW, "frame"), q(DRAW, "text-box")
_NOTE_BODY = q(TEXT, "note-body")


@dataclass
class _Style:
    parent: str | None
    names: tuple[str, ...]  # its name and display name, lower case, "_20_" as a space
    outline: int | None


class ParagraphStyles:
    """Paragraph styles of content.xml (automatic) and styles.xml, by name, with
    the chain of styles each is based on."""

    def __init__(self, *roots: Any | None) -> None:
        self._styles: dict[str, _Style] = {}
        for root in roots:
            if root is None:
                continue
            for style in root.iter(q(STYLE, "style")):
                if style.get(q(STYLE, "family")) != "paragraph":
                    continue
                name = style.get(q(STYLE, "name"), "")
                shown = style.get(q(STYLE, "display-name"), "")
                level = style.get(q(STYLE, "default-outline-level"))
                self._styles[name] = _Style(
                    style.get(q(STYLE, "parent-style-name")),
                    tuple(n.replace("_20_", " ").lower() for n in (name, shown) if n),
                    int(level) if level and level.isdigit() else None,
                )

    def chain(self, name: str | None) -> list[_Style]:
        out: list[_Style] = []
        while name and name in self._styles and len(out) < 8:
            out.append(self._styles[name])
            name = self._styles[name].parent
        return out

    def is_title(self, name: str | None) -> bool:
        chain = self.chain(name)
        if chain and any("subtitle" in n or "untertitel" in n for n in chain[0].names):
            return False
        return any("title" in style.names or "titel" in style.names for style in chain)

    def heading_level(self, name: str | None) -> int | None:
        for style in self.chain(name):
            if style.outline:
                return style.outline
            for n in style.names:
                match = _HEADING_NAME.match(n)
                if match:
                    return int(match.group(1))
        return None


_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
          (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))  # fmt: skip


def format_number(value: int, fmt: str) -> str:
    """A number in an ODF number format: ``1``, ``a``/``A``, ``i``/``I``."""
    if fmt in ("a", "A") and value > 0:
        letters = chr(ord("a") + (value - 1) % 26) * ((value - 1) // 26 + 1)
        return letters.upper() if fmt == "A" else letters
    if fmt in ("i", "I") and 0 < value < 4000:
        out = ""
        for amount, digits in _ROMAN:
            while value >= amount:
                out, value = out + digits, value - amount
        return out.upper() if fmt == "I" else out
    return str(value)


@dataclass(frozen=True)
class _OutlineLevel:
    fmt: str  # style:num-format; "" shows no number
    prefix: str
    suffix: str
    shown: int  # text:display-levels: how many levels the label shows
    start: int


class HeadingNumbers:
    """The numbers LibreOffice shows before headings (text:outline-style), counted
    here: ODF keeps them out of the heading's text, as Word does."""

    def __init__(self, *roots: Any | None) -> None:
        self._levels: dict[int, _OutlineLevel] = {}
        self._counts: dict[int, int] = {}
        for root in roots:
            for style in root.iter(q(TEXT, "outline-level-style")) if root is not None else ():
                level_text = style.get(q(TEXT, "level")) or "1"
                level = int(level_text) if level_text.isdigit() else 1
                start = style.get(q(TEXT, "start-value")) or "1"
                shown = style.get(q(TEXT, "display-levels")) or "1"
                self._levels[level] = _OutlineLevel(
                    style.get(q(STYLE, "num-format")) or "",
                    style.get(q(STYLE, "num-prefix")) or "",
                    style.get(q(STYLE, "num-suffix")) or "",
                    int(shown) if shown.isdigit() else 1,
                    int(start) if start.isdigit() else 1,
                )

    def label(self, level: int, heading: Any) -> str:
        if heading.get(q(TEXT, "is-list-header")) == "true":
            return ""
        spec = self._levels.get(level)
        start = spec.start if spec else 1
        self._counts[level] = self._counts.get(level, start - 1) + 1
        for deeper in [k for k in self._counts if k > level]:
            del self._counts[deeper]
        if spec is None or not spec.fmt:
            return ""
        parts = []
        for shown in range(max(1, level - spec.shown + 1), level + 1):
            above = self._levels.get(shown)
            count = self._counts.get(shown, above.start if above else 1)
            parts.append(format_number(count, above.fmt if above and above.fmt else "1"))
        return spec.prefix + ".".join(parts) + spec.suffix


@dataclass
class _Body:
    styles: ParagraphStyles
    lists: ListStyles
    limits: ExtractLimits
    shift: int
    numbers: HeadingNumbers
    writer: CanonicalWriter = field(default_factory=CanonicalWriter)
    pictures: int = 0
    objects: int = 0

    def blocks(self, parent: Any) -> None:
        """The blocks of a body, section, note or text box; lists that follow each
        other directly are one list (LibreOffice starts a new text:list at every
        change of list style)."""
        items: Paragraphs = []
        lists: list[Any] = []
        for child in [*parent, None]:
            if child is not None and child.tag == LIST:
                list_paragraphs(child, self.lists, items)
                lists.append(child)
                continue
            if lists:
                write_paragraphs(self.writer, items)
                for element in lists:
                    self.attached(element)
                items, lists = [], []
            if child is not None:
                self.block(child)

    def block(self, element: Any) -> None:
        tag = element.tag
        if tag == P:
            self.paragraph(element)
        elif tag == H:
            level = _outline_level(element) or self.styles.heading_level(_style(element)) or 1
            number = self.numbers.label(level, element)
            text = inline_text(element)
            self.writer.heading(min(level + self.shift, 6), f"{number} {text}" if number else text)
            self.attached(element)
        elif tag == TABLE_TABLE:
            grid = table_grid(element, self.limits)
            self.writer.table(grid.rows, grid.header_rows or 1)
        elif tag == _SECTION:
            self.blocks(element)
        elif tag == _FRAME:
            self.frame(element)
        # anything else is no content: generated indexes (text:table-of-content,
        # ...), declarations, tracked changes, forms

    def paragraph(self, element: Any) -> None:
        style = _style(element)
        text = inline_text(element)
        level = self.styles.heading_level(style)
        if self.styles.is_title(style) and one_line(text):
            self.writer.heading(1, text)
        elif level is not None and one_line(text):
            self.writer.heading(min(level + self.shift, 6), text)
        else:
            self.writer.paragraph(text)
        self.attached(element)

    def attached(self, element: Any) -> None:
        """Footnotes cited and text boxes anchored in a paragraph, after it."""
        for body in element.iter(_NOTE_BODY):
            self.blocks(body)
        for frame in element.iter(_FRAME):
            if not any(a.tag in (_FRAME, _NOTE_BODY) for a in _ancestors(frame, element)):
                self.frame(frame)

    def frame(self, frame: Any) -> None:
        box = frame.find(_TEXT_BOX)
        if box is not None:
            self.blocks(box)
        elif frame.find(q(DRAW, "image")) is not None:
            self.pictures += 1
        else:
            self.objects += 1


def _ancestors(element: Any, stop: Any) -> list[Any]:
    out = []
    parent = element.getparent()
    while parent is not None and parent is not stop:
        out.append(parent)
        parent = parent.getparent()
    return out


def _style(element: Any) -> str | None:
    value: str | None = element.get(q(TEXT, "style-name"))
    return value


def _outline_level(element: Any) -> int | None:
    value = element.get(q(TEXT, "outline-level"))
    return max(1, min(int(value), 10)) if value and value.isdigit() else None


def read_odt(data: bytes, ctx: ReadContext) -> str:
    container = ctx.container
    if container is None:  # pragma: no cover - the dispatcher always opens the ZIP
        raise CorruptDocument("ODT reader called without its container")
    check_not_encrypted(container, "ODT")
    content = read_part(container, "content.xml")
    text_root = (
        content.find(f"{q(OFFICE, 'body')}/{q(OFFICE, 'text')}") if content is not None else None
    )
    if text_root is None:
        raise CorruptDocument("ODT has no office:text body in content.xml")
    styles_root = read_part(container, "styles.xml", cap=STYLES_CAP)
    styles = ParagraphStyles(styles_root, content)
    titled = any(styles.is_title(_style(p)) for p in text_root.iter(P))
    lists = list_styles(styles_root, content)
    numbers = HeadingNumbers(styles_root)
    body = _Body(styles, lists, ctx.limits, int(titled), numbers)
    try:
        body.blocks(text_root)
    except RecursionError:
        raise CorruptDocument("ODT nested too deeply") from None
    if body.pictures or body.objects:
        ctx.report.warnings.append(
            f"{body.pictures} picture(s) and {body.objects} embedded object(s) not read"
        )
    text = body.writer.text()
    if not text.strip():
        raise EmptyDocument("the ODT has no text in its body")
    ctx.report.tables = body.writer.tables
    ctx.report.tables_found = len(body.writer.tables)
    return text + "\n"
