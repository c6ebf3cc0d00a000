"""Navigation and layout tables in real HTML: what becomes a table, what a chunk.

Two real HTML manuals from pinned Debian packages (the versions of
``bench.realtext.build``), fetched with ``apt-get download`` and unpacked into
``.local/htmllayout/`` (never committed):

- ``debian-reference-en``: DocBook XSL output. Every page has a navigation
  table above (``div.navheader``) and below (``div.navfooter``) the content,
  and every tip/note/caution/warning is a layout table (``div.tip`` ...: an
  icon cell, a "Tip" cell and the text below).
- ``libreoffice-help-de``: the LibreOffice 7.4 help, ``header``/``aside``/
  ``footer`` around the page, data tables with ``th`` header cells.

The source tables are put in classes from the generator's own markup, not
from chunkwise's rules: ``nav`` (inside a navigation region: ``nav``,
``header``, ``footer``, ``aside``, an ARIA landmark role, or DocBook's
``navheader``/``navfooter``), ``layout`` (DocBook admonitions) and ``data``
(every other table). Each table of the canonical text is matched to the source
table sharing the most cell texts. The report counts, per corpus, the tables
and table chunks of each class, the chunks with a line or table cell that
is a text (12+ characters) found only in navigation regions of the page, and
how many of LibreOffice help's hidden default platform variants (``switch``
elements, 8+ characters) are in the canonical text.

    python -m bench.html_layout [--out bench/results/html_layout.md]
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from lxml import html as lhtml

from bench.debian import fetch_pinned
from bench.realtext.build import PACKAGES
from chunkwise import chunk_text
from chunkwise.chunking.rows import split_cells
from chunkwise.extract import ExtractionError, extract

CORPORA = {
    "debian-reference-en": ("usr/share/debian-reference", "*.en.html", "en"),
    "libreoffice-help-de": ("usr/share/libreoffice/help/de", "**/*.html", "de"),
}
_WS = re.compile(r"\s+")
_NAV_TAGS = {"nav", "header", "footer", "aside"}
_NAV_ROLES = {"navigation", "banner", "contentinfo", "complementary"}
_NAV_CLASSES = {"navheader", "navfooter"}
_ADMONITIONS = {"tip", "note", "caution", "warning", "important"}


def download(workdir: Path) -> Path:
    return fetch_pinned({name: PACKAGES[name] for name in CORPORA}, workdir)


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


def _classes(el: lhtml.HtmlElement) -> set[str]:
    return set((el.get("class") or "").split())


def _in_nav_region(el: lhtml.HtmlElement) -> bool:
    for anc in [el, *el.iterancestors()]:
        tag = anc.tag if isinstance(anc.tag, str) else ""
        if tag in _NAV_TAGS or (anc.get("role") or "").lower() in _NAV_ROLES:
            return True
        if _classes(anc) & _NAV_CLASSES:
            return True
    return False


def _table_class(table: lhtml.HtmlElement) -> str:
    if _in_nav_region(table):
        return "nav"
    if any(_classes(a) & _ADMONITIONS for a in table.iterancestors()):
        return "layout"
    return "data"


@dataclass
class SourcePage:
    tables: list[tuple[str, set[str]]]  # (class, cell texts)
    nav_only_texts: set[str]
    default_variants: list[str]  # texts of LibreOffice help's default platform variants


def _default_variants(root: lhtml.HtmlElement) -> list[str]:
    """Hidden `default...` variants of `switch`/`switchinline` elements (8+ characters)."""
    out = []
    for el in root.iter("span", "div"):
        parent = el.getparent()
        if parent is None or el.get("hidden") is None:
            continue
        if (el.get("id") or "").startswith("default") and _classes(parent) & {
            "switch",
            "switchinline",
        }:
            text = _norm(el.text_content())
            if len(text) >= 8:
                out.append(text)
    return out


def read_source(path: Path) -> SourcePage:
    root = lhtml.parse(str(path)).getroot()
    tables = []
    for table in root.iter("table"):
        cells = {_norm(c.text_content()) for c in table.iter("td", "th")}
        tables.append((_table_class(table), {c for c in cells if c}))
    nav_texts: set[str] = set()
    other_texts: set[str] = set()
    body = root.find("body")
    for el in (body if body is not None else root).iter():
        if not isinstance(el.tag, str) or el.tag in ("script", "style"):
            continue
        for text in (el.text, el.tail):
            value = _norm(text or "")
            if len(value) < 12:
                continue
            # a tail belongs to the parent's region
            owner = el if text is el.text else el.getparent()
            (nav_texts if owner is not None and _in_nav_region(owner) else other_texts).add(value)
    return SourcePage(tables, nav_texts - other_texts, _default_variants(root))


def _output_table_class(cells: set[str], source: SourcePage) -> str:
    best, score = "unmatched", 0
    for kind, source_cells in source.tables:
        overlap = len(cells & source_cells)
        if overlap > score:
            best, score = kind, overlap
    return best


@dataclass
class Counts:
    files: int = 0
    chunks: int = 0
    source_tables: Counter[str] = field(default_factory=Counter)
    tables: Counter[str] = field(default_factory=Counter)
    table_chunks: Counter[str] = field(default_factory=Counter)
    nav_text_chunks: int = 0
    default_variants: int = 0
    default_variants_kept: int = 0


def measure(path: Path, lang: str, counts: Counts) -> None:
    try:
        result = extract(path.read_bytes(), filename=path.name)
    except ExtractionError:
        return
    source = read_source(path)
    counts.files += 1
    counts.source_tables.update(kind for kind, _ in source.tables)
    spans = []
    for table in result.report.tables:
        lines = result.text[table.start : table.end].split("\n")
        cells = {c for line in lines if "---" not in line for c in split_cells(line) if c}
        kind = _output_table_class(cells, source)
        counts.tables[kind] += 1
        spans.append((table.start, table.end, kind))
    flat = _norm(result.text)
    counts.default_variants += len(source.default_variants)
    counts.default_variants_kept += sum(1 for t in source.default_variants if t in flat)
    chunks = chunk_text(result.text, lang=lang)
    counts.chunks += len(chunks)
    for c in chunks:
        if c.kind == "table":
            kinds = [k for s, e, k in spans if s < c.end and c.start < e]
            counts.table_chunks[kinds[0] if kinds else "unmatched"] += 1
        if _units(c.body) & source.nav_only_texts:
            counts.nav_text_chunks += 1


def _units(body: str) -> set[str]:
    """Lines and table cells of a chunk: what a navigation text would show up as."""
    units = set()
    for line in body.split("\n"):
        units.add(_norm(line.lstrip("#-*0123456789. ")))
        if "|" in line:
            units.update(_norm(c) for c in split_cells(line))
    return units


def report(results: dict[str, Counts]) -> str:
    kinds = ("data", "nav", "layout", "unmatched")
    lines = [
        "| corpus | pages | chunks | source tables data/nav/layout | tables out "
        + "/".join(kinds)
        + " | table chunks "
        + "/".join(kinds)
        + " | chunks with nav-only text | default variants kept |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, c in results.items():
        src = "/".join(str(c.source_tables[k]) for k in kinds[:3])
        out = "/".join(str(c.tables[k]) for k in kinds)
        tch = "/".join(str(c.table_chunks[k]) for k in kinds)
        variants = f"{c.default_variants_kept}/{c.default_variants}"
        lines.append(
            f"| {name} | {c.files} | {c.chunks} | {src} | {out} | {tch} | {c.nav_text_chunks}"
            f" | {variants} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", default=".local/htmllayout")
    ap.add_argument("--out", help="also write the table to this Markdown file")
    args = ap.parse_args(argv)
    root = download(Path(args.workdir))
    results: dict[str, Counts] = {}
    for name, (folder, pattern, lang) in CORPORA.items():
        counts = Counts()
        for path in sorted((root / folder).glob(pattern)):
            if not path.is_symlink():
                measure(path, lang, counts)
        results[name] = counts
    table = report(results)
    print(table)
    if args.out:
        Path(args.out).write_text(table + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
