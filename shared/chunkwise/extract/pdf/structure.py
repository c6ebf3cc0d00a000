"""The structure tree of a tagged PDF: headings and page furniture as the writer tagged them.

A tagged PDF (Word, LibreOffice with "tagged PDF", InDesign, Acrobat) says what each
run of glyphs is. Its marked-content sequences carry an MCID, the structure tree
(`/StructTreeRoot`) hangs every MCID under an element (H1-H6, P, L/LI, Table/TH/TD),
and page furniture (running headers, page numbers) is marked `/Artifact`, outside
the tree. The layout rules guess the same from sizes and positions, and miss what
does not stand out: a heading set at the body's size, a page number on one page.

Tags are only as good as the writer, so a document's tags are used only when they
are sound (`Verdict`): they cover most of its text (a tree that reaches a tenth of
the page says nothing about the rest), it tags headings at all (a writer that tags
every block P says nothing about headings), and the tree's order agrees with the
page's reading order (a tree in another order was not made from this page). Else the
layout decides, as for an untagged PDF; the extraction report says which
(`ExtractionReport.structure`).

Used tags decide, line by line (`TaggedRules`): a line tagged H<n> is a heading of
level n (below the page anchors: H1 is `###`), a line tagged as a paragraph, list or
cell is not a heading, an Artifact line is page furniture and dropped; a line the
tree does not reach is left to the layout rules. A line's role is the one most of
the glyphs inside its box have (pdfplumber gives each glyph its MCID), so it does not
matter which reader (PDFium or pdfplumber) made the line. Tables keep the layout
path's finders.

A PDF without a structure tree costs one dictionary look-up and is read as before.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pdfminer.pdftypes import PDFObjRef, resolve1
from pdfminer.psparser import PSLiteral

from .blocks import HeadingRules
from .lines import Line

# Share of a document's text (outside artifacts) the tree must reach.
MIN_COVERAGE = 0.9
# Share of consecutive tagged lines (in the page's reading order) whose elements come
# in the tree's order.
MIN_ORDER = 0.8
# Share of the glyphs in a line's box that must agree for the line to take a role.
_MAJORITY = 0.6
_HEADING = re.compile(r"^H([1-6])$")
# Block elements by what they make of their lines. Inline ones (Span, Link, Quote,
# Code...) take the kind of the block they sit in.
_KINDS = {
    "P": "para",
    "Caption": "para",
    "BlockQuote": "para",
    "Note": "para",
    "TOCI": "para",
    "Index": "para",
    "Formula": "para",
    "L": "item",
    "LI": "item",
    "Lbl": "item",
    "LBody": "item",
    "Table": "cell",
    "TR": "cell",
    "TH": "cell",
    "TD": "cell",
    "Artifact": "artifact",  # PDF 2.0 allows artifacts in the tree
}
# Once inside one of these, an inner P stays what the outer element says (a cell's
# paragraph is a cell, a heading's span a heading).
_STICKY = ("heading", "item", "cell", "artifact")


@dataclass(frozen=True)
class Role:
    kind: str  # heading, para, item, cell, artifact
    level: int = 0  # 1-6 for headings


ARTIFACT = Role("artifact")


@dataclass
class Tree:
    """What the structure tree says of each marked-content sequence."""

    roles: dict[tuple[int, int], tuple[Role, int]]  # (page, MCID) -> role, element's order
    headings: int  # heading elements that reach content
    problem: str = ""  # why the tree could not be read (then it says nothing)


def _kind(tag: str) -> Role | None:
    heading = _HEADING.match(tag)
    if heading:
        return Role("heading", int(heading.group(1)))
    if tag == "Title":
        return Role("heading", 1)
    kind = _KINDS.get(tag)
    return Role(kind) if kind else None


def read_tree(pdf: Any) -> Tree | None:
    """The document's structure tree, or None when it has none. A tree that cannot be
    read is empty, with the reason, and the layout reads that document.

    Read here rather than with pdfplumber's `PDFStructTree`, which failed on the
    trees of the dev PDFs' LibreOffice 7.4 exports (KeyError: links' object
    references) and InDesign's (attribute objects by reference)."""
    catalog = getattr(pdf.doc, "catalog", {})
    if "StructTreeRoot" not in catalog:
        return None
    try:
        pages = {page.page_obj.pageid: page.page_number for page in pdf.pages}
        return _walk(resolve1(catalog["StructTreeRoot"]), pages)
    except Exception as exc:  # any broken tree: the layout reads the document
        return Tree({}, 0, f"{type(exc).__name__}")


