"""Scoring of one extraction on one file's facts, and the comparison with Docling's output.

Facts are checked on what retrieval sees, as for PDFs (bench/realdocs/metrics.py,
whose checks are reused unchanged):

- table: one chunk holds the column header, and one line of it holds the row
  label followed by the cell (the row reads alone, with its header). Unlike the
  PDF check, the cell may be any distance after the label on its line: a
  spreadsheet row is one line however wide (a CSV export with 22 columns, an
  order list with long item texts), where a PDF line is a page wide; "strict"
  also wants the cell in a GFM table row under the column whose header names it.
  A fact may list ``alternatives`` for the cell (a number format that names no
  locale: "1,234.50 €" or "1.234,50 €"); any one of them passes;
- prose: the snippet occurs in the document's text (whitespace collapsed);
- heading: a chunk holding the snippet names the heading in its heading path or
  in its text before the snippet (a sheet name, slide title, chapter title, or
  the "Slide N" anchor of a slide without a title), or the snippet is a whole
  Markdown heading line of a chunk and names the heading (a title-only slide
  packed into one chunk with other slides, whose path names neither);
- absent (generated files): the snippet does not occur in the text (hidden
  rows, columns, sheets and slides; the navigation document; formulas);
- order (generated files): ``first`` occurs before ``then`` (spine order);
- refused (generated ZIP bombs): the extraction failed with a typed extraction
  error, in under 5 s and under 300 MiB peak RSS (the issue's bound);
- bounded (the 100,000-row sheet, the 200 MB CSV): read, or refused with a typed
  error, within a Lambda's bounds (15 minutes, 2 GiB peak RSS).

The comparison with Docling uses its Markdown output for the same file (its
repository's ``groundtruth``): the distinct non-empty table cells and the
headings of each side, compared after the same normalisation (``norm``), as
sets: what Docling has that chunkwise lacks, and the reverse.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bench.realdocs.metrics import (
    View,
    heading_fact,
    norm,
    prose_fact,
    table_fact_strict,
    tables_in,
)

KINDS = ("table", "prose", "heading", "absent", "order", "refused", "bounded")
REFUSE_SECONDS = 5.0
REFUSE_MIB = 300.0
LAMBDA_SECONDS = 900.0
LAMBDA_MIB = 2048.0
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_EXAMPLES = 8


@dataclass(frozen=True)
class Outcome:
    """What one extraction did: its status and, when it worked, its text and chunks."""

    status: str  # ok, unsupported, error, crash
    text: str = ""
    views: tuple[View, ...] = ()
    seconds: float = 0.0
    rss_mib: float = 0.0


def table_fact(views: Sequence[View], cell: str, column: str, row: str) -> bool:
    cell_n, column_n, row_n = norm(cell), norm(column), norm(row)
    for view in views:
        if column_n not in norm(view.text):
            continue
        for line in view.text.split("\n"):
            flat = norm(line)
            at = flat.find(row_n)
            if at >= 0 and cell_n in flat[at + len(row_n) :]:
                return True
    return False


def heading_line_fact(views: Sequence[View], snippet: str, heading: str) -> bool:
    """The snippet is itself a Markdown heading line of a chunk, and that line names the
    heading: a slide title that is all its slide holds, in a chunk packed with other slides
    (whose heading path then names neither). Only a whole heading line counts: a snippet
    that is part of a heading, or a paragraph that repeats a heading's words, does not."""
    snippet_n, heading_n = norm(snippet), norm(heading).casefold()
    for view in views:
        for line in view.text.split("\n"):
            match = _HEADING.match(line.strip())
            if match is None:
                continue
            title = norm(match.group(1))
            if title == snippet_n and heading_n in title.casefold():
                return True
    return False


def cells_of(fact: Mapping[str, Any]) -> list[str]:
    return [str(fact["cell"]), *(str(c) for c in fact.get("alternatives", ()))]


