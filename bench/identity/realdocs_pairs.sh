#!/usr/bin/env bash
# The real-document dev extraction of two checkouts, document by document (A then B for
# each), hashes only (bench/identity/realdocs_run.py --hashes-only), so that an
# interrupted run still leaves paired results: OUT/a/<doc>.json and OUT/b/<doc>.json.
# Documents in ascending page count (bench/results/realdocs.json of A), or as DOCS says.
#
#   bash bench/identity/realdocs_pairs.sh CHECKOUT_A CHECKOUT_B OUT
#   python -m bench.identity.compare OUT/a OUT/b --ignore '^chunkwise$' --ignore '^bench$'
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
a=$(cd "$1" && pwd) b=$(cd "$2" && pwd) out=$3
mkdir -p "$out/a" "$out/b"
out=$(cd "$out" && pwd)
docs=${DOCS:-$("$a/.venv/bin/python" - "$a" <<'PY'
import json, sys
from pathlib import Path
root = Path(sys.argv[1])
labels = {json.loads(line)["doc"] for line in (root / "bench/realdocs/labels/dev.jsonl").open()
          if line.strip()}
rows = json.loads((root / "bench/results/realdocs.json").read_text())
pages = {r["doc"]: r["pages"] for r in rows if r["tool"] == "chunkwise"}
print(" ".join(sorted(labels, key=lambda d: (pages.get(d, 0), d))))
PY
)}
for doc in $docs; do
    for side in a b; do
        checkout=$a; [[ $side == b ]] && checkout=$b
        [[ -s $out/$side/$doc.json ]] && continue
        start=$(date +%s)
        (cd "$checkout" && PYTHONPATH=. .venv/bin/python "$here/realdocs_run.py" \
            "$out/$side/$doc.json" --hashes-only --docs "$doc" 2>/dev/null) \
            || echo "realdocs_pairs: $side $doc failed" >&2
        echo "realdocs_pairs: $side $doc $(( $(date +%s) - start )) s" >&2
    done
done
