"""HTML -> canonical text: headings, paragraphs, lists, code, GFM tables.

Scripts, styles, forms and everything that is not the page's content are
dropped: `nav`, `aside`, `footer`, a page-level `header` (one not inside an
`article`, `section`, `main`, `aside` or `nav`: there it is the header of that
part, often its title), the ARIA landmarks navigation, banner, contentinfo,
complementary and search, and navigation containers by their class or id
(`nav`, `navbar`, `navigation`, `breadcrumb`, `toc`, DocBook's `navheader`/
`navfooter`, also ending a name such as `site-nav`; see `_names_navigation`).
Layout tables (see `is_layout_table`) are read as blocks, not as a table.
Inline markup is reduced to its text (links keep their text, not the URL).
Parsing is lxml's libxml2 HTML parser: no network, no entity expansion of
external resources, tolerant of broken markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml import etree
from lxml import html as lhtml

from chunkwise.canonical import escape_paragraph

from .errors import CorruptDocument, EmptyDocument
from .tables import (
    MAX_TABLE_COLUMNS,
    caption_paragraph,
    combine_header_rows,
    render_gfm,
)

_SKIP = frozenset(
    "script style noscript template nav aside footer iframe svg canvas form button select"
    " input textarea head object embed map audio video picture dialog menu".split()
)
_SKIP_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"}
)
# A header inside one of these is the header of that part, not the page banner.
_SECTIONING = frozenset({"article", "section", "main", "aside", "nav"})
# "toc": a table of contents repeats the headings as links (DocBook's div.toc,
# MediaWiki's #toc); the headings themselves stay where they are.
_NAV_NAMES = frozenset(
    {"nav", "navbar", "navigation", "navheader", "navfooter", "breadcrumb", "breadcrumbs", "toc"}
)
_NAME_PARTS = re.compile(r"[-_]+")
_LAYOUT_ROLES = frozenset({"presentation", "none"})
_CELL_BLOCKS = tuple("p div ul ol dl pre blockquote table h1 h2 h3 h4 h5 h6".split())
_BLOCK = frozenset(
    "p div section article main blockquote dd dt dl figure figcaption address center details"
    " summary body html fieldset legend header li hgroup caption".split()
)
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
# HTML collapses these; a no-break space (&nbsp;) is a character and stays.
_WS = re.compile(r"[ \t\r\n\f\v]+")
_FENCE = re.compile(r"`{3,}")


def _tag(el: etree._Element) -> str:
    tag = el.tag
    return tag.lower() if isinstance(tag, str) else ""


def _skipped(el: etree._Element) -> bool:
    tag = _tag(el)
    if not tag:
        return True  # comments, processing instructions
    if tag in _SKIP:
        return True
    if el.get("hidden") is not None and not _default_variant(el):
        return True
    if el.get("aria-hidden") == "true":
        return True
    if (el.get("role") or "").lower() in _SKIP_ROLES:
        return True
    if tag == "header" and (_page_level(el) or el.find(".//nav") is not None):
        return True
    if _names_navigation(el):
        return True
    style = (el.get("style") or "").replace(" ", "").lower()
    return "display:none" in style


def _default_variant(el: etree._Element) -> bool:
    """The default variant of a platform switch, shown unless a script picks another.

    LibreOffice's help writes every platform- or module-specific text as
    hidden variants inside a `switch`/`switchinline` element ("Extras -
    Optionen" for Windows/Linux with id "default...", "LibreOffice -
    Einstellungen" with id "MAC..."); its script unhides one. Without the
    default variant, "Wählen Sie Extras - Optionen - Laden/Speichern" loses
    its menu path.
    """
    parent = el.getparent()
    if parent is None or not (el.get("id") or "").startswith("default"):
        return False
    return bool({"switch", "switchinline"} & set((parent.get("class") or "").split()))


def _page_level(el: etree._Element) -> bool:
    return not any(_tag(a) in _SECTIONING for a in el.iterancestors())


def _names_navigation(el: etree._Element) -> bool:
    """A class or id naming a navigation container.

    A name is a navigation name ("nav", "navbar", "navheader", "toc", ...), or
    ends with one after a hyphen or underscore ("site-nav", "main-navigation",
    "page-toc"), starts with "nav-" ("nav-links"), or is a compound ending in
    "nav"/"navigation" ("topnav", "sidenav"). "navigation-system" (a car
    manual's chapter) is not.
    """
    for token in f"{el.get('class') or ''} {el.get('id') or ''}".lower().split():
        parts = [part for part in _NAME_PARTS.split(token) if part]
        if not parts:
            continue
        if parts[-1] in _NAV_NAMES or parts[0] == "nav":
            return True
        if token.endswith(("nav", "navigation", "breadcrumbs")):
            return True
    return False


def _squash(text: str) -> str:
    """Collapse whitespace, keeping explicit line breaks (U+2028 marks <br>)."""
    parts = [_WS.sub(" ", p).strip() for p in text.split("\u2028")]
    return "\n".join(p for p in parts if p)


def inline_text(el: etree._Element, exclude: frozenset[str] = frozenset()) -> str:
    """Text of an element, inline style: skips dropped elements, <br> = newline."""
    out: list[str] = []

    def walk(node: etree._Element) -> None:
        if node.text:
            out.append(node.text)
        for child in node:
            tag = _tag(child)
            if tag == "br":
                out.append("\u2028")
            elif tag and tag not in exclude and not _skipped(child):
                if tag in _BLOCK or tag in _HEADINGS or tag in ("tr", "p"):
                    out.append(" ")
                walk(child)
                if tag in ("td", "th"):
                    out.append(" ")
            if child.tail:
                out.append(child.tail)

    walk(el)
    return _squash("".join(out))


class _Builder:
    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.inline: list[str] = []
        self.tables = 0

    def text(self, text: str | None) -> None:
        if text:
            self.inline.append(text)

    def flush(self) -> None:
        para = _squash("".join(self.inline))
        self.inline = []
        if para:
            self.blocks.append(escape_paragraph(para))

    def block(self, text: str) -> None:
        self.flush()
        if text.strip():
            self.blocks.append(text)


def _list_lines(el: etree._Element, depth: int) -> Iterator[str]:
    ordered = _tag(el) == "ol"
    n = 0
    for li in el:
        if _tag(li) in ("ul", "ol"):
            yield from _list_lines(li, depth + 1)
            continue
        if _tag(li) != "li" or _skipped(li):
            continue
        n += 1
        marker = f"{n}." if ordered else "-"
        text = inline_text(li, exclude=frozenset({"ul", "ol"})).replace("\n", " ")
        if text:
            yield f"{'  ' * depth}{marker} {text}"
        for sub in li.iter("ul", "ol"):
            # only lists directly nested in this item (not deeper levels)
            parent = sub.getparent()
            while parent is not None and _tag(parent) not in ("li",):
                parent = parent.getparent()
            if parent is li:
                yield from _list_lines(sub, depth + 1)


def _table_trs(table: etree._Element) -> Iterator[tuple[etree._Element, bool]]:
    """(row, in thead) of this table, not of tables nested in its cells."""
    containers = [table] + [c for c in table if _tag(c) in ("thead", "tbody", "tfoot")]
    for container in containers:
        for tr in container:
            if _tag(tr) == "tr":
                yield tr, _tag(container) == "thead"


def _cells(tr: etree._Element) -> list[etree._Element]:
    return [cell for cell in tr if _tag(cell) in ("td", "th")]


def _span(cell: etree._Element, name: str, cap: int) -> int:
    try:
        return max(1, min(int(cell.get(name) or "1"), cap))
    except ValueError:
        return 1


def _table_rows(table: etree._Element) -> tuple[list[list[str]], int]:
    """Rows of this table (not nested tables) on its column grid, and how many
    are header rows.

    Header rows are the leading rows in `thead` or made of `th` cells only. A
    header cell spanning columns names each of them (so several header rows
    combine into column names), except a lone header row that is one cell (a
    title over the table: written once); a data cell spanning columns is
    written once. A cell spanning rows (rowspan) is written in each row it
    covers, so later cells stay in their columns and every row reads alone.
    """
    raw: list[tuple[list[tuple[str, int, int]], bool]] = []
    for tr, in_thead in _table_trs(table):
        cells = _cells(tr)
        if cells:
            is_header = in_thead or all(_tag(c) == "th" for c in cells)
            texts = [
                (
                    inline_text(c).replace("\n", " "),
                    _span(c, "colspan", 50),
                    _span(c, "rowspan", 500),
                )
                for c in cells
            ]
            raw.append((texts, is_header))
    header_rows = 0
    while header_rows < len(raw) and raw[header_rows][1]:
        header_rows += 1
    rows: list[list[str]] = []
    carried: dict[int, tuple[str, int]] = {}  # column -> (value, rows still covered)
    for i, (texts, _) in enumerate(raw):
        fill = i < header_rows and not (header_rows == 1 and len(texts) == 1)
        values: list[str] = []
        for text, colspan, rowspan in texts:
            _take_carried(values, carried)
            for k in range(min(colspan, MAX_TABLE_COLUMNS - len(values))):
                value = text if k == 0 or fill else ""
                values.append(value)
                if rowspan > 1:
                    carried[len(values) - 1] = (value, rowspan - 1)
        _take_carried(values, carried, to_end=True)
        rows.append(values)
    return rows, header_rows


def _take_carried(
    values: list[str], carried: dict[int, tuple[str, int]], *, to_end: bool = False
) -> None:
    """Put the values of cells spanning down from earlier rows into this row."""
    while len(values) in carried or (to_end and any(c >= len(values) for c in carried)):
        col = len(values)
        if col not in carried:
            values.append("")
            continue
        value, left = carried.pop(col)
        values.append(value)
        if left > 1:
            carried[col] = (value, left - 1)


def is_layout_table(table: etree._Element) -> bool:
    """A table that arranges blocks on the page rather than holding data.

    role="presentation"/"none"; or a table holding another table; or one whose
    rows each have at most one cell with text (an icon and a note, a framed
    box: one column of blocks), unless it is a plain one-column table with a
    header cell; or a single row without header cells whose cells hold block
    content (columns of a page layout).
    """
    if (table.get("role") or "").lower() in _LAYOUT_ROLES:
        return True
    trs = [tr for tr, _ in _table_trs(table)]
    cells = [cell for tr in trs for cell in _cells(tr)]
    if not cells:
        return False
    # lxml's tag-filtered iter runs in C and stops at the first hit: a deep
    # nest of tables costs one walk per level only until its inner table.
    if any(next(cell.iter("table"), None) is not None for cell in cells):
        return True
    one_text_cell_per_row = all(sum(1 for c in _cells(tr) if inline_text(c)) <= 1 for tr in trs)
    # (a real one-column table with a header cell stays a table: its rows are named)
    several_columns = any(len(_cells(tr)) > 1 for tr in trs)
    if one_text_cell_per_row and (several_columns or all(_tag(c) == "td" for c in cells)):
        return True
    return (
        len(trs) == 1
        and all(_tag(c) == "td" for c in cells)
        and any(next(cell.iter(*_CELL_BLOCKS), None) is not None for cell in cells)
    )


def _walk(el: etree._Element, b: _Builder) -> None:
    tag = _tag(el)
    if _skipped(el):
        return
    if tag in _HEADINGS:
        text = inline_text(el).replace("\n", " ")
        if text:
            b.block("#" * _HEADINGS[tag] + " " + text)
        return
    if tag in ("ul", "ol"):
        b.block("\n".join(_list_lines(el, 0)))
        return
    if tag == "pre":
        code = "".join(str(t) for t in el.itertext()).strip("\n")
        if code.strip():
            longest = max((len(m) for m in _FENCE.findall(code)), default=2)
            fence = "`" * max(3, longest + 1)
            b.block(f"{fence}\n{code}\n{fence}")
        return
    if tag == "table":
        if is_layout_table(el):
            _walk_layout_table(el, b)
        else:
            _data_table(el, b)
        return
    if tag in ("br",):
        b.text("\u2028")
        return
    if tag == "hr":
        b.flush()
        return
    is_block = tag in _BLOCK
    if is_block:
        b.flush()
    b.text(el.text)
    for child in el:
        _walk(child, b)
        b.text(child.tail)
    if is_block:
        b.flush()


def _data_table(el: etree._Element, b: _Builder) -> None:
    b.flush()
    cap = el.find("caption")
    if cap is not None:
        caption = caption_paragraph(inline_text(cap))
        if caption:
            b.blocks.append(caption)
    rows, header_rows = _table_rows(el)
    if header_rows == 0 or header_rows == len(rows):
        # no header row marked (or every row is one): the first row with text is the header
        rows = [r for r in rows if any(c.strip() for c in r)]
        header_rows = 1
    if rows:
        body = [r for r in rows[header_rows:] if any(c.strip() for c in r)]
        b.blocks.append(render_gfm(combine_header_rows(rows[:header_rows]), body))
        b.tables += 1


def _walk_layout_table(el: etree._Element, b: _Builder) -> None:
    """Each cell of a layout table is read as a block of its own, row by row."""
    b.flush()
    cap = el.find("caption")
    if cap is not None:
        _walk(cap, b)
    for tr, _ in _table_trs(el):
        for cell in _cells(tr):
            b.flush()
            _walk_children(cell, b)
            b.flush()


def _walk_children(el: etree._Element, b: _Builder) -> None:
    b.text(el.text)
    for child in el:
        _walk(child, b)
        b.text(child.tail)


def extract_html(text: str) -> tuple[str, int]:
    """Return (canonical text, number of tables)."""
    parser = lhtml.HTMLParser(
        encoding="utf-8", remove_comments=True, remove_pis=True, no_network=True
    )
    try:
        root = lhtml.document_fromstring(text.encode("utf-8"), parser=parser)
    except (etree.ParserError, ValueError) as exc:
        if "empty" in str(exc).lower():
            raise EmptyDocument("the HTML has no content") from None
        raise CorruptDocument(f"HTML could not be parsed: {exc}") from None
    body = root.find("body")
    b = _Builder()
    try:
        _walk(body if body is not None else root, b)
    except RecursionError:
        raise CorruptDocument("HTML nested too deeply") from None
    b.flush()
    out = "\n\n".join(b.blocks).strip()
    if not out:
        raise EmptyDocument("the HTML has no visible text")
    return out + "\n", b.tables
