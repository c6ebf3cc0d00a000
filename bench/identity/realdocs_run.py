"""The real-document dev figures of one checkout, with hashes of what they were computed from.

    cd CHECKOUT && PYTHONPATH=. .venv/bin/python /path/to/bench/identity/realdocs_run.py \\
        OUT.json [--set dev] [--tools chunkwise]

Runs that checkout's ``bench.realdocs`` (its own extraction in a fresh process per
document, its own chunker, metrics and labels) exactly as ``python -m bench.realdocs
--set dev --tools chunkwise`` does, and records per (document, tool):

- the scores (``Score`` as the bench stores it in bench/results/realdocs.json);
- ``text_sha256``: the extracted text the child process returned;
- ``views_sha256``: the retrieval views the facts are checked against;
- ``chunks_sha256`` / ``chunks``: for chunkwise, every field of every chunk of
  ``chunk_text(text, lang)`` (``Chunk.model_dump`` as sorted JSON).

``--hashes-only`` skips the scoring (and its pdftotext/pdfminer references, most of the
time on a busy machine): the same extraction child per labelled document and the same
chunker, hashes only; its hashes compare with a full run's.

Only hashes and scores are written, never the text: the held-out documents must not be
looked at, and a hash compares two commits' outputs byte for byte without showing them.
``python -m bench.identity.compare A.json B.json`` then compares two checkouts (the
default ignore list leaves out ``seconds`` and ``rss_mib``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any


def _sha(data: str) -> str:
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="realdocs_run")
    parser.add_argument("out", type=Path)
    parser.add_argument("--set", default="dev", choices=("dev", "heldout"))
    parser.add_argument("--tools", default="chunkwise")
    parser.add_argument("--hashes-only", action="store_true", help="no scores: hashes only")
    parser.add_argument("--docs", default="", help="with --hashes-only: these documents only")
    args = parser.parse_args(argv)

    import chunkwise
    from bench.realdocs import __main__ as bench
    from bench.realdocs import fetch

    hashes: dict[str, dict[str, Any]] = {}
    scores: list[dict[str, Any]] = []
    current: dict[str, str] = {}  # the (document, tool) being scored

    run_child, views_for, score = bench.run_child, bench.views_for, bench.score

    def recording_run_child(tool: str, path: Path, source: Path) -> dict[str, Any]:
        record = run_child(tool, path, source)
        hashes[current["key"]]["text_sha256"] = _sha(str(record["text"]))
        return record

    def recording_views_for(tool: str, text: str, lang: str) -> list[Any]:
        views = views_for(tool, text, lang)
        entry = hashes[current["key"]]
        entry["views_sha256"] = _sha(
            json.dumps([[v.text, list(v.heading_path)] for v in views], ensure_ascii=False)
        )
        entry["views"] = len(views)
        if tool == "chunkwise":
            chunks = chunkwise.chunk_text(text, lang)
            dumped = [c.model_dump(mode="json") for c in chunks]
            entry["chunks_sha256"] = _sha(json.dumps(dumped, ensure_ascii=False, sort_keys=True))
            entry["chunks"] = len(chunks)
        return views

    def recording_score(
        doc: Any, tool: str, facts: list[dict[str, Any]], source: Path, *more: Any
    ) -> Any:
        # `more`: a newer bench's corpus argument, passed on (older ones have none)
        current["key"] = f"{doc.name}/{tool}"
        hashes[current["key"]] = {}
        result = score(doc, tool, facts, source, *more)
        scores.append(dict(result.__dict__))
        return result

    bench.run_child = recording_run_child
    bench.views_for = recording_views_for
    bench.score = recording_score
    if args.hashes_only:
        status = 0
        labels = bench.load_labels(args.set)
        source = bench.ROOT / "shared"
        wanted = set(args.docs.split(",")) - {""}
        for doc in fetch.DOCUMENTS:
            path = fetch.resolve(doc)
            if doc.name not in labels or not path.exists() or (wanted and doc.name not in wanted):
                continue
            for tool in args.tools.split(","):
                current["key"] = f"{doc.name}/{tool}"
                hashes[current["key"]] = {}
                record = recording_run_child(tool, path, source)
                recording_views_for(tool, str(record["text"]), doc.lang)
                print(f"[realdocs_run] {current['key']}", file=sys.stderr, flush=True)
    else:
        status = bench.main(["--set", args.set, "--tools", args.tools])
    payload = {
        "chunkwise": str(Path(chunkwise.__file__).resolve().parent),
        "bench": str(Path(bench.__file__).resolve().parent),
        "set": args.set,
        "tools": args.tools,
        "documents": len({s["doc"] for s in scores}),
        "hashes": hashes,
        "scores": scores,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"[realdocs_run] {len(scores)} rows -> {args.out}", file=sys.stderr)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
