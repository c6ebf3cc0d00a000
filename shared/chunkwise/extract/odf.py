"""OpenDocument parts, shared by the ODT, ODS and ODP readers: safe XML, text, lists, tables.

Every part is a member of the container the guard verified
(extract/containers.py), read under its caps and parsed with lxml's
``XMLParser(resolve_entities=False, no_network=True, huge_tree=False)``: an
entity is never expanded (billion laughs stay one node), nothing is fetched,
and libxml2's depth and size safeguards stay on. A password-protected
document (its manifest names ``manifest:encryption-data``: ODF encrypts the
parts itself, the ZIP entries look plain) is an `EncryptedDocument`.

Text follows ODF's rules: white space inside a paragraph collapses to one
space, ``text:s`` is that many spaces, ``text:tab`` a tab, ``text:line-break``
a line break; footnotes (``text:note``), comments (``office:annotation``),
tracked deletions and drawing objects are not part of a paragraph's text (the
readers take notes and text boxes as blocks of their own).

Lists take their kind from their list style (``text:list-style`` in the
automatic styles or styles.xml): a level with a bullet is ``-``, a number
format is ``N.``, an empty number format (a list that only indents, as
LibreOffice writes a PPTX paragraph without a bullet) is a plain paragraph, as
is a ``text:list-header``.

Tables: rows and cells repeated (``number-rows-repeated``,
``number-columns-repeated``) are counted, and an empty repetition costs
nothing; a cell spanning rows or columns gives its text to every cell it
covers; the rows inside ``table:table-header-rows`` are the header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

from .containers import ZipContainer
from .errors import CorruptDocument, EncryptedDocument, LimitExceeded
from .limits import ExtractLimits
from .writer import ListItem

OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
STYLE = "urn:oasis:names:tc:opendocument:xmlns:style:1.0"
TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
DRAW = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
SVG = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"
PRESENTATION = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
XLINK = "http://www.w3.org/1999/xlink"
MANIFEST = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"


def q(namespace: str, name: str) -> str:
    return f"{{{namespace}}}{name}"


P, H = q(TEXT, "p"), q(TEXT, "h")
LIST, LIST_ITEM, LIST_HEADER = q(TEXT, "list"), q(TEXT, "list-item"), q(TEXT, "list-header")
TABLE_TABLE = q(TABLE, "table")
_S, _TAB, _BREAK = q(TEXT, "s"), q(TEXT, "tab"), q(TEXT, "line-break")
#: Inside a paragraph but not its text.
_NOT_INLINE = frozenset(
    {
        q(TEXT, "note"),
        q(OFFICE, "annotation"),
        q(OFFICE, "annotation-end"),
        q(TEXT, "tracked-changes"),
        q(TEXT, "soft-page-break"),
        q(TEXT, "bookmark-start"),
        q(TEXT, "bookmark-end"),
        q(TEXT, "reference-mark-start"),
        q(TEXT, "reference-mark-end"),
    }
)
_WS = re.compile(r"[ \t\r\n]+")
_UNITS = {"cm": 1.0, "mm": 0.1, "in": 2.54, "pt": 2.54 / 72, "pc": 2.54 / 6, "px": 2.54 / 96}
_LENGTH = re.compile(r"\s*(-?[\d.]+)\s*([a-z]*)")
#: Rows repeated with content are written out up to this many times each.
MAX_ROW_REPEAT = 1000
#: Parts a reader reads at most (content.xml can be large; styles.xml rarely).
STYLES_CAP = 20 << 20

PARSER = etree.XMLParser(
    resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False, remove_pis=True
)


def parse(xml: bytes, part: str) -> Any:
    try:
        return etree.fromstring(xml, parser=PARSER)
    except etree.XMLSyntaxError as exc:
        raise CorruptDocument(f"{part} is not well-formed XML: {exc}") from None


def check_not_encrypted(container: ZipContainer, label: str) -> None:
    if not container.has("META-INF/manifest.xml"):
        return
    manifest = parse(container.read("META-INF/manifest.xml", cap=STYLES_CAP), "manifest.xml")
    if manifest.find(f".//{q(MANIFEST, 'encryption-data')}") is not None:
        raise EncryptedDocument(
            f"{label} is password-protected (its parts are encrypted); "
            "remove the password and upload again"
        )


def object_types(container: ZipContainer) -> dict[str, str]:
    """Media type of each embedded object folder (``Object 1/``), from the manifest:
    a chart is ``application/vnd.oasis.opendocument.chart``."""
    manifest = read_part(container, "META-INF/manifest.xml", cap=STYLES_CAP)
    if manifest is None:
        return {}
    out = {}
    for entry in manifest.iter(q(MANIFEST, "file-entry")):
        path = entry.get(q(MANIFEST, "full-path"), "")
        if path.endswith("/"):
            out[path] = entry.get(q(MANIFEST, "media-type"), "")
    return out


def is_chart(frame: Any, objects: dict[str, str]) -> bool:
    """A frame holding a chart object (by its manifest type, or an inline office:chart)."""
    target = frame.find(q(DRAW, "object"))
    if target is None:
        return False
    href = (target.get(q(XLINK, "href")) or "").removeprefix("./").rstrip("/") + "/"
    return "chart" in objects.get(href, "") or target.find(f".//{q(OFFICE, 'chart')}") is not None


def read_part(container: ZipContainer, name: str, cap: int | None = None) -> Any | None:
    if not container.has(name):
        return None
    return parse(container.read(name, cap=cap), name)


def length_cm(value: str | None) -> float:
    """An ODF length (``2.5cm``, ``1in``, ``12pt``) in centimetres; 0 if unreadable."""
    match = _LENGTH.match(value or "")
    if not match:
        return 0.0
    try:
        return float(match.group(1)) * _UNITS.get(match.group(2), 1.0)
    except ValueError:
        return 0.0


def inline_text(element: Any) -> str:
    """A paragraph's text by ODF's white-space rules; a line break is ``\\n``."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if node.text:
            parts.append(_WS.sub(" ", node.text))
        for child in node:
            tag = child.tag
            if not isinstance(tag, str) or tag in _NOT_INLINE or tag.startswith("{" + DRAW):
                pass
            elif tag == _S:
                parts.append(" " * _count(child.get(q(TEXT, "c"))))
            elif tag == _TAB:
                parts.append("\t")
            elif tag == _BREAK:
                parts.append("\n")
            else:
                walk(child)
            if child.tail:
                parts.append(_WS.sub(" ", child.tail))

    walk(element)
    return "".join(parts)


