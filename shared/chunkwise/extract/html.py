"""HTML -> canonical text: headings, paragraphs, lists, code, GFM tables.

Scripts, styles, forms, navigation, page banners and footers are dropped.
Inline markup is reduced to its text (links keep their text, not the URL).
Parsing is lxml's libxml2 HTML parser: no network, no entity expansion of
external resources, tolerant of broken markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from lxml import etree
from lxml import html as lhtml

from .errors import CorruptDocument, EmptyDocument
from .tables import caption_paragraph, escape_paragraph, render_gfm

_SKIP = frozenset(
    "script style noscript template nav aside footer iframe svg canvas form button select"
    " input textarea head object embed map audio video picture dialog menu".split()
)
_SKIP_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "menu", "menubar"})
_BLOCK = frozenset(
    "p div section article main blockquote dd dt dl figure figcaption address center details"
    " summary body html fieldset legend header li hgroup caption".split()
)
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_WS = re.compile(r"[ \t\r\n\f\v\u00a0]+")
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
    if el.get("hidden") is not None or el.get("aria-hidden") == "true":
        return True
    if (el.get("role") or "").lower() in _SKIP_ROLES:
        return True
    if tag == "header" and el.find(".//nav") is not None:
        return True
    style = (el.get("style") or "").replace(" ", "").lower()
    return "display:none" in style


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


def _table_rows(table: etree._Element) -> tuple[list[list[str]], int]:
    """Rows of this table (not nested tables) and how many are header rows."""
    rows: list[list[str]] = []
    header_rows = 0
    containers = [table] + [c for c in table if _tag(c) in ("thead", "tbody", "tfoot")]
    for container in containers:
        for tr in container:
            if _tag(tr) != "tr":
                continue
            cells: list[str] = []
            all_th = True
            for cell in tr:
                tag = _tag(cell)
                if tag not in ("td", "th"):
                    continue
                all_th = all_th and tag == "th"
                cells.append(inline_text(cell).replace("\n", " "))
                try:
                    span = min(int(cell.get("colspan") or "1"), 50)
                except ValueError:
                    span = 1
                cells.extend([""] * (span - 1))
            if not cells:
                continue
            if (_tag(container) == "thead" or all_th) and len(rows) == header_rows:
                header_rows += 1
            rows.append(cells)
    return rows, header_rows


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
        b.flush()
        cap = el.find("caption")
        if cap is not None:
            caption = caption_paragraph(inline_text(cap))
            if caption:
                b.blocks.append(caption)
        rows, _ = _table_rows(el)
        rows = [r for r in rows if any(c.strip() for c in r)]
        if rows:
            b.blocks.append(render_gfm(rows[0], rows[1:]))
            b.tables += 1
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
