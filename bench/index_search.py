"""Benchmark: bulk indexing throughput and hybrid query latency on the local node.

    .venv/bin/python -m bench.index_search [--chunks 10000] [--unique 2000] [--queries 200]
                                           [--url http://127.0.0.1:9200] [--embed-all]

Corpus: synthetic English/German chunks (~40-60 words) from templates, >= 10,000.
Embedding (all-MiniLM-L6-v2, numpy, CPU) is timed separately from indexing:
by default `--unique` chunks are embedded with the real model and the rest
reuse those vectors with small Gaussian noise (re-normalised), so HNSW sees a
realistic spread without an hour of CPU embedding; `--embed-all` embeds every
chunk. Then:

1. bulk indexing: every chunk as one `_bulk` stream (500 per request) into a
   fresh generation, then a refresh: chunks/s.
2. revision protocol: full `reconcile` (pending write, flip, supersede, S3
   re-check) for a sample of documents: documents/s.
3. queries: hybrid search through the read alias, server-side RRF pipeline and
   client-side RRF, k=5: p50/p95 latency; query embedding timed apart.

Writes bench/results/index_search.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from chunkwise.adapters.opensearch.heads import OpenSearchSwitchIndex
from chunkwise.adapters.opensearch.index import OpenSearchIndex, bulk_with_retries, connect
from chunkwise.adapters.opensearch.search import Searcher, ensure_search_pipelines
from chunkwise.index.bodies import (
    IndexNames,
    ObjectVersion,
    State,
    bulk_actions,
    make_doc_id,
)
from chunkwise.ingest.revisions import Loaded, RevisionSwitch
from chunkwise.models.local import default_embedder
from chunkwise.schema import Chunk

RESULTS = Path(__file__).parent / "results" / "index_search.md"

EN_SUBJ = [
    "The tenant",
    "The landlord",
    "The supplier",
    "The customer",
    "The auditor",
    "The engineer",
    "The committee",
    "The hospital",
    "The school",
    "The council",
]
EN_VERB = [
    "must notify",
    "may terminate",
    "shall review",
    "will inspect",
    "can request",
    "should document",
    "has to approve",
    "agrees to pay",
    "needs to report",
    "refuses",
]
EN_OBJ = [
    "the annual budget",
    "the safety report",
    "the rental contract",
    "the delivery terms",
    "the invoice",
    "the maintenance plan",
    "the data protection policy",
    "the emergency procedure",
    "the warranty claim",
    "the quarterly figures",
]
EN_TAIL = [
    "within thirty days",
    "before the end of the quarter",
    "in writing",
    "after the inspection",
    "unless agreed otherwise",
    "according to section 4",
    "at least once a year",
    "without undue delay",
]
DE_SUBJ = [
    "Der Mieter",
    "Die Vermieterin",
    "Der Lieferant",
    "Die Kundin",
    "Der Prüfer",
    "Die Ingenieurin",
    "Der Ausschuss",
    "Das Krankenhaus",
    "Die Schule",
    "Der Gemeinderat",
]
DE_VERB = [
    "muss mitteilen",
    "darf kündigen",
    "prüft",
    "besichtigt",
    "beantragt",
    "dokumentiert",
    "genehmigt",
    "bezahlt",
    "meldet",
    "lehnt ab",
]
DE_OBJ = [
    "den Jahreshaushalt",
    "den Sicherheitsbericht",
    "den Mietvertrag",
    "die Lieferbedingungen",
    "die Rechnung",
    "den Wartungsplan",
    "die Datenschutzerklärung",
    "das Notfallverfahren",
    "den Garantieanspruch",
    "die Quartalszahlen",
]
DE_TAIL = [
    "innerhalb von dreißig Tagen",
    "vor Quartalsende",
    "schriftlich",
    "nach der Besichtigung",
    "sofern nichts anderes vereinbart ist",
    "gemäß Abschnitt 4",
    "mindestens einmal jährlich",
    "unverzüglich",
]


def _sentence(rng: random.Random, lang: str) -> str:
    if lang == "de":
        return (
            f"{rng.choice(DE_SUBJ)} {rng.choice(DE_VERB)} {rng.choice(DE_OBJ)} "
            f"{rng.choice(DE_TAIL)}."
        )
    return (
        f"{rng.choice(EN_SUBJ)} {rng.choice(EN_VERB)} {rng.choice(EN_OBJ)} {rng.choice(EN_TAIL)}."
    )


def make_corpus(n_chunks: int, per_doc: int, seed: int = 7) -> list[list[Chunk]]:
    rng = random.Random(seed)
    docs: list[list[Chunk]] = []
    n_docs = (n_chunks + per_doc - 1) // per_doc
    for d in range(n_docs):
        lang = "de" if d % 3 == 0 else "en"
        key = f"bench/{lang}/doc-{d:05d}.md"
        doc_id = make_doc_id("bench", key)
        v = ObjectVersion("2025-06-01T00:00:00Z", "v1", key=key, bucket="bench")
        chunks, pos = [], 0
        for i in range(per_doc):
            body = " ".join(_sentence(rng, lang) for _ in range(rng.randint(4, 6)))
            chunks.append(
                Chunk(
                    doc_id=doc_id,
                    source_key=key,
                    revision=v.revision,
                    last_modified=v.last_modified,
                    chunk_index=i,
                    start=pos,
                    end=pos + len(body),
                    byte_start=pos,
                    byte_end=pos + len(body.encode()),
                    body=body,
                    text=body,
                    heading_path=[f"Section {i // 3 + 1}"],
                    token_count=0,
                    lang=lang,
                    page_start=i // 4 + 1,
                    page_end=i // 4 + 1,
                )
            )
            pos += len(body) + 2
        docs.append(chunks)
    return docs


def pct(values: Sequence[float], p: float) -> float:
    return float(np.percentile(np.array(values), p))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--url", default=os.environ.get("OPENSEARCH_URL", "http://127.0.0.1:9200"))
    ap.add_argument("--chunks", type=int, default=10_000)
    ap.add_argument("--per-doc", type=int, default=10)
    ap.add_argument("--unique", type=int, default=2_000, help="chunks embedded for real")
    ap.add_argument("--embed-all", action="store_true")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--reconcile-docs", type=int, default=50)
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args(argv)

    load_before = os.getloadavg()
    emb = default_embedder()
    client = connect(args.url, timeout=120)
    info = client.info()
    docs = make_corpus(args.chunks, args.per_doc)
    chunks = [c for d in docs for c in d]
    n = len(chunks)
    print(f"corpus: {n} chunks in {len(docs)} documents", file=sys.stderr)

    # -- embedding (separate from indexing)
    emb.embed(["warm up"])
    n_real = n if args.embed_all else min(args.unique, n)
    tokens = sum(emb.count_tokens(c.text) for c in chunks[:n_real])
    t0 = time.perf_counter()
    real = emb.embed([c.text for c in chunks[:n_real]])
    t_embed = time.perf_counter() - t0
    print(f"embedded {n_real} chunks in {t_embed:.1f}s", file=sys.stderr)
    rng = np.random.default_rng(1)
    base = np.array(real, dtype=np.float32)
    vectors: list[list[float]] = list(real)
    for i in range(n_real, n):
        v = base[i % n_real] + rng.normal(0, 0.02, base.shape[1]).astype(np.float32)
        vectors.append((v / np.linalg.norm(v)).tolist())

    names = IndexNames(f"bench-{uuid.uuid4().hex[:8]}")
    ix = OpenSearchIndex(client, names)
    try:
        ix.create_generation("g1", dimension=emb.dimension, embedder_name=emb.name)
        ix.swap("g1")
        # -- 1. bulk indexing
        actions = list(bulk_actions(chunks, vectors, index=names.write_alias, state=State.LIVE))
        t0 = time.perf_counter()
        res = bulk_with_retries(client, actions, batch_size=500)
        client.indices.refresh(index=names.write_alias)
        t_bulk = time.perf_counter() - t0
        assert not res.failed, res.failed[:1]
        count = client.count(index=names.read_alias)["count"]
        assert count == n, (count, n)
        print(f"bulk: {n} chunks in {t_bulk:.1f}s", file=sys.stderr)

        # -- 2. full revision protocol per document (new revision of sample docs)
        class _S3:
            def head_current(self, key: str) -> ObjectVersion | None:
                return ObjectVersion("2025-06-02T00:00:00Z", "v2", key=key, bucket="bench")

        sample = docs[: args.reconcile_docs]
        vec_of = {c.chunk_id: vectors[i] for i, c in enumerate(chunks)}
        t0 = time.perf_counter()
        port = OpenSearchSwitchIndex(ix)
        for d in sample:
            # one document per switch, as the protocol measure always was (per document)
            RevisionSwitch(
                port,
                _S3().head_current,
                lambda items, d=d: {
                    d[0].doc_id: Loaded(
                        [c.model_copy(update={"revision": "v2"}) for c in d],
                        [vec_of[c.chunk_id] for c in d],
                    )
                },
            ).run({d[0].doc_id: d[0].source_key})
        t_rec = time.perf_counter() - t0
        rec_chunks = sum(len(d) for d in sample)

        # -- 3. queries
        qrng = random.Random(3)
        queries = [
            " ".join(_sentence(qrng, "de" if i % 3 == 0 else "en").split()[: qrng.randint(3, 7)])
            for i in range(args.queries)
        ]
        t0 = time.perf_counter()
        qvecs = {q: emb.embed_query(q) for q in queries}
        t_qembed = (time.perf_counter() - t0) / len(queries)

        class _Cached:
            name, dimension, max_tokens, batch_size = emb.name, emb.dimension, emb.max_tokens, 1

            def count_tokens(self, text: str) -> int:
                return emb.count_tokens(text)

            def embed(self, texts: Sequence[str]) -> list[list[float]]:
                return [qvecs[t] for t in texts]

            def embed_query(self, text: str) -> list[float]:
                return qvecs[text]

        lat: dict[str, list[float]] = {}
        ensure_search_pipelines(client)  # the deploy-time step; searching only reads
        for fusion in ("server", "client"):
            s = Searcher(client, _Cached(), names, fusion=fusion)  # type: ignore[arg-type]
            for q in queries[:10]:
                s.search(q, k=5)  # warm-up
            times = []
            for q in queries:
                t0 = time.perf_counter()
                hits = s.search(q, k=5)
                times.append((time.perf_counter() - t0) * 1000)
                assert hits
            lat[fusion] = times
    finally:
        for g in ix.generations():
            ix.drop(g, force=True)

    load_after = os.getloadavg()
    cpu = platform.processor() or platform.machine()
    cmd = argv if argv is not None else sys.argv[1:]
    lines = [
        "# Index and hybrid search benchmark",
        "",
        f"Command: `.venv/bin/python -m bench.index_search {' '.join(cmd)}`".rstrip(),
        "",
        f"- OpenSearch {info['version']['number']} single local node (k-NN lucene HNSW m=16, "
        "ef_construction=128, cosine; neural-search for server-side RRF), 1 shard, 0 replicas",
        f"- machine: {os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}; "
        "other sessions shared the machine, so figures are indicative "
        f"(1-min load average {load_before[0]:.1f} at start, {load_after[0]:.1f} at end)",
        f"- embedder BLAS threads: {os.environ.get('CHUNKWISE_EMBED_THREADS', '1')}",
        f"- corpus: {n} chunks in {len(docs)} documents (2/3 English, 1/3 German), "
        f"~{tokens / n_real:.0f} tokens per chunk, 384-dim vectors",
        "",
        "## Embedding (all-MiniLM-L6-v2, numpy on CPU; timed apart from indexing)",
        "",
        "| chunks embedded | tokens | seconds | chunks/s | tokens/s |",
        "|---:|---:|---:|---:|---:|",
        f"| {n_real} | {tokens} | {t_embed:.1f} | {n_real / t_embed:.1f} "
        f"| {tokens / t_embed:.0f} |",
        "",
        (
            f"The other {n - n_real} chunks reuse those vectors with small noise (re-normalised); "
            "`--embed-all` embeds every chunk."
            if n_real < n
            else "Every chunk was embedded."
        ),
        "",
        "## Indexing",
        "",
        "| path | chunks | seconds | chunks/s |",
        "|---|---:|---:|---:|",
        f"| `_bulk` (500/request, incl. final refresh) | {n} | {t_bulk:.1f} | {n / t_bulk:.0f} |",
        f"| revision protocol (`reconcile`: pending write, flip, supersede, S3 re-check), "
        f"{len(sample)} docs | {rec_chunks} | {t_rec:.1f} | {rec_chunks / t_rec:.0f} "
        f"({len(sample) / t_rec:.1f} docs/s) |",
        "",
        f"## Hybrid query latency (k=5, {len(queries)} queries, candidates 4k per retriever)",
        "",
        "| fusion | p50 ms | p95 ms | mean ms |",
        "|---|---:|---:|---:|",
    ]
    for fusion, times in lat.items():
        label = (
            "server-side RRF (hybrid query + score-ranker-processor pipeline)"
            if fusion == "server"
            else "client-side RRF (BM25 search + k-NN search, k=60)"
        )
        lines.append(
            f"| {label} | {pct(times, 50):.1f} | {pct(times, 95):.1f} | "
            f"{statistics.mean(times):.1f} |"
        )
    lines += [
        "",
        f"Query embedding (not included above): {t_qembed * 1000:.1f} ms per query on average.",
        "",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