def _count(value: str | None) -> int:
    try:
        return max(1, min(int(value or "1"), 1000))
    except ValueError:
        return 1


def all_text(element: Any) -> str:
    """Every paragraph under an element (a table cell, a shape), one per line."""
    return "\n".join(inline_text(p) for p in element.iter(P, H))


# ----------------------------------------------------------------------------- lists


@dataclass
class ListStyles:
    """Per list style name, the kind of each level: bullet, number or none."""

    kinds: dict[str, dict[int, str]] = field(default_factory=dict)
    starts: dict[str, dict[int, int]] = field(default_factory=dict)

    def add_from(self, root: Any | None) -> None:
        if root is None:
            return
        for style in root.iter(q(TEXT, "list-style")):
            name = style.get(q(STYLE, "name"), "")
            levels = self.kinds.setdefault(name, {})
            for level_style in style:
                level = _count(level_style.get(q(TEXT, "level")))
                kind = _level_kind(level_style)
                if kind is not None:
                    levels[level] = kind
                start = level_style.get(q(TEXT, "start-value"))
                if kind == "number" and start and start.isdigit():
                    self.starts.setdefault(name, {})[level] = int(start)

    def kind(self, name: str | None, level: int) -> str:
        levels = self.kinds.get(name or "")
        if not levels:
            return "bullet"
        if level in levels:
            return levels[level]
        return levels[max(k for k in levels if k <= level)] if min(levels) <= level else "bullet"

    def start(self, name: str | None, level: int) -> int | None:
        return self.starts.get(name or "", {}).get(level)


def _level_kind(level_style: Any) -> str | None:
    tag = etree.QName(level_style).localname
    if tag == "list-level-style-number":
        return "number" if level_style.get(q(STYLE, "num-format")) else "none"
    if tag in ("list-level-style-bullet", "list-level-style-image"):
        return "bullet"
    return None


def list_styles(*roots: Any | None) -> ListStyles:
    styles = ListStyles()
    for root in roots:
        styles.add_from(root)
    return styles


