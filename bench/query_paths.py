"""Benchmark: query embedded by chunkwise vs embedded by the cluster, on the evaluation set.

    .venv/bin/python -m bench.query_paths [--url http://127.0.0.1:9200] [--k 10]

Ingests the evaluation corpus (bench/eval/corpus.json, chunkwise configuration) into a
throwaway generation on the local node, registers the cluster's query model (ML Commons
connector to the loopback embedding endpoint, which must be running:
`python -m chunkwise.cli.embed_endpoint up`) and sends every question of
bench/eval/questions.jsonl both ways:

- client: chunkwise embeds the query and sends the vector (hybrid, server-side RRF)
- cluster: chunkwise sends the text (``neural`` with ``query_text``), the cluster embeds it
  and the generation's default search pipeline fuses (same RRF, k=60)

and the same for the vector retriever alone (``knn`` vector vs ``neural`` text). Counts
the questions whose top k (key, revision, chunk) lists are identical, and the latency of
each path (p50/p95, the client path including its query embedding), and the first query
of a fresh process on each path (what a cold query function pays). No tuning happens
here: both paths run the configuration as it is.

Writes bench/results/query_paths.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from chunkwise.adapters.opensearch.index import OpenSearchIndex, connect
from chunkwise.adapters.opensearch.query_model import delete_query_models
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.cli import embed_endpoint
from chunkwise.evaluation.evaluate import load_config, load_corpus, load_questions
from chunkwise.evaluation.run import _EmbeddingCache, extract_corpus, ingest
from chunkwise.index.bodies import template_name
from chunkwise.models.local import default_embedder
from chunkwise.search.hybrid import (
    Hit,
    SearchFilters,
    guess_query_lang,
    hits_from_response,
    knn_query,
    neural_query,
    postprocess,
)
from chunkwise.settings import Settings
from chunkwise.wiring import setup_local_query_model

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "bench" / "eval"

Ranking = list[tuple[str, str, int]]


def _ids(hits: Sequence[Hit]) -> Ranking:
    return [(h.citation.key, h.revision, h.chunk_index) for h in hits]


def _timed(fn: Callable[[], Ranking]) -> tuple[Ranking, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, 1000 * (time.perf_counter() - t0)


def _pct(values: Sequence[float], p: int) -> float:
    return statistics.quantiles(values, n=100)[p - 1] if len(values) > 1 else values[0]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench.query_paths")
    p.add_argument("--url", default=os.environ.get("OPENSEARCH_URL", "http://127.0.0.1:9200"))
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--runs", type=int, default=5, help="fresh processes per first-query path")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "query_paths.md")
    args = p.parse_args(argv)

    url = embed_endpoint.endpoint_url()
    if embed_endpoint.probe(url) is None:
        print(f"no embedding endpoint at {url}: python -m chunkwise.cli.embed_endpoint up")
        return 1
    client = connect(args.url)
    emb = default_embedder()
    questions = load_questions(EVAL / "questions.jsonl")
    corpus = load_corpus(EVAL / "corpus.json")
    config = load_config(EVAL / "configs" / "chunkwise.toml")
    texts = extract_corpus(corpus, EVAL)
    prefix = f"bench-qp-{uuid.uuid4().hex[:8]}"
    names, _store, stats, _timings = ingest(
        client, config, corpus, texts, _EmbeddingCache(emb), prefix=prefix
    )
    settings = Settings(opensearch_url=args.url, index_prefix=names.prefix)
    try:
        info = setup_local_query_model(settings, url, client=client, embedder=emb)
        rows = _compare(client, emb, names, questions, args.k)
        rows["first"] = {
            mode: [_first_query_ms(mode, args.url, names.prefix) for _ in range(args.runs)]
            for mode in ("client", "cluster")
        }
    finally:
        delete_query_models(client, names.prefix)
        ix = OpenSearchIndex(client, names)
        for generation in ix.generations():
            ix.drop(generation, force=True)
        client.indices.delete_index_template(name=template_name(names), ignore=[404])
    _write(args.out, rows, args.k, len(questions), stats, info["query_model_id"])
    return 0


FIRST_QUERY = """
import sys, time
t0 = time.perf_counter()
from chunkwise.wiring.embedders import get_embedder
from chunkwise.index.bodies import IndexNames
from chunkwise.adapters.opensearch.index import connect
from chunkwise.adapters.opensearch.search import Searcher
s = Searcher(connect(sys.argv[1]), get_embedder("local"), IndexNames(sys.argv[2]),
             fusion="server", query_embedding=sys.argv[3])
