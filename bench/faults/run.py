"""Fault-injection suite: ``make faults`` (or ``python -m bench.faults.run [SCENARIO...]``).

Needs the local stack (``scripts/with-services.sh`` starts it): OPENSEARCH_URL and
AWS_ENDPOINT_URL. Prints a table of expected vs measured per scenario and writes
bench/results/faults.md and faults.json. Exit status 1 if any check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from bench.faults.scenarios import SCENARIOS as HANDLER_SCENARIOS
from bench.faults.scenarios import Row
from bench.faults.switch import switch_concurrent_scenario, switch_faults_scenario

SCENARIOS = {
    **HANDLER_SCENARIOS,
    "switch-faults": switch_faults_scenario,
    "switch-concurrent": switch_concurrent_scenario,
}

RESULTS = Path(__file__).resolve().parents[1] / "results"


def table(rows: list[Row]) -> str:
    lines = [
        "| scenario | check | expected | measured | ok |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [r.scenario, r.check, r.expected, r.measured, "yes" if r.ok else "**NO**"]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.faults.run")
    p.add_argument("scenarios", nargs="*", help=f"any of {', '.join(SCENARIOS)} (default: all)")
    p.add_argument("--no-write", action="store_true", help="print only, write no results")
    p.add_argument(
        "--nodes",
        type=int,
        default=1,
        help="3: the faults of the local 3-node cluster (bench/faults/cluster.py), written to "
        "bench/results/faults-cluster.md/.json; needs OPENSEARCH_NODES=3 services",
    )
    args = p.parse_args(argv)
    stem = "faults"
    if args.nodes > 1:
        from bench.faults.cluster import cluster_scenario

        SCENARIOS.clear()
        SCENARIOS["cluster"] = cluster_scenario
        stem = "faults-cluster"
    opensearch_url = os.environ.get("OPENSEARCH_URL", "http://127.0.0.1:9200")
    endpoint = os.environ.get("AWS_ENDPOINT_URL", "http://127.0.0.1:4566")
    names = args.scenarios or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        p.error(f"unknown scenario(s) {unknown}; choose from {list(SCENARIOS)}")
    load_before = os.getloadavg()
    rows: list[Row] = []
    seconds: dict[str, float] = {}
    for name in names:
        t0 = time.monotonic()
        print(f"faults: {name} ...", file=sys.stderr, flush=True)
        rows += SCENARIOS[name](opensearch_url, endpoint)
        seconds[name] = round(time.monotonic() - t0, 1)
    load_after = os.getloadavg()
    text = table(rows)
    print(text)
    failed = [r for r in rows if not r.ok]
    print(f"\nfaults: {len(rows) - len(failed)}/{len(rows)} checks as expected", flush=True)
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        before = [round(x, 2) for x in load_before]
        after = [round(x, 2) for x in load_after]
        meta: dict[str, object] = {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)",
            "load_average_before": before,
            "load_average_after": after,
            "seconds": seconds,
        }
        (RESULTS / f"{stem}.json").write_text(
            json.dumps({"meta": meta, "rows": [asdict(r) for r in rows]}, indent=2) + "\n",
            encoding="utf-8",
        )
        header = (
            f"# Fault injection (`make {stem}`; `python -m bench.faults.run "
            f"{'--nodes 3' if args.nodes > 1 else ''}`)\n\n"
            f"{meta['date']}; {meta['machine']}; load average "
            f"{before[0]} before, {after[0]} after (1-minute); "
            f"seconds per scenario {seconds}.\n\n"
            + (
                "Local stack: the S3/SQS emulator (the truth: a versioned bucket) and the "
                "local 3-node OpenSearch cluster (`tools/opensearch/opensearch.sh up --nodes 3`), "
                "a generation of 3 shards and 1 replica; the writer is the production revision "
                "switch, the readers read as `Searcher.answer` does. See bench/faults/cluster.py "
                "and samdocs/local-stack.md.\n\n"
                if args.nodes > 1
                else "Local stack: the S3/SQS emulator and the real OpenSearch node; the handlers "
                "are functions/*/app.py. See samdocs/operations.md (fault injection).\n\n"
            )
        )
        (RESULTS / f"{stem}.md").write_text(header + text + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