def list_paragraphs(
    element: Any, styles: ListStyles, out: list[ListItem | str], level: int = 1,
    style: str | None = None,
) -> None:  # fmt: skip
    """A text:list as ListItems (depth ``level - 1``), plain paragraphs where the
    level shows no marker; nested lists one level deeper."""
    style = element.get(q(TEXT, "style-name")) or style
    first = True
    for item in element:
        if item.tag not in (LIST_ITEM, LIST_HEADER):
            continue
        kind = "none" if item.tag == LIST_HEADER else styles.kind(style, level)
        marked = False
        for child in item:
            if child.tag == LIST:
                list_paragraphs(child, styles, out, level + 1, style)
            elif child.tag in (P, H):
                text = inline_text(child)
                if not text.strip():
                    continue
                if kind == "none" or marked:
                    out.append(text)
                    continue
                start = styles.start(style, level) if first else None
                out.append(ListItem(text, level - 1, kind == "number", start))
                marked = first = True


# ----------------------------------------------------------------------------- tables


@dataclass
class TableGrid:
    rows: list[list[str]]
    header_rows: int  # rows inside table:table-header-rows
    groups_first_row: bool = False  # the first row has a cell spanning columns


def _cell_int(cell: Any, name: str, cap: int) -> int:
    try:
        return max(1, min(int(cell.get(q(TABLE, name)) or "1"), cap))
    except ValueError:
        return 1


def _table_rows(table: Any) -> list[tuple[Any, bool]]:
    """(row, in the header) of this table, not of tables nested in its cells."""
    out: list[tuple[Any, bool]] = []

    def walk(parent: Any, header: bool) -> None:
        for child in parent:
            name = etree.QName(child).localname if isinstance(child.tag, str) else ""
            if name == "table-row":
                out.append((child, header))
            elif name == "table-header-rows":
                walk(child, True)
            elif name in ("table-rows", "table-row-group"):
                walk(child, header)

    walk(table, False)
    return out


def table_grid(table: Any, limits: ExtractLimits) -> TableGrid:
    """The cells of a table (ODT, ODP) on its grid, merged cells filled."""
    rows: list[list[str]] = []
    header_rows = 0
    covered: dict[tuple[int, int], str] = {}
    groups_first_row = False
    for row, in_header in _table_rows(table):
        cells = _row_cells(row, len(rows), covered, limits)
        groups_first_row |= not rows and any(
            _cell_int(c, "number-columns-spanned", 2) > 1 for c in row
        )
        repeat = _cell_int(row, "number-rows-repeated", MAX_ROW_REPEAT)
        for _ in range(repeat if any(cells) else 1):
            rows.append(list(cells))
            header_rows += in_header
            if len(rows) > limits.max_table_rows:
                raise LimitExceeded(
                    "max_table_rows", limits.max_table_rows, len(rows), "rows of a table"
                )
    return TableGrid(rows, header_rows, groups_first_row)


def _row_cells(
    row: Any, r: int, covered: dict[tuple[int, int], str], limits: ExtractLimits
) -> list[str]:
    values: dict[int, str] = {}
    col = 0
    for cell in row:
        name = etree.QName(cell).localname if isinstance(cell.tag, str) else ""
        if name not in ("table-cell", "covered-table-cell"):
            continue
        repeat = _cell_int(cell, "number-columns-repeated", limits.max_table_columns + 1)
        text = " ".join(all_text(cell).split()) if name == "table-cell" else ""
        if len(text) > limits.max_cell_chars:
            raise LimitExceeded("max_cell_chars", limits.max_cell_chars, len(text), "a table cell")
        if name == "covered-table-cell":
            for k in range(repeat):
                if (r, col + k) in covered:
                    values[col + k] = covered[(r, col + k)]
        elif text:
            across = _cell_int(cell, "number-columns-spanned", limits.max_table_columns)
            down = _cell_int(cell, "number-rows-spanned", MAX_ROW_REPEAT)
            for k in range(repeat):
                values[col + k] = text
            for dr in range(down):
                for dc in range(across):
                    if dr or dc:
                        covered[(r + dr, col + dc)] = text
        col += repeat
        if values and max(values) >= limits.max_table_columns:
            raise LimitExceeded(
                "max_table_columns", limits.max_table_columns, max(values) + 1, "table columns"
            )
    width = max(values) + 1 if values else 0
    return [values.get(c, "") for c in range(width)]
