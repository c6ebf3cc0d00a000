"""`make bench`: run every benchmark that writes bench/results/, in order.

Benchmarks that need the local OpenSearch node are run through
scripts/with-services.sh by the Makefile (OPENSEARCH_URL is set then). The
sentence-segmentation evaluation needs the Universal Dependencies files
(see bench/sentences/README.md); it is skipped with a message when they are
absent instead of failing the whole run. The real-text throughput run builds
its corpus from Debian documentation packages (bench/realtext/build.py, needs
`apt-get download` and `dpkg-deb`); it is skipped with a message when that
fails. So is the real-document extraction benchmark (bench/realdocs: pinned
Debian PDFs, labelled facts, chunkwise vs a pypdf baseline and pymupdf4llm).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UD_ROOT = ROOT / ".local" / "ud"
REAL_TEXT = ROOT / ".local" / "realtext" / "corpus.jsonl"
REAL_TEXT_TOOLS = (
    "chunkwise,chunkwise-warm-memo,chunkwise-no-memo,semantic-text-splitter,"
    "langchain-recursive,tokenizer-floor"
)

STEPS: list[tuple[str, list[str], bool]] = [
    # (name, module + args, needs OpenSearch)
    ("throughput", ["bench.throughput", "--sizes", "1,10,20", "--others-max-mb", "20"], False),
    ("extract_pdf", ["bench.extract_pdf"], False),
    ("index_search", ["bench.index_search"], True),
    ("query_paths", ["bench.query_paths"], True),
]


def real_text(failures: list[str]) -> None:
    if not REAL_TEXT.exists():
        build = [sys.executable, "-m", "bench.realtext.build", "--out", str(REAL_TEXT)]
        if subprocess.call(build, cwd=ROOT) != 0:
            print("[bench] throughput_real_text: skipped, could not build the Debian corpus")
            return
    cmd = ["bench.throughput", "--debian-docs", str(REAL_TEXT), "--tools", REAL_TEXT_TOOLS]
    cmd += ["--out", "bench/results/throughput_real_text.md"]
    print(f"[bench] throughput_real_text: python -m {' '.join(cmd)}", flush=True)
    if subprocess.call([sys.executable, "-m", *cmd], cwd=ROOT) != 0:
        failures.append("throughput_real_text")


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
    if not only or "throughput_real_text" in only:
        real_text(failures)
    if not only or "realdocs" in only:
        # Fetches its Debian packages on first use; skips with a message when it cannot.
        cmd = ["bench.realdocs", "--write"]
        print(f"[bench] realdocs: python -m {' '.join(cmd)}", flush=True)
        if subprocess.call([sys.executable, "-m", *cmd], cwd=ROOT) != 0:
            failures.append("realdocs")
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
