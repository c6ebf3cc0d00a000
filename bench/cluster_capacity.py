"""Capacity on one node and on the local 3-node cluster (#27 item 5): bulk indexing and
the revision protocol, the same corpus and the same code on each topology.

    python -m bench.cluster_capacity record [--chunks 20000] [--switch-docs 400]
    python -m bench.cluster_capacity report

``record`` runs against the services of the environment (``OPENSEARCH_URL``, one node
or the comma-separated nodes of the cluster; ``make capacity-cluster`` starts one node,
then three, and records each), with the generation layout of ``--shards``/``--replicas``
(default: 1/0 on one node, 3/1 on three, as ``scripts/with-services.sh`` sets them), and
writes bench/results/cluster_capacity/<nodes>-node.json. ``report`` prints and writes
the table of every recorded topology (bench/results/cluster_capacity.md).

Phases, each on a fresh generation:

1. bulk, serving settings: every chunk in ``_bulk`` requests of 500 with the
   generation's own settings (refresh every second, its replicas), then a refresh;
2. bulk, backfill settings (`chunkwise.index.backfill.BackfillSpec`: no periodic
   refresh, no replica, asynchronous translog) and their restore, then the time until
   the restored replicas are assigned and in sync (cluster health green for the index):
   what `chunkwise backfill` pays on each topology;
3. the revision protocol (`RevisionSwitch` over `OpenSearchSwitchIndex`, batches of 10
   as one SQS batch): the first revision of ``--switch-docs`` documents, then a new
   revision of every one (head read, pending write, compare-and-set commit, supersede).

Vectors are random unit vectors (the embedder's 384 dimensions; embedding is not what
is measured) and the chunks are `bench.index_search`'s generated English/German ones.
All nodes of the cluster run on this one machine and share its two cores: three nodes
here cannot show the scale-out of three machines, only what replication and the extra
coordination cost (each write is indexed on a primary and again on its replica).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from opensearchpy import TransportError

from bench.index_search import make_corpus
from chunkwise.adapters.opensearch.backfill import backfilling
from chunkwise.adapters.opensearch.client import connect
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.retries import bulk_with_retries
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.index.documents import bulk_actions
from chunkwise.index.names import IndexNames
from chunkwise.index.states import State
from chunkwise.index.versions import ObjectVersion
from chunkwise.ingest.revisions import Loaded, RevisionSwitch
from chunkwise.schema import Chunk

RESULTS = Path(__file__).resolve().parent / "results"
RECORDS = RESULTS / "cluster_capacity"
DIMENSION = 384
SWITCH_BATCH = 10


def unit_vectors(n: int, seed: int = 1) -> list[list[float]]:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, DIMENSION)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return [row.tolist() for row in v]


class Topology:
    """The services of the environment and the layout new generations get."""

    def __init__(self, url: str, shards: int, replicas: int) -> None:
        self.client = connect(url, timeout=120)
        self.nodes = len(self.client.cat.nodes(format="json"))
        self.version = str(self.client.info()["version"]["number"])
        self.shards, self.replicas = shards, replicas

    def generation(self) -> tuple[OpenSearchIndex, str]:
        names = IndexNames(f"cap-{uuid.uuid4().hex[:8]}")
        ix = OpenSearchIndex(self.client, names)
        index = ix.create_generation(
            "g1", dimension=DIMENSION, shards=self.shards, replicas=self.replicas
        )
        ix.swap("g1")
        self.green(index)
        return ix, index

    def green(self, index: str) -> float:
        """Seconds until every copy of ``index`` is assigned and started."""
        t0 = time.perf_counter()
        while True:  # the health call waits up to its own 30 s, then says so
            try:
                health = self.client.cluster.health(index=index, wait_for_status="green")
            except TransportError as exc:  # 408: the call's own wait ran out, not green yet
                if exc.status_code != 408:
                    raise
                health = {"status": "timed out", "info": str(exc.info)[:200]}
            if health["status"] == "green":
                break
            if time.perf_counter() - t0 > 600:
                raise TimeoutError(f"{index} not green after 600 s: {health}")
        return time.perf_counter() - t0

    @staticmethod
    def drop(ix: OpenSearchIndex) -> None:
        for g in ix.generations():
            ix.drop(g, force=True)


def load(top: Topology, index: str, chunks: list[Chunk], vectors: list[list[float]]) -> None:
    """Every chunk live in ``_bulk`` requests of 500, then a refresh; no item may fail."""
    res = bulk_with_retries(
        top.client,
        list(bulk_actions(chunks, vectors, index=index, state=State.LIVE)),
        batch_size=500,
    )
    top.client.indices.refresh(index=index)
    assert not res.failed, res.failed[:1]


def bulk_serving(top: Topology, chunks: list[Chunk], vectors: list[list[float]]) -> dict[str, Any]:
    ix, index = top.generation()
    try:
        t0 = time.perf_counter()
        load(top, index, chunks, vectors)
        seconds = time.perf_counter() - t0
        return {"seconds": round(seconds, 2), "chunks_per_s": round(len(chunks) / seconds, 1)}
    finally:
        top.drop(ix)


def bulk_backfill(top: Topology, chunks: list[Chunk], vectors: list[list[float]]) -> dict[str, Any]:
    ix, index = top.generation()
    try:
        t0 = time.perf_counter()
        with backfilling(top.client, index):
            load(top, index, chunks, vectors)
        loaded = time.perf_counter() - t0
        replicated = top.green(index)
        total = loaded + replicated
        return {
            "load_seconds": round(loaded, 2),
            "replicas_seconds": round(replicated, 2),
            "seconds": round(total, 2),
            "chunks_per_s": round(len(chunks) / total, 1),
        }
    finally:
        top.drop(ix)


def switch_rounds(
    top: Topology, docs: list[list[Chunk]], vectors: dict[str, list[float]]
) -> list[dict[str, Any]]:
    ix, _ = top.generation()
    revision: dict[str, str] = {}

    def current(key: str) -> ObjectVersion:
        return ObjectVersion("2026-12-03T00:00:00Z", revision[key], key=key, bucket="bench")

    def load(items: Sequence[tuple[str, str, ObjectVersion]]) -> dict[str, Loaded]:
        out = {}
        for doc_id, _key, v in items:
            chunks = [c.model_copy(update={"revision": v.revision}) for c in by_doc[doc_id]]
            out[doc_id] = Loaded(chunks, [vectors[c.chunk_id] for c in by_doc[doc_id]])
        return out

    by_doc = {d[0].doc_id: d for d in docs}
    rows = []
    try:
        port = OpenSearchSwitchIndex(ix)
        for rev, label in (("v1", "first revision"), ("v2", "new revision of every document")):
            statuses: dict[str, int] = {}
            for d in docs:
                revision[d[0].source_key] = rev
            t0 = time.perf_counter()
            for s in range(0, len(docs), SWITCH_BATCH):
                batch = {d[0].doc_id: d[0].source_key for d in docs[s : s + SWITCH_BATCH]}
                switch: RevisionSwitch[ObjectVersion] = RevisionSwitch(port, current, load)
                for o in switch.run(batch).values():
                    statuses[o.status] = statuses.get(o.status, 0) + 1
            seconds = time.perf_counter() - t0
            rows.append(
                {
                    "pass": label,
                    "documents": len(docs),
                    "seconds": round(seconds, 2),
                    "documents_per_s": round(len(docs) / seconds, 1),
                    "statuses": statuses,
                }
            )
    finally:
        top.drop(ix)
    return rows


def timed_load(fn: Callable[[], Any]) -> tuple[Any, list[float], list[float]]:
    before = [round(x, 2) for x in os.getloadavg()]
    out = fn()
    return out, before, [round(x, 2) for x in os.getloadavg()]


def record(args: argparse.Namespace) -> int:
    url = os.environ.get("OPENSEARCH_URL", "http://127.0.0.1:9200")
    probe = connect(url, timeout=30)
    nodes = len(probe.cat.nodes(format="json"))
    shards = args.shards or (3 if nodes >= 3 else 1)
    replicas = args.replicas if args.replicas is not None else (1 if nodes > 1 else 0)
    top = Topology(url, shards, replicas)
    docs = make_corpus(args.chunks, args.per_doc)
    chunks = [c for d in docs for c in d]
    vectors = unit_vectors(len(chunks))
    by_id = {c.chunk_id: v for c, v in zip(chunks, vectors, strict=True)}
    switch_docs = docs[: args.switch_docs]
    print(f"capacity: {top.nodes} node(s), {shards} shards, {replicas} replicas", file=sys.stderr)
    phases: dict[str, Any] = {}
    for name, fn in (
        ("bulk_serving", lambda: bulk_serving(top, chunks, vectors)),
        ("bulk_backfill", lambda: bulk_backfill(top, chunks, vectors)),
        ("switch", lambda: switch_rounds(top, switch_docs, by_id)),
    ):
        print(f"capacity: {name} ...", file=sys.stderr, flush=True)
        out, before, after = timed_load(fn)
        phases[name] = {"result": out, "load_before": before, "load_after": after}
        print(f"capacity: {name}: {out}", file=sys.stderr, flush=True)
    rec = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "opensearch": top.version,
        "nodes": top.nodes,
        "shards": shards,
        "replicas": replicas,
        "chunks": len(chunks),
        "switch_documents": len(switch_docs),
        "chunks_per_document": args.per_doc,
        "machine": f"{os.cpu_count()} CPUs ({platform.processor() or platform.machine()})",
        "phases": phases,
    }
    RECORDS.mkdir(parents=True, exist_ok=True)
    path = RECORDS / f"{top.nodes}-node.json"
    path.write_text(json.dumps(rec, indent=2) + "\n", encoding="utf-8")
    print(f"capacity: wrote {path}", file=sys.stderr)
    return 0


def report_text(records: Sequence[dict[str, Any]]) -> str:
    lines = [
        "# Capacity on one node and on the local 3-node cluster (`make capacity-cluster`)",
        "",
        "All nodes share one 2-core machine (see bench/cluster_capacity.py): the 3-node "
        "figures show what replication and coordination cost, not the scale-out of three "
        "machines. Load averages are the 1-minute mean before and after each phase.",
        "",
        "| topology | phase | chunks / documents | seconds | rate | detail | load before → after |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for r in records:
        topo = f"{r['nodes']} node(s), {r['shards']} shards, {r['replicas']} replicas"
        p = r["phases"]
        s = p["bulk_serving"]
        lines.append(
            f"| {topo} | bulk, serving settings | {r['chunks']} | {s['result']['seconds']} | "
            f"{s['result']['chunks_per_s']} chunks/s | refresh 1 s, replicas as set | "
            f"{s['load_before'][0]} → {s['load_after'][0]} |"
        )
        b = p["bulk_backfill"]
        lines.append(
            f"| {topo} | bulk, backfill settings + restore | {r['chunks']} | "
            f"{b['result']['seconds']} | {b['result']['chunks_per_s']} chunks/s | load "
            f"{b['result']['load_seconds']} s, replicas in sync {b['result']['replicas_seconds']}"
            f" s | {b['load_before'][0]} → {b['load_after'][0]} |"
        )
        w = p["switch"]
        for row in w["result"]:
            lines.append(
                f"| {topo} | revision protocol: {row['pass']} | {row['documents']} | "
                f"{row['seconds']} | {row['documents_per_s']} documents/s | {row['statuses']}, "
                f"batches of {SWITCH_BATCH} | {w['load_before'][0]} → {w['load_after'][0]} |"
            )
    meta = sorted({f"{r['date']}, OpenSearch {r['opensearch']}, {r['machine']}" for r in records})
    lines += ["", *(f"- recorded {m}" for m in meta)]
    return "\n".join(lines) + "\n"


def report(_: argparse.Namespace) -> int:
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(RECORDS.glob("*.json"))]
    if not records:
        print("capacity: nothing recorded yet (python -m bench.cluster_capacity record)")
        return 1
    text = report_text(records)
    print(text)
    (RESULTS / "cluster_capacity.md").write_text(text, encoding="utf-8")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.cluster_capacity")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="measure the topology of OPENSEARCH_URL")
    r.add_argument("--chunks", type=int, default=20_000)
    r.add_argument("--per-doc", type=int, default=10)
    r.add_argument("--switch-docs", type=int, default=400)
    r.add_argument("--shards", type=int, default=0, help="0: 3 on three nodes, else 1")
    r.add_argument("--replicas", type=int, default=None, help="default: 1 on a cluster, else 0")
    r.set_defaults(fn=record)
    sub.add_parser("report", help="the table of every recorded topology").set_defaults(fn=report)
    args = p.parse_args(argv)
    result: int = args.fn(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
