"""Marked content the page's glyphs do not tell: hidden layers and replacement text.

pdfminer (so pdfplumber) reads every glyph of a content stream and keeps no
more of its marked-content sequences (`/Tag <<...>> BDC ... EMC`) than the
innermost tag. Two kinds of them change what a page says:

- **Optional content** (PDF layers) that the default view hides
  (`/OCProperties /D`: the groups that start OFF). microtype's manual sets
  its quote on margin kerning four times, with and without protrusion and
  expansion, on top of each other, and shows one: read together, the four
  came out as "MMMMaaaarrrrggggiiiinnnn" and as runs of interleaved letters
  (76 glued tokens in 37 pages, 71 in the German edition). Sequences are
  nested; a form XObject can carry its own `/OC`.
- **Replacement text** (`/ActualText`): what a run of glyphs stands for. TeX's
  logos are drawn as "T", a lowered "E", "X" and marked `(TeX)`; read as
  glyphs, "pdfTeX" came out "pdfTEX" and "XeTeX" "X E TEX". PDFium's text page
  already reads it, so both page readers now agree. An ActualText holding
  TeX source (`\\protect <`: a macro that was not expanded when the PDF was
  written) is the document's own slip and not text: its glyphs are kept, also
  where the writer left the backslash unescaped (microtype's manual), and such a
  page goes to pdfplumber (PDFium's text page would read the ActualText).

A page that names a hidden group or holds an ActualText gets its layout from
this module's device (pdfplumber's own, with these two rules added), in the
one pass pdfplumber would make; every other page is read as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from io import BytesIO
from typing import Any

from pdfminer.layout import LTChar, LTContainer
from pdfminer.pdfinterp import PDFPageInterpreter
from pdfminer.pdftypes import PDFObjRef, PDFStream, resolve1
from pdfminer.psparser import PSBaseParser, PSLiteral
from pdfminer.utils import decode_text
from pdfplumber.page import PDFPageAggregatorWithMarkedContent

_MAX_DEPTH = 4  # form XObjects nested deeper are not searched for hidden groups
_TEX_SOURCE = re.compile(r"\\[A-Za-z@]+")


@dataclass
class _Mark:
    """What the interpreter found out about a marked-content sequence."""

    hides: bool = False
    actual: str | None = None  # the sequence's ActualText, when it replaces its glyphs


def _objid(obj: object) -> int | None:
    return obj.objid if isinstance(obj, PDFObjRef) else None


def _ids(value: object) -> set[int]:
    items = resolve1(value)
    return {i for i in map(_objid, items if isinstance(items, list) else []) if i is not None}


def hidden_groups(doc: Any) -> frozenset[int]:
    """Object ids of the optional content groups the default view hides."""
    props = resolve1(doc.catalog.get("OCProperties")) if doc is not None else None
    config = resolve1(props.get("D")) if isinstance(props, dict) else None
    if not isinstance(props, dict) or not isinstance(config, dict):
        return frozenset()
    base = resolve1(config.get("BaseState"))
    if isinstance(base, PSLiteral) and base.name == "OFF":
        return frozenset(_ids(props.get("OCGs")) - _ids(config.get("ON")))
    return frozenset(_ids(config.get("OFF")))


def _is_hidden(ref: object, hidden: frozenset[int]) -> bool:
    """An optional content group, or a membership dictionary (`/OCMD`, by its
    default policy AnyOn: hidden when every group it names is hidden)."""
    objid = _objid(ref)
    if objid is not None and objid in hidden:
        return True
    value = resolve1(ref)
    if not hidden or not isinstance(value, dict) or "OCGs" not in value:
        return False
    members = resolve1(value["OCGs"])
    members = members if isinstance(members, list) else [value["OCGs"]]
    return bool(members) and all(_objid(m) in hidden for m in members)


def names_hidden(resources: object, hidden: frozenset[int]) -> bool:
    """Do these resources (or those of their form XObjects, to `_MAX_DEPTH`) name a
    hidden group? Each XObject is looked at once: a file whose forms share their
    resources, or name each other, costs no more than its number of forms."""
    if not hidden:
        return False
    seen: set[int] = set()
    todo: list[tuple[object, int]] = [(resources, 0)]
    while todo:
        current, depth = todo.pop()
        found = resolve1(current)
        if not isinstance(found, dict):
            continue
        properties = resolve1(found.get("Properties"))
        if isinstance(properties, dict) and any(_is_hidden(v, hidden) for v in properties.values()):
            return True
        xobjects = resolve1(found.get("XObject"))
        for ref in xobjects.values() if isinstance(xobjects, dict) else ():
            key = getattr(ref, "objid", None) or id(ref)
            if key in seen:
                continue
            seen.add(key)
            attrs = getattr(resolve1(ref), "attrs", {})
            if _is_hidden(attrs.get("OC"), hidden):
                return True
            if depth < _MAX_DEPTH:
                todo.append((attrs.get("Resources"), depth + 1))
    return False


def has_actual_text(page_obj: Any) -> bool:
    """Does the page's own content (pdfminer keeps it decoded) hold an ActualText?"""
    streams = page_obj.contents if isinstance(page_obj.contents, list) else []
    for stream in map(resolve1, streams):
        if isinstance(stream, PDFStream) and b"/ActualText" in stream.get_data():
            return True
    return False


