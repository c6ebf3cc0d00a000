"""Format benchmark: chunkwise on real CSV/TSV, XLSX/XLS, ODS, PPTX, ODP, ODT and EPUB files.

    python -m bench.formats [--set dev|heldout] [--formats csv,xlsx,...] [--docs NAME,...]
                            [--no-generated] [--show-failed] [--write]

The real files come from pinned sources (corpus.py; ``python -m bench.formats.fetch``
first, with ``--docling-git`` for Docling's files); the generated ones from
``python -m bench.formats.generate`` (run by ``--set dev`` when missing). Labels:
labels/dev.jsonl (what readers are developed on), labels/heldout.jsonl (only to
report), labels/generated.jsonl (behaviour; scored with the dev set, reported
apart). metrics.py says what each kind of fact checks.

Each file is extracted by chunkwise in a fresh process (child.py: time, peak
RSS; ``--source`` names another revision's ``shared/`` folder to extract with),
its text chunked with this checkout's chunker in the document's language. A
file of a format the installed chunkwise does not name (no ``DocFormat`` for
it) is "unsupported" and its facts are not scored: the readers land after
this benchmark. A file of a format it names but reads or refuses as another
(a cp1252 .csv decoded as text) is "misread" and fails its facts, as do a typed
extraction error and a crash. Per format and language: pass rates against the issue's targets
(table and prose >= 98 %, heading >= 95 %), and for Docling's files the cells
and headings its output has that chunkwise's lacks, and the reverse.
``--write`` stores bench/results/formats[-heldout].md and .json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.realdocs.metrics import View
from chunkwise import chunk_text  # the library entry: the default counter filled in

from . import fetch, generate
from .corpus import DOCUMENTS, GENERATED, Document
from .metrics import KINDS, Outcome, check, check_strict, compare, describe

ROOT = fetch.ROOT
LABELS = Path(__file__).resolve().parent / "labels"
RESULTS = ROOT / "bench" / "results"
CHILD_TIMEOUT = 960  # past the Lambda's 15 minutes: a bounded fact fails, the run goes on
LARGE = "gen-large-csv"
TARGETS = {"table": 0.98, "prose": 0.98, "heading": 0.95}
# The report formats that count as reading the file as what it is.
READ_AS = {
    "csv": {"csv"},
    "tsv": {"tsv", "csv"},
    "xlsx": {"xlsx", "xlsm"},
    "xls": {"xls"},
    "ods": {"ods"},
    "pptx": {"pptx"},
    "odp": {"odp"},
    "odt": {"odt"},
    "epub": {"epub"},
    "docx": {"docx"},
}


@dataclass
class Score:
    doc: str
    fmt: str
    lang: str
    group: str  # real or generated
    status: str = ""  # ok, misread, unsupported, error, crash, missing, changed
    read_as: str = ""  # the format chunkwise's report named
    error: str = ""
    seconds: float = 0.0
    rss_mib: float = 0.0
    chunks: int = 0
    passed: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    total: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    strict_tables: int = 0
    failed: list[str] = field(default_factory=list)
    docling: dict[str, Any] | None = None

    @property
    def scored(self) -> bool:
        """Facts count: this chunkwise has a reader for the format (whatever it did)."""
        return self.status in ("ok", "error", "crash", "misread")


def load_labels(name: str) -> dict[str, list[dict[str, Any]]]:
    by_doc: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with (LABELS / f"{name}.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                fact = json.loads(line)
                by_doc[fact["doc"]].append(fact)
    return by_doc


SOURCE = [ROOT / "shared"]  # the chunkwise package's parent folder that the child extracts with


def run_child(path: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join((str(SOURCE[0]), str(ROOT))))
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "bench.formats.child", str(path), str(out)],
                capture_output=True,
                text=True,
                env=env,
                check=False,
                timeout=CHILD_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return {"status": "crash", "error": "Timeout", "reason": f"> {CHILD_TIMEOUT} s"}
        if proc.returncode != 0 or not out.exists():
            last = proc.stderr.strip().splitlines()[-1:] or ["no output"]
            return {"status": "crash", "error": "ChildFailed", "reason": last[0][:300]}
        record: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return record


def classify(doc: Document, record: dict[str, Any]) -> str:
    """ok, error, crash; "misread" (a known format read or refused as another); or
    "unsupported" (this chunkwise names no format for the file: no reader yet)."""
    status, read_as = str(record["status"]), str(record.get("format", ""))
    known = set(record.get("known_formats", ()))
    if known:
        if not known & READ_AS[doc.fmt]:
            return "unsupported"
        other = bool(read_as) and read_as not in READ_AS[doc.fmt]
        if (status == "ok" and other) or record.get("error") == "UnsupportedFormat":
            return "misread"
        return status
    # An older chunkwise that does not say which formats it knows: judge by the file alone.
    if record.get("error") == "UnsupportedFormat" or (read_as and read_as not in READ_AS[doc.fmt]):
        return "unsupported"
    return status


def outcome_of(doc: Document, record: dict[str, Any], score: Score) -> Outcome:
    status = str(record["status"])
    score.read_as = str(record.get("format", ""))
    score.seconds, score.rss_mib = float(record.get("seconds", 0)), float(record.get("rss_mib", 0))
    if status != "ok":
        score.error = f"{record.get('error')}: {record.get('reason', '')}"[:200]
    score.status = status = classify(doc, record)
    if status != "ok":
        return Outcome(status, seconds=score.seconds, rss_mib=score.rss_mib)
    text = str(record["text"])
    chunks = chunk_text(text, doc.lang)
    score.chunks = len(chunks)
    views = tuple(View(c.text, tuple(c.heading_path)) for c in chunks)
    return Outcome("ok", text, views, score.seconds, score.rss_mib)


def score_document(doc: Document, facts: list[dict[str, Any]]) -> Score:
    score = Score(doc.name, doc.fmt, doc.lang, "generated" if doc.split == "generated" else "real")
    for fact in facts:
        score.total[fact["kind"]] += 1
    state = "ok" if doc.split == "generated" else fetch.state(doc)
    path = fetch.resolve(doc)
    if state != "ok" or not path.exists():
        score.status = state if state != "ok" else "missing"
        return score
    outcome = outcome_of(doc, run_child(path), score)
    if not score.scored:
        return score
    for fact in facts:
        if check(fact, outcome):
            score.passed[fact["kind"]] += 1
        else:
            score.failed.append(describe(fact))
        if fact["kind"] == "table":
            if check_strict(fact, outcome):
                score.strict_tables += 1
            else:
                score.failed.append("strict " + describe(fact))
    truth = fetch.groundtruth_path(doc)
    if outcome.status == "ok" and truth is not None and truth.exists():
        score.docling = compare(truth.read_text(encoding="utf-8"), outcome.text).summary()
    return score


def _rate(passed: int, total: int, target: float | None = None) -> str:
    if not total:
        return "-"
    share = passed / total
    mark = "" if target is None else (" ✓" if share >= target else " ✗")
    return f"{100 * share:.1f} % ({passed}/{total}){mark}"


def summary_md(scores: list[Score], kinds: Iterable[str]) -> list[str]:
    kinds = list(kinds)
    head = ["format", "language", "files", "unsupported", "tables", "tables (strict)"]
    head += [k for k in kinds if k != "table"] + ["max seconds", "max peak MiB"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    groups: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for s in scores:
        groups[(s.fmt, s.lang)].append(s)
    for (fmt, lang), group in sorted(groups.items()):
        scored = [s for s in group if s.scored]
        unsupported = [s for s in group if s.status == "unsupported" and not s.scored]
        other = [s for s in group if not s.scored and s.status != "unsupported"]
        cells = [
            fmt,
            lang,
            str(len(group)),
            str(len(unsupported)) + (f" ({len(other)} missing)" if other else ""),
        ]
        total = {k: sum(s.total[k] for s in scored) for k in KINDS}
        passed = {k: sum(s.passed[k] for s in scored) for k in KINDS}
        cells.append(_rate(passed["table"], total["table"], TARGETS["table"]))
        cells.append(_rate(sum(s.strict_tables for s in scored), total["table"]))
        cells += [_rate(passed[k], total[k], TARGETS.get(k)) for k in kinds if k != "table"]
        cells.append(f"{max(s.seconds for s in scored):.1f}" if scored else "-")
        cells.append(f"{max(s.rss_mib for s in scored):.0f}" if scored else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return lines  # fmt: skip


def documents_md(scores: list[Score]) -> list[str]:
    lines = [
        "| document | format | language | status | read as | facts passed | seconds | peak MiB "
        "| chunks |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in scores:
        passed, total = sum(s.passed.values()), sum(s.total.values())
        status = s.status + (f" ({s.error[:70]})" if s.error else "")
        facts = f"{passed}/{total}" if s.scored else f"- ({total} not scored)"
        lines.append(
            f"| {s.doc} | {s.fmt} | {s.lang} | {status} | {s.read_as or '-'} | {facts} "
            f"| {s.seconds:.2f} | {s.rss_mib:.0f} | {s.chunks} |"
        )
    return lines


def docling_md(scores: list[Score]) -> list[str]:
    lines = [
        "| document | Docling's cells | missing in chunkwise | only in chunkwise "
        "| Docling's headings | missing in chunkwise | only in chunkwise | examples missing |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for s in scores:
        if not s.docling:
            continue
        d = s.docling
        examples = "; ".join(
            d["examples"]["cells_missing"][:3] + d["examples"]["headings_missing"][:3]
        )
        lines.append(
            f"| {s.doc} | {d['docling_cells']} | {d['cells_missing']} | {d['cells_extra']} "
            f"| {d['docling_headings']} | {d['headings_missing']} | {d['headings_extra']} "
            f"| {examples[:120].replace('|', '/')} |"
        )
    return lines if len(lines) > 2 else ["No Docling file was read by chunkwise in this run."]


def report_md(label_set: str, real: list[Score], generated: list[Score]) -> list[str]:
    load = os.getloadavg()
    md = [
        f"# Formats ({label_set} labels)",
        "",
        f"`python -m bench.formats --set {label_set} --write` (bench/formats/README.md says "
        "what is measured and how). "
        f"Machine: {platform.machine()}, Python {platform.python_version()}, "
        f"load average at the end {load[0]:.2f}.",
        "",
        "Targets (issue 25, real files): tables and prose >= 98 %, headings >= 95 % (✓ / ✗). "
        "Unsupported: files of a format the installed chunkwise does not read; their facts "
        "are not scored.",
        "",
        "## Real files, per format and language",
        "",
        *summary_md(real, ("table", "prose", "heading")),
    ]
    if generated:
        md += ["", "## Generated files (behaviour), per format and language", ""]
        md += summary_md(generated, KINDS)
    md += ["", "## Against Docling's output (its groundtruth Markdown)", "", *docling_md(real)]
    md += ["", "## Per document", "", *documents_md(real + generated)]
    md += ["", "## Failed facts", ""]
    for s in real + generated:
        if s.scored and s.failed:
            md.append(f"- {s.doc}: " + "; ".join(s.failed))
    return md


def write(label_set: str, real: list[Score], generated: list[Score]) -> None:
    suffix = "" if label_set == "dev" else f"-{label_set}"
    RESULTS.mkdir(parents=True, exist_ok=True)
    md = report_md(label_set, real, generated)
    (RESULTS / f"formats{suffix}.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    payload = [asdict(s) for s in real + generated]
    (RESULTS / f"formats{suffix}.json").write_text(
        json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def selected(docs: Iterable[Document], args: argparse.Namespace) -> list[Document]:
    formats = set(args.formats.split(",")) - {""}
    names = set(args.docs.split(",")) - {""}
    return [d for d in docs if (not formats or d.fmt in formats) and (not names or d.name in names)]


def run(docs: list[Document], labels: dict[str, list[dict[str, Any]]], show: bool) -> list[Score]:
    scores = []
    for doc in docs:
        if doc.name not in labels:
            continue
        score = score_document(doc, labels[doc.name])
        scores.append(score)
        print(documents_md([score])[-1], flush=True)
        if show and score.scored:
            for failure in score.failed:
                print(f"    FAIL {failure}")
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.formats")
    parser.add_argument("--set", default="dev", choices=("dev", "heldout", "heldout2"))
    parser.add_argument("--formats", default="", help="comma-separated, e.g. csv,xlsx")
    parser.add_argument("--docs", default="", help="comma-separated document names")
    parser.add_argument("--no-generated", action="store_true", help="dev: skip generated files")
    parser.add_argument("--show-failed", action="store_true")
    parser.add_argument("--write", action="store_true", help="store bench/results/formats*")
    parser.add_argument(
        "--source",
        type=Path,
        default=SOURCE[0],
        help="the chunkwise package's parent folder to extract with (e.g. another revision's)",
    )
    args = parser.parse_args(argv)
    SOURCE[0] = args.source
    real_docs = selected((d for d in DOCUMENTS if d.split == args.set), args)
    if any(fetch.state(d) == "missing" for d in real_docs):
        fetch.main([])
    real = run(real_docs, load_labels(args.set), args.show_failed)
    generated: list[Score] = []
    if args.set == "dev" and not args.no_generated:
        gen_docs = selected(GENERATED, args)
        if any(not fetch.resolve(d).exists() for d in gen_docs if d.name != LARGE):
            generate.main([])  # the 200 MB CSV only with generate --large: else "missing"
        generated = run(gen_docs, load_labels("generated"), args.show_failed)
    print("\n".join(summary_md(real, ("table", "prose", "heading"))))
    if generated:
        print("\n".join(summary_md(generated, KINDS)))
    if args.write:
        write(args.set, real, generated)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
