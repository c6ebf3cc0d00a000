"""The scale benchmark: 10,000 generated en/de documents through the real ingest path.

    make bench-scale                      # all phases, writes bench/results/scale.md/.json
    .venv/bin/python -m bench.scale.run --docs 600 --out .local/scale-quick   # quick run

Needs the local stack's services (`scripts/with-services.sh`, or OPENSEARCH_URL /
AWS_ENDPOINT_URL); creates its own bucket, queues and index prefix and removes them at
the end. Embedding is the fixed-cost fake of bench.scale.fake_embed (deterministic
vectors, a fixed sleep per call); everything else is production code: S3 notification
-> SQS -> `chunkwise local run`'s worker processes -> the ingest Lambda handler ->
OpenSearch.

Phases (each records the 1-minute load average before it starts):
1. ingest: the documents uploaded in three slices, drained by 1, 2 and 4 workers;
   documents/s and chunks/s of the revision protocol, with and without the fake's sleep;
2. bulk: `_bulk` of chunks with 384-d vectors into a scratch generation under the
   backfill settings (`chunkwise backfill`), against the same under default settings;
3. queries: BM25, k-NN and hybrid (server-side RRF) latency, server `took` and client
   wall time, p50/p95/p99, at ~100k chunks while revisions arrive at 5 documents/s;
4. swap: re-chunk every document into a new generation under the backfill settings
   while a prober searches for documents' unique markers; the generation is verified
   and the aliases swapped with the prober still running: errors, stale, mixed and
   missing answers are counted (all must be 0).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results" / "scale"


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--docs", type=int, default=10_000, help="documents generated and ingested")
    ap.add_argument("--workers", default="1,2,4", help="worker counts of the ingest slices")
    ap.add_argument("--shares", default="0.15,0.25,0.6", help="share of the documents per slice")
    ap.add_argument(
        "--no-ingest-backfill",
        dest="ingest_backfill",
        action="store_false",
        help="ingest under the generation's own settings (default: as a backfill)",
    )
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--sleep", type=float, default=0.02, help="fake embedding: seconds per call")
    ap.add_argument("--bulk-chunks", type=int, default=30_000)
    ap.add_argument("--bulk-refresh", default="-1", help="refresh intervals of the backfill runs")
    ap.add_argument("--query-rounds", type=int, default=400, help="queries of each kind")
    ap.add_argument("--ingest-rate", type=float, default=5.0, help="documents/s during queries")
    ap.add_argument("--preload", type=int, default=0, help="chunks of the preload phase")
    ap.add_argument("--phases", default="ingest,bulk,queries,swap,queries")
    ap.add_argument("--max-load", type=float, default=1.5, help="wait for a quieter machine")
    ap.add_argument("--quiet-wait", type=float, default=60.0, help="seconds to wait for it")
    ap.add_argument("--out", type=Path, default=RESULTS, help="writes OUT.md and OUT.json")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    for var, value in (
        ("POWERTOOLS_LOG_LEVEL", "WARNING"),
        ("POWERTOOLS_METRICS_DISABLED", "true"),
        ("POWERTOOLS_TRACE_DISABLED", "true"),
    ):
        os.environ.setdefault(var, value)
    from bench.scale.bulk import bulk_phase, preload_phase
    from bench.scale.phases import Bench
    from bench.scale.swap import swap_phase

    bench = Bench(args)
    more = {
        "bulk": lambda b: bulk_phase(b, args.bulk_chunks),
        "preload": lambda b: preload_phase(b, args.preload),
        "swap": swap_phase,
    }
    report: dict[str, Any] = {"started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    try:
        report.update(bench.run(args.phases.split(","), more))
    finally:
        for failure in bench.cleanup():
            print(f"cleanup: {failure}")
    report["machine"] = {
        "cpus": os.cpu_count(),
        "arch": platform.machine(),
        "python": platform.python_version(),
    }
    from bench.scale.report import write

    write(report, args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
