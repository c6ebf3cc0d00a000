"""Collect the XQuAD `chunkwise eval` runs into bench/results/xquad/.

    python -m bench.xquad.summarize [--runs .local/xquad-results] [--note TEXT]

Expects ``<runs>/<split>-<lang>/{chunkwise,recursive}.json`` as written by

    chunkwise eval .local/xquad/<split>-<lang>/questions.jsonl \\
        --config bench/eval/configs/chunkwise.toml --config bench/eval/configs/recursive.toml \\
        --out .local/xquad-results/<split>-<lang>

(split: dev = articles 1-24, heldout = 25-48; bench/xquad/prepare.py). Copies
each run's per-configuration markdown (tables only, not the per-question list)
and writes summary.md: hit@1 / hit@3 / MRR@10 per split, language,
configuration and search mode, with the chunk counts. `--note` adds a line under
the table (the machine's load while the runs took place, which the runs do not
record).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "bench" / "results" / "xquad"
CONFIGS = ("chunkwise", "recursive")
MODES = ("hybrid", "bm25", "vector")


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="collect XQuAD eval runs")
    p.add_argument("--runs", type=Path, default=ROOT / ".local" / "xquad-results")
    p.add_argument("--note", default="", help="a line under the table (e.g. the load)")
    args = p.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    rows: list[str] = []
    for run in sorted(args.runs.iterdir()):
        if not run.is_dir():
            continue
        for name in CONFIGS:
            path = run / f"{name}.json"
            if not path.exists():
                continue
            report = json.loads(path.read_text(encoding="utf-8"))
            (OUT / run.name).mkdir(exist_ok=True)
            shutil.copy(run / f"{name}.md", OUT / run.name / f"{name}.md")
            chunks = report["chunks"]
            for mode in MODES:
                m = report["modes"][mode]["all"]
                rows.append(
                    f"| {run.name} | {name} | {mode} | {m['questions']} | {_pct(m['hit@1'])} "
                    f"| {_pct(m['hit@3'])} | {m['mrr@10']:.3f} | {chunks['chunks']} "
                    f"| {chunks['over_token_cap']} |"
                )
    meta = {}
    for run in sorted(args.runs.iterdir()):
        if (run / "chunkwise.json").exists():
            meta = json.loads((run / "chunkwise.json").read_text(encoding="utf-8"))["meta"]
            break
    md = (
        "# XQuAD en/de through chunkwise's own chunking, index and search\n\n"
        "XQuAD (google-deepmind/xquad at 7d30520c717524000f0d9d2f9c10a069acd9d285, CC BY-SA "
        "4.0): one document per article, one question per XQuAD question; evidence = the "
        "answer with up to 40 characters of its own paragraph before it "
        "(bench/xquad/prepare.py). dev = articles 1-24 of each file (632 questions per "
        "language), heldout = articles 25-48 (558), run once at the end. One corpus per "
        "language. "
        f"Embedder `{meta.get('embedder', '?')}`, OpenSearch {meta.get('opensearch', '?')}, "
        f"hybrid fusion `{meta.get('hybrid_fusion', '?')}`, k = {meta.get('k', '?')}.\n\n"
        "| split-lang | configuration | mode | questions | hit@1 | hit@3 | MRR@10 | chunks "
        "| over cap |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n"
    )
    if args.note:
        md += f"\n{args.note}\n"
    (OUT / "summary.md").write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
