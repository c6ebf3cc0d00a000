"""The fusion sweep: which hybrid fusion is never below the better of its two legs.

    python -m bench.eval.fusion_sweep RUN_DIR [RUN_DIR ...] [--out FILE.md] [--min-n N]

Each RUN_DIR holds a `chunkwise eval ... --fusions ...` report (``<config>.json``). For
every fusion mode (``hybrid`` = the default pipeline, ``hybrid[SPEC]`` = a swept one) and
every group of one language (``lang=xx``, ``<doc_type>/xx``, ``lang=xx&tag=t``; the XQuAD
per-article tags are left out) it takes hit@1 and hit@3 minus the better leg's (BM25 or
vector, whichever is higher in that group), in points. The criterion of #29: a fusion
passes when no group is more than 1 point below its better leg, on hit@1 and on hit@3.
Groups with fewer than ``--min-n`` questions are listed but do not decide (one question
there is more than 1 point).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

LEGS = ("bm25", "vector")
METRICS = ("hit@1", "hit@3")
TOLERANCE = 1.0  # points


def language_groups(groups: dict[str, Any]) -> list[str]:
    out = []
    for g in groups:
        if "tag=article-" in g or g == "all":
            continue
        if g.startswith("lang=") or "/" in g:
            out.append(g)
    return sorted(out)


def margins(report: dict[str, Any], mode: str, min_n: int) -> list[dict[str, Any]]:
    """Per group and metric: the fusion's value, the better leg's, and the margin."""
    rows = []
    modes = report["modes"]
    for g in language_groups(modes[mode]):
        n = modes[mode][g]["questions"]
        for metric in METRICS:
            leg = max(modes[m][g][metric] for m in LEGS if m in modes)
            value = modes[mode][g][metric]
            rows.append(
                {
                    "group": g,
                    "n": n,
                    "metric": metric,
                    "fusion": 100 * value,
                    "leg": 100 * leg,
                    "margin": 100 * (value - leg),
                    "decides": n >= min_n,
                }
            )
    return rows


def fusion_modes(report: dict[str, Any]) -> list[str]:
    return [m for m in report["modes"] if m == "hybrid" or m.startswith("hybrid[")]


def summarize(runs: dict[str, dict[str, Any]], min_n: int) -> dict[str, dict[str, Any]]:
    """Per fusion mode: the worst deciding margin, failing groups, overall hit@1/3 per run."""
    out: dict[str, dict[str, Any]] = {}
    first = next(iter(runs.values()))
    for mode in fusion_modes(first):
        worst = 0.0
        fails: list[str] = []
        overall = {}
        for name, report in runs.items():
            for r in margins(report, mode, min_n):
                if r["decides"]:
                    worst = min(worst, r["margin"])
                    if r["margin"] < -TOLERANCE:
                        fails.append(f"{name}:{r['group']} {r['metric']} {r['margin']:+.1f}")
            a = report["modes"][mode]["all"]
            overall[name] = (100 * a["hit@1"], 100 * a["hit@3"])
        out[mode] = {"worst": worst, "fails": fails, "overall": overall}
    return out


def render(runs: dict[str, dict[str, Any]], min_n: int) -> str:
    summary = summarize(runs, min_n)
    names = list(runs)
    head = "| fusion | " + " | ".join(f"{n} hit@1 / hit@3" for n in names)
    lines = [
        f"Groups of one language with at least {min_n} questions decide; margin = fusion "
        "minus the better leg (BM25 or vector) in that group, points.",
        "",
        head + " | worst margin | groups > 1 point below |",
        "|---|" + "---:|" * len(names) + "---:|---:|",
    ]
    for mode, s in summary.items():
        cells = [f"{s['overall'][n][0]:.1f} / {s['overall'][n][1]:.1f}" for n in names]
        lines.append(
            f"| {mode} | " + " | ".join(cells) + f" | {s['worst']:+.1f} | {len(s['fails'])} |"
        )
    passing = [m for m, s in summary.items() if not s["fails"]]
    lines += ["", "Passing: " + (", ".join(passing) if passing else "none"), ""]
    for mode, s in summary.items():
        if s["fails"]:
            lines.append(f"- {mode}: " + "; ".join(s["fails"][:12]))
    return "\n".join(lines) + "\n"


def render_groups(runs: dict[str, dict[str, Any]], min_n: int) -> str:
    """Every deciding group: both legs' hit@1, each fusion mode's margin (hit@1 / hit@3);
    rows where some fusion is more than 1 point below its better leg are marked."""
    first = next(iter(runs.values()))
    modes = fusion_modes(first)
    lines = [
        "| run | group | n | better leg hit@1 | "
        + " | ".join(f"{m} Δ" for m in modes)
        + " | > 1 point below |",
        "|---|---|---:|---:|" + "---:|" * len(modes) + "---|",
    ]
    for name, report in runs.items():
        per_mode = {m: margins(report, m, min_n) for m in modes}
        groups = sorted({r["group"] for r in per_mode[modes[0]] if r["decides"]})
        for g in groups:
            cells, below = [], []
            for m in modes:
                rows = {r["metric"]: r for r in per_mode[m] if r["group"] == g}
                cells.append(f"{rows['hit@1']['margin']:+.1f} / {rows['hit@3']['margin']:+.1f}")
                if any(r["margin"] < -TOLERANCE for r in rows.values()):
                    below.append(m)
            legs = {leg: report["modes"][leg][g]["hit@1"] for leg in LEGS}
            best = max(legs, key=lambda k: legs[k])
            n = report["modes"][modes[0]][g]["questions"]
            lines.append(
                f"| {name} | {g} | {n} | {100 * legs[best]:.1f} ({best}) | "
                + " | ".join(cells)
                + f" | {', '.join(below)} |"
            )
    return "\n".join(lines) + "\n"


def load_runs(dirs: list[Path]) -> dict[str, dict[str, Any]]:
    runs = {}
    for d in dirs:
        for path in sorted(d.glob("*.json")):
            if path.name.startswith(("summary", "diff_")):
                continue
            runs[f"{d.name}"] = json.loads(path.read_text(encoding="utf-8"))
            break
    return runs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("runs", nargs="+", type=Path)
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--min-n", type=int, default=10)
    p.add_argument("--groups", type=Path, default=None, help="also write the per-group table")
    args = p.parse_args(argv)
    runs = load_runs(args.runs)
    text = render(runs, args.min_n)
    if args.groups:
        args.groups.write_text(render_groups(runs, args.min_n), encoding="utf-8")
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