def tex_source_strings(page_obj: Any) -> frozenset[bytes]:
    """The ActualText strings of the page's own content written as TeX source with
    its backslashes unescaped, as pdfminer reads them.

    In a PDF string a backslash before a letter other than n, r, t, b, f is no
    escape (the standard drops the backslash); pdfminer drops the letter too, so
    microtype's `(\\protect <)` reaches the device as "rotect <" and no longer looks
    like TeX source. A backslash and two letters or more here is a control word.
    """
    found: set[bytes] = set()
    streams = page_obj.contents if isinstance(page_obj.contents, list) else []
    for stream in map(resolve1, streams):
        if not isinstance(stream, PDFStream):
            continue
        for literal in _ACTUAL_LITERAL.finditer(stream.get_data()):
            if _holds_control_word(literal.group(1)):
                string = b"(" + literal.group(1) + b")"
                token = PSBaseParser(BytesIO(string)).nexttoken()[1]
                if isinstance(token, bytes):
                    found.add(token)
    return frozenset(found)


_ACTUAL_LITERAL = re.compile(rb"/ActualText\s*\(((?:\\.|[^\\()])*)\)", re.S)
_ESCAPE = re.compile(rb"\\(.)", re.S)


def _holds_control_word(literal: bytes) -> bool:
    return any(
        m.group(1).isalpha() and literal[m.end() : m.end() + 1].isalpha()
        for m in _ESCAPE.finditer(literal)
    )


def _actual_text(props: dict[str, Any], tex_source: frozenset[bytes]) -> str | None:
    raw = resolve1(props.get("ActualText"))
    if not isinstance(raw, bytes) or raw in tex_source:
        return None
    text = decode_text(raw)
    return None if _TEX_SOURCE.search(text) else text


class _Device(PDFPageAggregatorWithMarkedContent):
    """pdfplumber's layout device, leaving out what hidden groups draw and putting each
    ActualText in place of its glyphs (its first glyph takes the text and the box of
    all; an empty ActualText removes them)."""

    def __init__(self, rsrcmgr: Any, pageno: int, laparams: Any) -> None:
        super().__init__(rsrcmgr, pageno=pageno, laparams=laparams)
        self.open: list[_Mark] = []
        self.hiding = 0  # open sequences (or forms) that hide what they draw
        self.span: list[tuple[LTContainer[Any], LTChar]] | None = None  # outermost ActualText
        self.pending: _Mark | None = None  # the interpreter's finding on the next BDC

    def begin_tag(self, tag: PSLiteral, props: Any = None) -> None:
        mark, self.pending = self.pending or _Mark(), None
        super().begin_tag(tag, props)
        if mark.actual is not None and self.span is None:
            self.span = []
        else:
            mark.actual = None  # an inner ActualText: the outer one replaces it too
        self.open.append(mark)
        self.hiding += mark.hides

    def end_tag(self) -> None:
        super().end_tag()
        if not self.open:
            return
        mark = self.open.pop()
        self.hiding -= mark.hides
        if mark.actual is not None and self.span is not None:
            _replace(self.span, mark.actual)
            self.span = None

    def _drawn(self, before: int) -> None:
        """The object just drawn (if any): dropped when hidden, else noted for a span."""
        objs = self.cur_item._objs
        if len(objs) <= before:
            return
        if self.hiding:
            del objs[before:]
        elif self.span is not None and isinstance(objs[-1], LTChar):
            self.span.append((self.cur_item, objs[-1]))

    def render_char(self, *args: Any, **kwargs: Any) -> float:
        before = len(self.cur_item._objs)
        adv: float = super().render_char(*args, **kwargs)
        self._drawn(before)
        return adv

    def render_image(self, *args: Any, **kwargs: Any) -> None:
        before = len(self.cur_item._objs)
        super().render_image(*args, **kwargs)
        self._drawn(before)

    def paint_path(self, *args: Any, **kwargs: Any) -> None:
        before = len(self.cur_item._objs)
        super().paint_path(*args, **kwargs)
        self._drawn(before)