def check(fact: Mapping[str, Any], outcome: Outcome) -> bool:
    """Whether the fact holds for this outcome (refused and bounded judge a failed one)."""
    kind = fact["kind"]
    if kind == "bounded":
        return (
            outcome.status in ("ok", "error")
            and outcome.seconds < LAMBDA_SECONDS
            and outcome.rss_mib < LAMBDA_MIB
        )
    if kind == "refused":
        return (
            outcome.status == "error"
            and outcome.seconds < REFUSE_SECONDS
            and outcome.rss_mib < REFUSE_MIB
        )
    if outcome.status != "ok":
        return False
    views = outcome.views
    if kind == "table":
        return any(table_fact(views, cell, fact["column"], fact["row"]) for cell in cells_of(fact))
    if kind == "prose":
        return prose_fact(outcome.text, fact["snippet"])
    if kind == "heading":
        return heading_fact(views, fact["snippet"], fact["heading"]) or heading_line_fact(
            views, fact["snippet"], fact["heading"]
        )
    if kind == "absent":
        return norm(fact["snippet"]) not in norm(outcome.text)
    if kind == "order":
        flat = norm(outcome.text)
        first, then = flat.find(norm(fact["first"])), flat.find(norm(fact["then"]))
        return 0 <= first < then
    raise ValueError(f"unknown fact kind {kind!r}")


def check_strict(fact: Mapping[str, Any], outcome: Outcome) -> bool:
    if outcome.status != "ok":
        return False
    return any(
        table_fact_strict(outcome.views, cell, fact["column"], fact["row"])
        for cell in cells_of(fact)
    )


def describe(fact: Mapping[str, Any]) -> str:
    where = f"{fact.get('page') or '-'} {fact['kind']}"
    kind = fact["kind"]
    if kind == "table":
        return f"{where}: {fact['row']} / {fact['column']} = {fact['cell']}"
    if kind == "heading":
        return f"{where}: {fact['heading']} <- {fact['snippet'][:40]}"
    if kind == "order":
        return f"{where}: {fact['first'][:30]} before {fact['then'][:30]}"
    if kind in ("refused", "bounded"):
        return f"{where}: {fact.get('note', '')[:60]}"
    return f"{where}: {fact['snippet'][:60]!r}"


@dataclass(frozen=True)
class Structure:
    """The table cells and headings of one Markdown-like text, normalised."""

    cells: frozenset[str]
    headings: frozenset[str]


def structure(markdown: str) -> Structure:
    cells: set[str] = set()
    for table in tables_in(markdown):
        for row in (table.header, *table.rows):
            cells.update(c for c in row if c)
    headings = {
        norm(m.group(1)) for line in markdown.split("\n") if (m := _HEADING.match(line.strip()))
    }
    return Structure(frozenset(cells), frozenset(h for h in headings if h))


@dataclass(frozen=True)
class Comparison:
    """Docling's output against chunkwise's canonical text for one file."""

    docling_cells: int
    cells_missing: tuple[str, ...]  # Docling has them, chunkwise lacks them
    cells_extra: tuple[str, ...]  # chunkwise has them, Docling lacks them
    docling_headings: int
    headings_missing: tuple[str, ...]
    headings_extra: tuple[str, ...]

    def summary(self) -> dict[str, Any]:
        return {
            "docling_cells": self.docling_cells,
            "cells_missing": len(self.cells_missing),
            "cells_extra": len(self.cells_extra),
            "docling_headings": self.docling_headings,
            "headings_missing": len(self.headings_missing),
            "headings_extra": len(self.headings_extra),
            "examples": {
                "cells_missing": list(self.cells_missing[:_EXAMPLES]),
                "cells_extra": list(self.cells_extra[:_EXAMPLES]),
                "headings_missing": list(self.headings_missing[:_EXAMPLES]),
                "headings_extra": list(self.headings_extra[:_EXAMPLES]),
            },
        }


def _occurs(value: str, flat: str) -> bool:
    """`value` in `flat` as whole words ("k" is not in "Ducks")."""
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", flat) is not None


def compare(docling_markdown: str, canonical_text: str) -> Comparison:
    """A cell counts as present on the other side when it is one of its table cells or,
    failing that, occurs in its text as whole words (a table read as prose still has the
    value); a heading when it is one of its headings."""
    theirs, ours = structure(docling_markdown), structure(canonical_text)
    our_flat, their_flat = norm(canonical_text), norm(docling_markdown)
    missing = sorted(c for c in theirs.cells - ours.cells if not _occurs(c, our_flat))
    extra = sorted(c for c in ours.cells - theirs.cells if not _occurs(c, their_flat))
    return Comparison(
        docling_cells=len(theirs.cells),
        cells_missing=tuple(missing),
        cells_extra=tuple(extra),
        docling_headings=len(theirs.headings),
        headings_missing=tuple(sorted(theirs.headings - ours.headings)),
        headings_extra=tuple(sorted(ours.headings - theirs.headings)),
    )