_MAX_NODES = 2_000_000  # a hostile tree costs no more than a large real one


def _name(value: Any) -> str:
    value = resolve1(value)
    return str(value.name) if isinstance(value, PSLiteral) else ""


def _tag(obj: dict[str, Any], role_map: dict[str, Any]) -> str:
    tag = _name(obj.get("S"))
    for _ in range(4):  # a role map may map to another custom type
        if tag not in role_map:
            break
        tag = _name(role_map[tag])
    return tag


def _page_of(obj: dict[str, Any], pages: dict[int, int], page: int | None) -> int | None:
    ref = obj.get("Pg")
    return pages.get(ref.objid, page) if isinstance(ref, PDFObjRef) else page


def _walk(root: Any, pages: dict[int, int]) -> Tree:
    role_map = resolve1(root.get("RoleMap")) if isinstance(root, dict) else None
    role_map = role_map if isinstance(role_map, dict) else {}
    roles: dict[tuple[int, int], tuple[Role, int]] = {}
    headings = order = nodes = 0
    seen: set[int] = set()
    # (node, role of the element it is in, element's order, page, is the element a heading)
    todo: list[tuple[Any, Role | None, int, int | None]] = [(root.get("K"), None, 0, None)]
    while todo:
        node, outer, current, page = todo.pop()
        nodes += 1
        if nodes > _MAX_NODES:
            raise ValueError("structure tree too large")
        if isinstance(node, PDFObjRef):
            if node.objid in seen:
                continue
            seen.add(node.objid)
        value = resolve1(node)
        if isinstance(value, list):
            todo.extend((child, outer, current, page) for child in reversed(value))
        elif isinstance(value, int) and not isinstance(value, bool):
            if outer is not None and page is not None:
                roles[(page, value)] = (outer, current)
        elif isinstance(value, dict) and "MCID" in value:  # a marked-content reference
            mcid, at = resolve1(value["MCID"]), _page_of(value, pages, page)
            if outer is not None and at is not None and isinstance(mcid, int):
                roles[(at, mcid)] = (outer, current)
        elif isinstance(value, dict) and "S" in value:  # an element (OBJRs have no /S)
            own = _kind(_tag(value, role_map))
            role = outer if outer is not None and outer.kind in _STICKY else (own or outer)
            if own is not None:
                order += 1
                current = order
                headings += own.kind == "heading"
            todo.append((value.get("K"), role, current, _page_of(value, pages, page)))
    return Tree(roles, headings)


@dataclass
class Counts:
    """The glyphs of the pages read so far, for the verdict."""

    tagged: int = 0
    untagged: int = 0
    artifact: int = 0
    in_order: int = 0  # consecutive tagged lines whose elements keep the tree's order
    pairs: int = 0
    headings: int = 0  # lines tagged as headings
    # heading elements by tag level: (page, element's order) of each
    elements: dict[int, set[tuple[int, int]]] = field(default_factory=dict)

    def levels(self) -> dict[int, int]:
        """Markdown level of each tag level, by the scheme of the layout's size ranks:
        a top level used once, on page 1, is the document's title (`#`); the other
        levels, in their order, sit below the page anchors (`###`, `####`, ...)."""
        used = sorted(self.elements)
        out: dict[int, int] = {}
        if used and len(self.elements[used[0]]) == 1 and min(self.elements[used[0]])[0] == 1:
            out[used.pop(0)] = 1
        out.update({level: min(6, 3 + rank) for rank, level in enumerate(used)})
        return out

    @property
    def coverage(self) -> float:
        return self.tagged / max(self.tagged + self.untagged, 1)

    @property
    def order(self) -> float:
        return self.in_order / self.pairs if self.pairs else 1.0


@dataclass
class PageRoles:
    """Each line's role (by `id`), for the lines the tree reaches."""

    roles: dict[int, Role] = field(default_factory=dict)


