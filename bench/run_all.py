"""`make bench`: run every benchmark that writes bench/results/, in order.

Benchmarks that need the local OpenSearch node are run through
scripts/with-services.sh by the Makefile (OPENSEARCH_URL is set then). The
sentence-segmentation evaluation needs the Universal Dependencies files
(see bench/sentences/README.md); it is skipped with a message when they are
absent instead of failing the whole run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UD_ROOT = ROOT / ".local" / "ud"

STEPS: list[tuple[str, list[str], bool]] = [
    # (name, module + args, needs OpenSearch)
    ("throughput", ["bench.throughput", "--sizes", "1,10,20", "--others-max-mb", "20"], False),
    ("extract_pdf", ["bench.extract_pdf"], False),
    ("index_search", ["bench.index_search"], True),
]


def main() -> int:
    failures = []
    only = set(sys.argv[1:])
    for name, args, needs_node in STEPS:
        if only and name not in only:
            continue
        if needs_node and not os.environ.get("OPENSEARCH_URL"):
            print(f"[bench] {name}: skipped, OPENSEARCH_URL is not set (use make bench)")
            continue
        print(f"[bench] {name}: python -m {' '.join(args)}", flush=True)
        if subprocess.call([sys.executable, "-m", *args], cwd=ROOT) != 0:
            failures.append(name)
    if not only or "sentences" in only:
        if UD_ROOT.exists():
            cmd = [
                "bench.sentences.evaluate",
                "--ud-root",
                str(UD_ROOT),
                "--write",
                "bench/results/sentences",
            ]
            if subprocess.call([sys.executable, "-m", *cmd], cwd=ROOT) != 0:
                failures.append("sentences")
        else:
            print(
                f"[bench] sentences: skipped, no UD corpus at {UD_ROOT} "
                "(bench/sentences/README.md says how to get it)"
            )
    if failures:
        print(f"[bench] failed: {', '.join(failures)}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