def _replace(span: list[tuple[LTContainer[Any], LTChar]], text: str) -> None:
    if not span:
        return
    rest = span if not text else span[1:]
    if text:
        first = span[0][1]
        first._text = text
        first.set_bbox(
            (
                min(c.x0 for _, c in span),
                min(c.y0 for _, c in span),
                max(c.x1 for _, c in span),
                max(c.y1 for _, c in span),
            )
        )
    for container, char in rest:
        container._objs = [o for o in container._objs if o is not char]


class _MarkingInterpreter(PDFPageInterpreter):
    """Tells the device, per marked-content sequence, what it hides or replaces."""

    hidden_groups: frozenset[int] = frozenset()
    tex_source: frozenset[bytes] = frozenset()  # ActualTexts that are TeX source (as read)

    def dup(self) -> PDFPageInterpreter:
        copy = self.__class__(self.rsrcmgr, self.device)
        copy.hidden_groups = self.hidden_groups
        copy.tex_source = self.tex_source
        return copy

    def do_BDC(self, tag: Any, props: Any) -> None:  # noqa: N802 (pdfminer's operator name)
        if isinstance(props, PSLiteral):  # a name in the resources' /Properties
            named = resolve1(self.resources.get("Properties"))
            props = named.get(props.name) if isinstance(named, dict) else None
        is_oc = isinstance(tag, PSLiteral) and tag.name == "OC"
        value = resolve1(props)
        mark = _Mark(hides=is_oc and _is_hidden(props, self.hidden_groups))
        if isinstance(value, dict):
            mark.actual = _actual_text(value, self.tex_source)
        if isinstance(self.device, _Device) and isinstance(tag, PSLiteral):
            self.device.pending = mark  # (pdfminer opens no sequence for another tag)
        super().do_BDC(tag, value)

    def do_Do(self, xobjid_arg: Any) -> None:  # noqa: N802 (pdfminer's operator name)
        xobj = resolve1(self.xobjmap.get(getattr(xobjid_arg, "name", xobjid_arg)))
        hides = _is_hidden(getattr(xobj, "attrs", {}).get("OC"), self.hidden_groups)
        device = self.device
        if isinstance(device, _Device):
            device.hiding += hides
        try:
            super().do_Do(xobjid_arg)
        finally:
            if isinstance(device, _Device):
                device.hiding -= hides


def _needs_own_layout(page: Any, hidden: frozenset[int]) -> bool:
    return names_hidden(page.page_obj.resources, hidden) or has_actual_text(page.page_obj)


def visible_text(page: Any, hidden: frozenset[int]) -> Any:
    """The pdfplumber page as a viewer shows it: without hidden optional content, and
    with ActualText in place of the glyphs it stands for. Such a page gets its layout
    from `_Device` (set where pdfplumber keeps the layout it made itself, before it
    made one); other pages are left to pdfplumber as they are."""
    if hasattr(page, "_layout") or not _needs_own_layout(page, hidden):
        return page
    rsrcmgr = page.pdf.rsrcmgr
    device = _Device(rsrcmgr, int(page.page_number), page.pdf.laparams)
    interpreter = _MarkingInterpreter(rsrcmgr, device)
    interpreter.hidden_groups = hidden
    interpreter.tex_source = tex_source_strings(page.page_obj)
    interpreter.process_page(page.page_obj)
    page._layout = device.get_result()
    return page