def _marks(chars: list[dict[str, Any]], tree: Tree, page: int, counts: Counts) -> Iterator[Any]:
    for c in chars:
        if not str(c.get("text", "")).strip():
            continue
        found = tree.roles.get((page, c["mcid"])) if c.get("mcid") is not None else None
        if found is None and c.get("tag") == "Artifact":
            found = (ARTIFACT, -1)
        if found is None:
            counts.untagged += 1
        elif found[0] == ARTIFACT:
            counts.artifact += 1
        else:
            counts.tagged += 1
        cx = (float(c["x0"]) + float(c["x1"])) / 2
        cy = (float(c["top"]) + float(c["bottom"])) / 2
        yield cy, cx, found


def tag_lines(
    lines: list[Line], chars: list[dict[str, Any]], tree: Tree, page: int, counts: Counts
) -> dict[int, Role]:
    """The role of each line most of whose glyphs (by their centres in its box) the
    tree gives one role; the page's glyphs and order counted into `counts`."""
    marks = sorted(_marks(chars, tree, page, counts), key=lambda m: m[0])
    ys = [m[0] for m in marks]
    out: dict[int, Role] = {}
    last_order = -1
    for ln in lines:
        inside = marks[bisect_left(ys, ln.top - 0.5) : bisect_right(ys, ln.bottom + 0.5)]
        votes: Counter[Role | None] = Counter()
        orders: list[int] = []
        for _y, x, found in inside:
            if ln.x0 - 1.0 <= x <= ln.x1 + 1.0:
                votes[found[0] if found else None] += 1
                if found and found[1] >= 0:
                    orders.append(found[1])
        if not votes:
            continue
        role, n = votes.most_common(1)[0]
        if role is None or n < _MAJORITY * sum(votes.values()):
            continue
        out[id(ln)] = role
        if orders and role.kind == "heading":
            counts.headings += 1
            counts.elements.setdefault(role.level, set()).add((page, min(orders)))
        if orders and role != ARTIFACT:
            first = min(orders)
            if last_order >= 0:
                counts.pairs += 1
                counts.in_order += first >= last_order
            last_order = first
    return out


@dataclass(frozen=True)
class Verdict:
    trusted: bool
    text: str  # for the extraction report


def verdict(tree: Tree | None, counts: Counts) -> Verdict:
    """Are the document's tags sound enough to decide its headings and furniture?"""
    if tree is None:
        return Verdict(False, "layout: no structure tree")
    if tree.problem:
        return Verdict(False, f"layout: structure tree unreadable ({tree.problem})")
    facts = (
        f"{counts.coverage:.0%} of the text tagged, {counts.headings} heading lines, "
        f"reading order {counts.order:.0%}"
    )
    if counts.coverage < MIN_COVERAGE:
        return Verdict(False, f"layout: tags not sound ({facts})")
    if counts.headings == 0:
        return Verdict(False, f"layout: no heading tags ({facts})")
    if counts.order < MIN_ORDER:
        return Verdict(False, f"layout: tag order is not the page's ({facts})")
    return Verdict(True, f"tags ({facts})")


@dataclass
class TaggedRules(HeadingRules):
    """The layout's heading rules, with the tags first: a line tagged H<n> is a heading
    at the Markdown level `levels` gives n (`Counts.levels`), one tagged as other text
    is not a heading."""

    tags: dict[int, Role] = field(default_factory=dict)
    levels: dict[int, int] = field(default_factory=dict)

    @classmethod
    def over(
        cls, rules: HeadingRules, tags: dict[int, Role], levels: dict[int, int]
    ) -> TaggedRules:
        return cls(rules.body, rules.heading_fonts, rules.depth_sizes, rules.title, tags, levels)

    def level(self, ln: Line, page: int) -> int:
        role = self.tags.get(id(ln))
        if role is None:
            return super().level(ln, page)
        if role.kind != "heading":
            return 0
        return self.levels.get(role.level, min(6, role.level + 2))

    def continues_heading(self, ln: Line) -> bool | None:
        """Tagged: a heading's next line only if tagged a heading too; untagged: None."""
        role = self.tags.get(id(ln))
        return None if role is None else role.kind == "heading"


def is_artifact(tags: dict[int, Role], ln: Line) -> bool:
    return tags.get(id(ln)) == ARTIFACT