hits = s.search("How often must the inlet filter be checked?", 5)
assert hits
print(1000 * (time.perf_counter() - t0))
"""


def _first_query_ms(mode: str, url: str, prefix: str) -> float:
    """A cold query process: imports, searcher, first search (client: + model load)."""
    out = subprocess.run(
        [sys.executable, "-c", FIRST_QUERY, url, prefix, mode],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout
    return float(out.strip().splitlines()[-1])


def _compare(client: Any, emb: Any, names: Any, questions: Sequence[Any], k: int) -> dict[str, Any]:
    mine = Searcher(client, emb, names, fusion="server")
    cluster = Searcher(client, emb, names, fusion="server", query_embedding="cluster")
    f = SearchFilters()
    window = k * mine.candidates
    same_hybrid: dict[str, list[bool]] = {}
    same_vector: dict[str, list[bool]] = {}
    ms: dict[str, list[float]] = {"client": [], "cluster": []}
    for q in questions:
        lang = guess_query_lang(q.question)
        # Warm both paths once per question so that neither pays the other's cache misses.
        mine.search(q.question, k, f)
        a, t_a = _timed(lambda q=q: _ids(mine.search(q.question, k, f)))
        b, t_b = _timed(lambda q=q: _ids(cluster.search(q.question, k, f)))
        ms["client"].append(t_a)
        ms["cluster"].append(t_b)
        # A language the model does not read is answered by BM25 on both paths.
        group = q.lang if mine.embedder_reads(lang) else f"{q.lang} (BM25 only)"
        same_hybrid.setdefault(group, []).append(a == b)
        vec = emb.embed_query(q.question)
        knn = client.search(index=names.read_alias, body=knn_query(vec, window, f))
        neural = client.search(index=names.read_alias, body=neural_query(q.question, window, f))
        va = _ids(postprocess(hits_from_response(knn, "knn"), k))
        vb = _ids(postprocess(hits_from_response(neural, "knn"), k))
        same_vector.setdefault(q.lang, []).append(va == vb)
    return {"hybrid": same_hybrid, "vector": same_vector, "ms": ms}


def _write(
    out: Path, rows: dict[str, Any], k: int, n: int, stats: dict[str, Any], model_id: str
) -> None:
    load = os.getloadavg()
    lines = [
        "# Query paths: embedded by chunkwise vs embedded by the cluster",
        "",
        f"`python -m bench.query_paths --k {k}`: {n} questions of bench/eval/questions.jsonl "
        f"on the evaluation corpus (chunkwise configuration, {stats.get('chunks', '?')} chunks), "
        f"local node, ML Commons model {model_id} -> loopback endpoint "
        f"({default_embedder().name}). Load average at the end: "
        f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} on {os.cpu_count()} cores "
        f"({platform.machine()}, Python {sys.version.split()[0]}).",
        "",
        f"Identical top {k} (same chunks, same order):",
        "",
        "| retriever | lang | questions | identical |",
        "| --- | --- | ---: | ---: |",
    ]
    for retriever in ("hybrid", "vector"):
        for lang, same in sorted(rows[retriever].items()):
            lines.append(f"| {retriever} | {lang} | {len(same)} | {sum(same)} |")
    lines += [
        "",
        "Latency per question (ms; client = query embedding + search):",
        "",
        "| path | p50 | p95 |",
        "| --- | ---: | ---: |",
    ]
    for path, values in rows["ms"].items():
        lines.append(f"| {path} | {_pct(values, 50):.1f} | {_pct(values, 95):.1f} |")
    first = rows["first"]
    runs = len(first["client"])
    lines += [
        "",
        f"First query of a fresh process (imports, searcher, first search; median of {runs}"
        " runs, ms): the client path loads the local model's weights to embed the query,",
        "the cluster path never loads them.",
        "",
        "| path | median | min | max |",
        "| --- | ---: | ---: | ---: |",
    ]
    for path, values in first.items():
        lines.append(
            f"| {path} | {statistics.median(values):.0f} | {min(values):.0f} | {max(values):.0f} |"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
