"""Results of the scale benchmark: OUT.json (everything) and OUT.md (the tables)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def _ingest_table(rows: list[dict[str, Any]]) -> list[str]:
    out = [
        "| workers | documents | chunks | wall s | documents/s | documents/s, embedding excluded"
        " | chunks/s | load before / after |",
        "|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['workers']} | {r['docs']} | {r['chunks']} | {r['wall_s']} | {r['docs_per_s']}"
            f" | {r['docs_per_s_excl_embed']} | {r['chunks_per_s']:.0f}"
            f" | {r['load_before']} / {r['load_after']} |"
        )
    return out


def _latency_table(q: dict[str, Any]) -> list[str]:
    out = [
        "| query | n | took p50 | took p95 | took p99 | client p50 | client p95 | client p99 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in ("bm25", "knn", "hybrid"):
        t, c = q["took_ms"][kind], q["client_ms"][kind]
        if not t.get("n"):
            continue
        out.append(
            f"| {kind} | {t['n']} | {t['p50']:.1f} | {t['p95']:.1f} | {t['p99']:.1f}"
            f" | {c['p50']:.1f} | {c['p95']:.1f} | {c['p99']:.1f} |"
        )
    c = q["client_ms"].get("searcher", {})
    if c.get("n"):
        out.append(
            f"| hybrid via Searcher.search (production read path) | {c['n']} | | | "
            f"| {c['p50']:.1f} | {c['p95']:.1f} | {c['p99']:.1f} |"
        )
    return out


def markdown(report: dict[str, Any]) -> str:
    lines = ["# Scale benchmark", "", f"Run {report['started']}.", ""]
    lines += ["```json", json.dumps(report.get("config", {}), indent=1), "```", ""]
    if "ingest" in report:
        lines += ["## Ingest through the queue (revision protocol)", ""]
        ingest = report["ingest"]
        lines += [*_ingest_table(ingest["slices"]), ""]
        if ingest.get("under_backfill_settings"):
            lines += [
                "Under `chunkwise backfill`'s settings on the live generation (refresh off, "
                f"no replicas, async translog); then a force merge of {ingest['force_merge_s']} s "
                f"to {ingest['segments_after']} segment(s) and the k-NN warmup.",
                "",
            ]
    if "preload" in report:
        lines += ["## Preload (bulk into the live generation)", "", "```json"]
        lines += [json.dumps(report["preload"], indent=1), "```", ""]
    if "bulk" in report:
        lines += [
            "## Bulk indexing",
            "",
            "```json",
            json.dumps(report["bulk"], indent=1),
            "```",
            "",
        ]
    for key in ("queries", "queries_after_swap"):
        if key not in report:
            continue
        q = report[key]
        lines += [
            "## Query latency while revisions arrive"
            + (" (after the swap: the force-merged generation)" if key != "queries" else ""),
            "",
            f"{q['chunks']} live chunks; {q['uploads_per_s']} uploads/s during the run, "
            f"{q['revisions_indexed']} revisions indexed; errors {q['errors']}; "
            f"load {q['load_before']} / {q['load_after']}. Milliseconds.",
            "",
        ]
        if q.get("during"):
            d = q["during"]
            lines += [
                f"During the phase: 1-minute load {d['load_min']}-{d['load_max']} "
                f"(mean {d['load_mean']}), all CPUs busy {100 * d['cpu_busy_mean']:.0f} % "
                f"on average ({100 * d['cpu_busy_max']:.0f} % at most, every process "
                f"counted); searchable segments {q.get('segments_before')} before, "
                f"{q.get('segments_after')} after.",
                "",
            ]
        lines += [*_latency_table(q), ""]
    if "swap" in report:
        lines += ["## Re-chunk and alias swap under queries", "", "```json"]
        lines += [json.dumps(report["swap"], indent=1), "```", ""]
        if "after" in report["swap"]:
            lines += ["Latency on the swapped-in generation (quiet):", ""]
            lines += [*_latency_table(report["swap"]["after"]), ""]
    return "\n".join(lines)


def write(report: dict[str, Any], args: argparse.Namespace) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    text = markdown(report)
    args.out.with_suffix(".md").write_text(text, encoding="utf-8")
    print(text)
