"""Real-document benchmark: chunkwise vs a plain pypdf + 1,000-character baseline.

    python -m bench.realdocs [--corpus realdocs|wpdocs] [--set dev|heldout]
                             [--tools chunkwise,baseline,pymupdf4llm]
                             [--docs NAME,...] [--write] [--git OWNER/NAME=GIT_DIR ...]

Two corpora, measured alike (`CORPORA`): `realdocs`, documents from pinned
Debian packages (bench/realdocs/fetch.py, run first if they are missing), and
`wpdocs`, word-processor and layout-tool PDFs from pinned git commits and
LibreOffice exports (bench/wpdocs/fetch.py; its git sources need `--git` with a
local clone of each repository the first time). Labels are JSONL under
bench/<corpus>/labels/: `dev.jsonl` is what extraction is tuned on,
`heldout.jsonl` (other pages of the same documents, and documents of their
own) is evaluated only to report. realdocs sums its rows per language, wpdocs
per producer family (word processor, layout tool, spreadsheet, LibreOffice).

Per document and tool: table (co-location and strict structure, see
metrics.py), prose and heading fact pass rates, word
integrity against `pdftotext -raw` (as #11 defines it, and beside it against
the reference with pdftotext's letters for TeX's math symbols corrected, with
the number of reference words that correction changed: metrics.py,
glyphs.py), glued tokens, extraction time and peak
RSS (each extraction in a fresh process). chunkwise's text is chunked with
chunkwise's chunker; the baseline's with fixed 1,000-character windows;
pymupdf4llm's Markdown (a comparison only, AGPL, in its own venv under
.local/pymupdf-venv, made on first use) with chunkwise's chunker, so that
extraction is compared. Needs `pdftotext` (Debian: poppler-utils).
`--write` stores bench/results/<corpus>[-heldout].md and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from bench.wpdocs import fetch as wpdocs_fetch
from chunkwise import chunk_text
from chunkwise.evaluation.baselines import fixed_size_spans

from . import fetch
from .actualtext import tex_source_pages
from .glyphs import symbol_pages
from .metrics import (
    Reference,
    View,
    corrected_reference_text,
    fold_ligatures,
    glued_tokens,
    heading_fact,
    prose_fact,
    reference_words,
    table_fact,
    table_fact_strict,
    without_tex_source,
    word_integrity,
    words_corrected,
)

ROOT = fetch.ROOT
LABELS = Path(__file__).resolve().parent / "labels"
RESULTS = ROOT / "bench" / "results"
PYMUPDF_PYTHON = fetch.PYMUPDF_VENV / "bin" / "python"
CHILD = Path(__file__).resolve().parent / "child.py"
TOOLS = ("chunkwise", "baseline", "pymupdf4llm")
KINDS = ("table", "prose", "heading")


@dataclass
class Score:
    doc: str
    tool: str
    lang: str
    pages: int = 0
    seconds: float = 0.0
    rss_mib: float = 0.0
    passed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    total: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    strict_tables: int | None = None  # table facts passing table_fact_strict (None: not run)
    integrity: float | None = None  # against pdftotext -raw, as #11 defines it
    integrity_corrected: float | None = None  # against the symbol-corrected reference
    words_corrected: int | None = None  # reference words that correction changed
    glued: int | None = None
    failed: list[str] = field(default_factory=list)
    error: str = ""
    group: str = ""  # the summary row it is summed in ("" = its language)


@dataclass(frozen=True)
class Corpus:
    """A set of labelled documents and how to get them."""

    name: str  # labels in bench/<name>/labels, results bench/results/<name>[-heldout]
    title: str
    documents: tuple[fetch.Document, ...]
    resolve: Callable[[fetch.Document], Path]
    usable: Callable[[fetch.Document], bool]  # there, and the pinned bytes
    fetch: Callable[[dict[str, Path]], bool]  # fetch what is missing; False: could not
    group: Callable[[fetch.Document], str]  # the summary row of a document
    group_title: str

    @property
    def labels(self) -> Path:
        return ROOT / "bench" / self.name / "labels"


def _fetch_realdocs(clones: dict[str, Path]) -> bool:
    del clones  # Debian packages only
    missing = [d for d in fetch.DOCUMENTS if not fetch.resolve(d).exists()]
    return not missing or fetch.main() == 0


_WP_SOURCES = {s.name: s for s in wpdocs_fetch.SOURCES}


def _fetch_wpdocs(clones: dict[str, Path]) -> bool:
    states = wpdocs_fetch.fetch(clones)
    for name, found in states.items():
        if found != "ok":
            print(f"[wpdocs] {found} (left out): {name}")
    return any(found == "ok" for found in states.values())


REALDOCS = Corpus(
    "realdocs",
    "Real documents",
    fetch.DOCUMENTS,
    fetch.resolve,
    lambda d: fetch.resolve(d).exists(),
    _fetch_realdocs,
    lambda d: d.lang,
    "language",
)
WPDOCS = Corpus(
    "wpdocs",
    "Word-processor and layout-tool PDFs",
    tuple(wpdocs_fetch.document(s) for s in wpdocs_fetch.SOURCES),
    lambda d: wpdocs_fetch.resolve(_WP_SOURCES[d.name]),
    lambda d: wpdocs_fetch.state(_WP_SOURCES[d.name]) == "ok",
    _fetch_wpdocs,
    lambda d: _WP_SOURCES[d.name].family,
    "producer family",
)
CORPORA = {c.name: c for c in (REALDOCS, WPDOCS)}


def load_labels(name: str, corpus: Corpus = REALDOCS) -> dict[str, list[dict[str, Any]]]:
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with (corpus.labels / f"{name}.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                fact = json.loads(line)
                by_doc[fact["doc"]].append(fact)
    return by_doc


def run_child(tool: str, path: Path, source: Path) -> dict[str, Any]:
    python = str(PYMUPDF_PYTHON) if tool == "pymupdf4llm" else sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        env = dict(os.environ, PYTHONPATH=str(source))
        proc = subprocess.run(
            [python, str(CHILD), tool, str(path), str(out)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed")
        record: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return record


def views_for(tool: str, text: str, lang: str) -> list[View]:
    if tool == "baseline":
        return [View(text[s:e]) for s, e in fixed_size_spans(text, 1000)]
    return [View(c.text, tuple(c.heading_path)) for c in chunk_text(text, lang)]


def pdftotext_raw(path: Path) -> str:
    proc = subprocess.run(
        ["pdftotext", "-raw", "-enc", "UTF-8", str(path), "-"],
        capture_output=True,
        check=True,
    )
    return proc.stdout.decode("utf-8", "replace")


@lru_cache(maxsize=4)
def references(path: Path) -> tuple[Reference, Reference]:
    """pdftotext's reference as it is, and with its letters for TeX's math symbols and its
    ActualTexts of TeX source corrected (once per document: every tool is scored against
    the same two)."""
    raw = pdftotext_raw(path)
    plain = without_tex_source(raw, tex_source_pages(path))
    corrected = fold_ligatures(corrected_reference_text(plain, symbol_pages(path)))
    return reference_words(raw), reference_words(corrected)


def check(fact: dict[str, Any], text: str, views: list[View]) -> bool:
    kind = fact["kind"]
    if kind == "table":
        return table_fact(views, fact["cell"], fact["column"], fact["row"])
    if kind == "prose":
        return prose_fact(text, fact["snippet"])
    return heading_fact(views, fact["snippet"], fact["heading"])


def describe(fact: dict[str, Any]) -> str:
    where = f"p{fact.get('page', '?')} {fact['kind']}"
    if fact["kind"] == "table":
        return f"{where}: {fact['row']} / {fact['column']} = {fact['cell']}"
    if fact["kind"] == "heading":
        return f"{where}: {fact['heading']} <- {fact['snippet'][:40]}"
    return f"{where}: {fact['snippet'][:60]}"


def score(
    doc: fetch.Document,
    tool: str,
    facts: list[dict[str, Any]],
    source: Path,
    corpus: Corpus = REALDOCS,
) -> Score:
    result = Score(doc.name, tool, doc.lang)
    result.group = corpus.group(doc)
    path = corpus.resolve(doc)
    try:
        record = run_child(tool, path, source)
    except RuntimeError as exc:
        return failed_extraction(result, facts, path, str(exc))
    text = str(record["text"])
    result.pages, result.seconds, result.rss_mib = (
        int(record["pages"]),
        float(record["seconds"]),
        float(record["rss_mib"]),
    )
    views = views_for(tool, text, doc.lang)
    for fact in facts:
        result.total[fact["kind"]] += 1
        if check(fact, text, views):
            result.passed[fact["kind"]] += 1
        else:
            result.failed.append(describe(fact))
        if fact["kind"] == "table":
            result.strict_tables = result.strict_tables or 0
            if table_fact_strict(views, fact["cell"], fact["column"], fact["row"]):
                result.strict_tables += 1
            else:
                result.failed.append("strict " + describe(fact))
    if path.suffix.lower() == ".pdf":
        reference, corrected = references(path)
        result.integrity = word_integrity(reference, text)
        result.integrity_corrected = word_integrity(corrected, fold_ligatures(text))
        result.words_corrected = words_corrected(reference, corrected)
        result.glued = len(glued_tokens(reference, text))
    return result


def failed_extraction(
    result: Score, facts: list[dict[str, Any]], path: Path, error: str
) -> Score:
    """A document the tool could not extract: every fact failed, no word came out
    (counted in the totals like any other row, not left out of them)."""
    result.error = error
    for fact in facts:
        result.total[fact["kind"]] += 1
        result.failed.append("extraction failed: " + describe(fact))
    if result.total["table"]:
        result.strict_tables = 0
    if path.suffix.lower() == ".pdf":
        result.integrity = result.integrity_corrected = 0.0
    return result


def _rate(passed: int, total: int) -> str:
    return f"{100 * passed / total:.0f} % ({passed}/{total})" if total else "-"


def _percent(value: float | None) -> str:
    return f"{100 * value:.1f} %" if value is not None else "-"


def table_md(scores: list[Score]) -> list[str]:
    lines = [
        "| document | tool | tables | tables (strict) | prose | headings | word integrity (#11) "
        "| word integrity, corrected reference | reference words corrected | glued "
        "| pages | seconds | peak MiB |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in scores:
        if s.error:
            lines.append(f"| {s.doc} | {s.tool} | error: {s.error[:60]} ||||||||||| |")
            continue
        integrity = (
            f"{_percent(s.integrity)} | {_percent(s.integrity_corrected)} "
            f"| {s.words_corrected if s.words_corrected is not None else '-'}"
        )
        glued = str(s.glued) if s.glued is not None else "-"
        cells = [_rate(s.passed[k], s.total[k]) for k in KINDS]
        cells.insert(
            1, _rate(s.strict_tables or 0, s.total["table"]) if s.strict_tables is not None else "-"
        )
        lines.append(
            f"| {s.doc} | {s.tool} | {' | '.join(cells)} | {integrity} | {glued} | {s.pages} "
            f"| {s.seconds:.1f} | {s.rss_mib:.0f} |"
        )
    return lines


def summary_md(scores: list[Score], group_title: str = "language") -> list[str]:
    lines = [
        f"| {group_title} | tool | tables | tables (strict) | prose | headings "
        "| min word integrity (#11, PDF) | min word integrity, corrected reference (PDF) "
        "| glued per 10 pages (PDF) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    groups: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for s in scores:  # a failed extraction counts: its facts failed, its words are lost
        groups[(s.group or s.lang, s.tool)].append(s)
    for (lang, tool), group in sorted(groups.items()):
        cells = [
            _rate(sum(s.passed[k] for s in group), sum(s.total[k] for s in group)) for k in KINDS
        ]
        # Rows stored before the strict measure existed have none: the strict rate
        # covers the facts of the rows that have it (its denominator says how many).
        measured = [s for s in group if s.strict_tables is not None]
        strict = (
            sum(s.strict_tables or 0 for s in measured),
            sum(s.total["table"] for s in measured),
        )
        cells.insert(1, _rate(*strict))
        pdfs = [s for s in group if s.integrity is not None]
        worst = _percent(min(s.integrity or 0.0 for s in pdfs)) if pdfs else "-"
        # Rows stored before the corrected reference existed have none.
        corrected = [s.integrity_corrected for s in pdfs if s.integrity_corrected is not None]
        worst += " | " + (_percent(min(corrected)) if corrected else "-")
        pages = sum(s.pages for s in pdfs)
        glued = sum(s.glued or 0 for s in pdfs)
        per10 = f"{10 * glued / pages:.2f}" if pages else "-"
        lines.append(f"| {lang} | {tool} | {' | '.join(cells)} | {worst} | {per10} |")
    return lines


def merged_with_stored(
    scores: list[Score], label_set: str, corpus: Corpus = REALDOCS
) -> list[Score]:
    """The stored results with the (document, tool) rows of this run replaced.

    A stored row whose document now has other labels in this set (facts added,
    or moved to the other set) is stale and left out, not kept: run that
    document's tools again.
    """
    path = RESULTS / f"{corpus.name}{_suffix(label_set)}.json"
    if not path.exists():
        return scores
    fresh = {(s.doc, s.tool): s for s in scores}
    current = {doc: _totals(facts) for doc, facts in load_labels(label_set, corpus).items()}
    stored = [Score(**row) for row in json.loads(path.read_text(encoding="utf-8"))]
    kept = [
        s
        for s in stored
        if (s.doc, s.tool) not in fresh and current.get(s.doc) == {k: s.total[k] for k in KINDS}
    ]
    for s in stored:
        if (s.doc, s.tool) not in fresh and s not in kept:
            print(f"[{corpus.name}] stale row left out (labels changed): {s.doc} / {s.tool}")
    order = {d.name: i for i, d in enumerate(corpus.documents)}
    rows = kept + scores
    rows.sort(key=lambda s: (order.get(s.doc, len(order)), TOOLS.index(s.tool)))
    return rows


def _totals(facts: list[dict[str, Any]]) -> dict[str, int]:
    return {kind: sum(1 for f in facts if f["kind"] == kind) for kind in KINDS}


def _suffix(label_set: str) -> str:
    return "" if label_set == "dev" else f"-{label_set}"


def write(
    scores: list[Score], label_set: str, merged: bool = False, corpus: Corpus = REALDOCS
) -> None:
    suffix = _suffix(label_set)
    load = os.getloadavg()
    option = "" if corpus is REALDOCS else f" --corpus {corpus.name}"
    md = [
        f"# {corpus.title} ({label_set} labels)",
        "",
        f"`python -m bench.realdocs{option} --set "
        + label_set
        + " --write` (bench/realdocs/__main__.py says what is measured and how).",
        f"Machine: {platform.machine()}, Python {platform.python_version()}, "
        f"load average at the end {load[0]:.2f}.",
        *(
            ["Rows come from more than one run (`--merge`): seconds depend on the load of each."]
            if merged
            else []
        ),
        "",
        f"## Per {corpus.group_title}",
        "",
        *summary_md(scores, corpus.group_title),
        "",
        *INTEGRITY_NOTE,
        "",
        "## Per document",
        "",
        *table_md(scores),
        "",
        "## Failed facts (chunkwise)",
        "",
    ]
    for s in scores:
        if s.tool == "chunkwise" and s.failed:
            md.append(f"- {s.doc}: " + "; ".join(s.failed))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{corpus.name}{suffix}.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    payload = [s.__dict__ for s in scores]
    (RESULTS / f"{corpus.name}{suffix}.json").write_text(
        json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


INTEGRITY_NOTE = (
    "Word integrity (#11) is the share of `pdftotext -raw`'s words of 5+ letters found as",
    "words in the tool's output. The corrected reference is pdftotext's text with the letters",
    'it writes for TeX\'s math symbols (cmsy\'s angle brackets as h and i: "⟨neu⟩" -> "hneui")',
    "put back as symbols, only where pdfminer's glyphs of the same page, named by the font",
    "program, have the symbol at that place, and with an ActualText of TeX source, which",
    'pdftotext prints for the glyphs it marks ("protect <" for "⟨"), without its control words;',
    "`reference words corrected` counts the words that changed. For the corrected figure",
    'both sides have presentation-form ligatures ("ﬁ", U+FB00-U+FB06) written as letters.',
    "Both are computed over the whole document.",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.realdocs")
    parser.add_argument("--corpus", default="realdocs", choices=tuple(CORPORA))
    parser.add_argument("--set", default="dev", choices=("dev", "heldout"))
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--docs", default="", help="comma-separated document names")
    parser.add_argument("--write", action="store_true", help="store bench/results/realdocs*")
    parser.add_argument("--show-failed", action="store_true")
    parser.add_argument(
        "--merge",
        action="store_true",
        help="with --write: replace only this run's (document, tool) rows in the stored results",
    )
    parser.add_argument(
        "--source",
        type=Path,
        default=ROOT / "shared",
        help="the chunkwise package's parent folder to measure (e.g. an older revision's)",
    )
    parser.add_argument(
        "--git",
        action="append",
        default=[],
        metavar="OWNER/NAME=GIT_DIR",
        help="wpdocs: a local clone of a source repository (bench/wpdocs/fetch.py)",
    )
    args = parser.parse_args(argv)
    corpus = CORPORA[args.corpus]
    if not corpus.fetch(wpdocs_fetch.parse_clones(args.git)):
        print(f"[{corpus.name}] skipped: the documents could not be fetched")
        return 0
    labels = load_labels(args.set, corpus)
    tools = [t for t in args.tools.split(",") if t]
    if shutil.which("pdftotext") is None:
        print("[realdocs] skipped: pdftotext (Debian package poppler-utils) is not installed")
        return 0
    if "pymupdf4llm" in tools and fetch.pymupdf_python() is None:
        print(f"[realdocs] pymupdf4llm skipped: no venv at {fetch.PYMUPDF_VENV}")
        tools.remove("pymupdf4llm")
    wanted = set(args.docs.split(",")) - {""}
    scores: list[Score] = []
    for doc in corpus.documents:
        if (wanted and doc.name not in wanted) or not corpus.usable(doc):
            continue
        if doc.name not in labels and not wanted:
            continue
        for tool in tools:
            if tool == "pymupdf4llm" and not doc.path.endswith(".pdf"):
                continue
            result = score(doc, tool, labels.get(doc.name, []), args.source, corpus)
            scores.append(result)
            print(table_md([result])[-1], flush=True)
            if args.show_failed:
                for failure in result.failed:
                    print(f"    FAIL {failure}")
    print("\n".join(summary_md(scores, corpus.group_title)))
    print("\n".join(INTEGRITY_NOTE))
    if args.write:
        rows = merged_with_stored(scores, args.set, corpus) if args.merge else scores
        write(rows, args.set, merged=args.merge, corpus=corpus)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
