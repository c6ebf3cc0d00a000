"""The phases of the scale benchmark (see bench.scale.run)."""

from __future__ import annotations

import argparse
import multiprocessing
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.scale.corpus import Document, Generator
from bench.scale.fake_embed import FixedCostEmbedder, install
from bench.scale.load import IDLE_S, load_now
from bench.scale.queries import (
    KINDS,
    Latencies,
    measure,
    percentiles,
    sample_queries,
)
from chunkwise.adapters.opensearch.client import connect
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.index.names import make_doc_id
from chunkwise.localstack.config import StackConfig
from chunkwise.localstack.emulator import RunStats, run_workers
from chunkwise.localstack.resources import queue_depths
from chunkwise.localstack.stack import delete_resources, stack_up
from chunkwise.search.fusion import DEFAULT_FUSION
from chunkwise.search.hybrid import SearchFilters

UPLOAD_THREADS = 8


def cpu_model() -> str:
    """The CPU the figures were taken on (they depend on it)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or "unknown"


def _cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine (/proc/stat), every process counted."""
    with open("/proc/stat", encoding="utf-8") as f:
        parts = [float(x) for x in f.readline().split()[1:]]
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0.0)
    return sum(parts) - idle, sum(parts)


class LoadSampler(threading.Thread):
    """The machine's load while a phase runs: the 1-minute load average and the share
    of all CPUs busy (any process: other sessions' tests show here), once a second."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.loads: list[float] = []
        self.busy: list[float] = []

    def run(self) -> None:
        last = _cpu_times()
        while not self.stop.wait(1.0):
            now = _cpu_times()
            total = now[1] - last[1]
            if total > 0:
                self.busy.append((now[0] - last[0]) / total)
            last = now
            self.loads.append(load_now())

    def summary(self) -> dict[str, Any]:
        self.stop.set()
        self.join(timeout=5)
        if not self.loads:
            return {}
        return {
            "load_min": min(self.loads),
            "load_mean": round(sum(self.loads) / len(self.loads), 2),
            "load_max": max(self.loads),
            "cpu_busy_mean": round(sum(self.busy) / max(len(self.busy), 1), 3),
            "cpu_busy_max": round(max(self.busy, default=0.0), 3),
        }


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        import boto3

        self.args = args
        self.gen = Generator(args.seed)
        # on the running services (the environment's, else this checkout's ports)
        self.cfg = StackConfig.throwaway("scale", visibility_timeout=600)
        stack_up(self.cfg, start=False)
        from chunkwise.settings import load_settings

        self.settings = load_settings()
        self.s3 = boto3.client("s3", endpoint_url=self.cfg.endpoint, region_name=self.cfg.region)
        self.client = connect(self.cfg.opensearch_url, timeout=120)
        self.read_alias = self.settings.names.read_alias
        self.embedder = FixedCostEmbedder(sleep_per_call=0.0)
        self.searcher = Searcher(self.client, self.embedder, self.settings.names)
        self.calls: Any = multiprocessing.get_context("spawn").Value("i", 0)
        self.versions: dict[str, str] = {}  # S3 key -> current version id
        self.ingested = 0  # documents 0..ingested-1 are in the bucket

    # ------------------------------------------------------------------ helpers
    def _put(self, doc: Document) -> tuple[str, str]:
        key = f"{self.cfg.input_prefix}{doc.key}"
        r = self.s3.put_object(
            Bucket=self.cfg.bucket, Key=key, Body=doc.text.encode(), ContentType="text/markdown"
        )
        return key, str(r["VersionId"])

    def upload(self, docs: Iterable[Document]) -> float:
        t0 = time.perf_counter()
        with ThreadPoolExecutor(UPLOAD_THREADS) as ex:
            for key, version in ex.map(self._put, docs):
                self.versions[key] = version
        return time.perf_counter() - t0

    def wait_queued(self, n: int, timeout: float = 300.0) -> None:
        """Until the bucket's notifications of ``n`` uploads are all on the queue."""
        deadline = time.monotonic() + timeout
        while queue_depths(self.cfg)["queue"] < n:
            if time.monotonic() > deadline:
                raise SystemExit(f"only {queue_depths(self.cfg)} of {n} notifications queued")
            time.sleep(0.5)

    def live_chunks(self) -> int:
        body = {"query": {"bool": {"filter": SearchFilters().clauses()}}}
        self.client.indices.refresh(index=self.read_alias)
        return int(self.client.count(index=self.read_alias, body=body)["count"])

    def workers(self, n: int, **kw: Any) -> RunStats:
        return run_workers(
            self.cfg,
            n,
            initializer=install,
            initargs=(self.calls, self.args.sleep),
            **kw,
        )

    # ------------------------------------------------------------------ phases
    def run(
        self, phases: list[str], more: Mapping[str, Callable[[Bench], dict[str, Any]]]
    ) -> dict[str, Any]:
        """Run the phases in order: this class's ``phase_<name>`` methods and ``more``
        (the phases of their own modules, bench.scale.bulk and .swap, given by run.py)."""
        out: dict[str, Any] = {"config": self.describe()}
        for name in phases:
            key = name if name not in out else f"{name}_after_swap"
            waited = self.wait_for_quiet()
            print(f"scale: phase {key} (load {load_now()}, waited {waited} s)", flush=True)
            t0 = time.perf_counter()
            out[key] = more[name](self) if name in more else getattr(self, f"phase_{name}")()
            out[key + "_seconds"] = round(time.perf_counter() - t0)
            print(f"scale: {key}: {out[key]}", flush=True)
        return out

    def wait_for_quiet(self) -> int:
        """Before a phase: until the 1-minute load is under --max-load (at most
        --quiet-wait seconds; the phase records the load it started at either way)."""
        t0 = time.monotonic()
        while load_now() >= self.args.max_load and time.monotonic() - t0 < self.args.quiet_wait:
            time.sleep(5)
        return round(time.monotonic() - t0)

    def describe(self) -> dict[str, Any]:
        import os

        info = self.client.info()["version"]["number"]
        nodes = self.client.nodes.info(metric="jvm")["nodes"]
        heap = [n["jvm"]["mem"]["heap_max_in_bytes"] // 2**20 for n in nodes.values()]
        args = [a for n in nodes.values() for a in n["jvm"].get("input_arguments", [])]
        return {
            "docs": self.args.docs,
            "seed": self.args.seed,
            "text_source": self.gen.source,
            "fake_embed_sleep_per_call_s": self.args.sleep,
            "opensearch": info,
            "heap_mb": heap,
            "c1_only_jit": any("TieredStopAtLevel=1" in a for a in args),
            "cpu_model": cpu_model(),
            "cpus": os.cpu_count(),
        }

    def phase_ingest(self) -> dict[str, Any]:
        counts = [int(w) for w in self.args.workers.split(",")]
        shares = [float(s) for s in self.args.shares.split(",")]
        sizes = [round(self.args.docs * s) for s in shares]
        sizes[-1] = self.args.docs - sum(sizes[:-1])
        if not self.args.ingest_backfill:
            return {"slices": [self._slice(w, n) for w, n in zip(counts, sizes, strict=True)]}
        # The first load of a store is a backfill: `chunkwise backfill`'s settings on the
        # live generation while the slices drain, then its refresh, merge and warmup.
        from chunkwise.adapters.opensearch.backfill import backfilling

        (index,) = self.client.indices.get_alias(name=self.settings.names.write_alias)
        with backfilling(self.client, index) as backfill:
            slices = [self._slice(w, n) for w, n in zip(counts, sizes, strict=True)]
        finish = backfill.finish(max_segments=1, warmup=True)
        return {
            "slices": slices,
            "under_backfill_settings": True,
            "force_merge_s": round(finish.merge_s, 1),
            "segments_after": finish.segments,
        }

    def _slice(self, workers: int, n: int) -> dict[str, Any]:
        upload_s = self.upload(self.gen.documents(n, self.ingested))
        self.ingested += n
        self.wait_queued(n)
        chunks0, calls0, load = self.live_chunks(), self.calls.value, load_now()
        t0 = time.time()
        stats = self.workers(workers, until_idle=IDLE_S)
        wall = stats.last_done - stats.first_poll
        slept = (self.calls.value - calls0) * self.args.sleep / workers
        chunks = self.live_chunks() - chunks0
        return {
            "workers": workers,
            "docs": stats.succeeded,
            "failed": stats.failed,
            "chunks": chunks,
            "upload_s": round(upload_s, 1),
            "startup_s": round(stats.first_poll - t0, 1),
            "wall_s": round(wall, 1),
            "embed_sleep_s_per_worker": round(slept, 1),
            "docs_per_s": round(stats.succeeded / wall, 1),
            "docs_per_s_excl_embed": round(stats.succeeded / (wall - slept), 1),
            "chunks_per_s": round(chunks / wall, 0),
            "load_before": load,
            "load_after": load_now(),
        }

    def phase_queries(self) -> dict[str, Any]:
        """Latency at the current size while revisions arrive at --ingest-rate."""
        queries = sample_queries(
            self.gen, self.ingested, self.args.query_rounds + 50, self.embedder
        )
        stop = threading.Event()
        revised: list[float] = []  # when each revision was uploaded
        writer = threading.Thread(target=self._revise, args=(stop, revised), daemon=True)
        stats: list[RunStats] = []
        worker = threading.Thread(
            target=lambda: stats.append(self.workers(1, until_idle=IDLE_S)), daemon=True
        )
        load = load_now()
        writer.start()
        worker.start()
        time.sleep(5.0)  # the worker's cold start, not part of the measurement
        segments_before = self.segments()
        sampler = LoadSampler()
        sampler.start()
        t0 = time.perf_counter()
        lat = measure(
            self.client, self.read_alias, DEFAULT_FUSION.pipeline_name, queries, self.searcher
        )
        elapsed = time.perf_counter() - t0
        during = sampler.summary()
        stop.set()
        writer.join()
        worker.join()
        uploads = sum(1 for t in revised if t >= t0)
        return {
            "chunks": self.live_chunks(),
            **self.latency_summary(lat),
            "uploads_per_s": round(uploads / elapsed, 2),
            "revisions_indexed": stats[0].succeeded,
            "load_before": load,
            "load_after": load_now(),
            "during": during,
            "segments_before": segments_before,
            "segments_after": self.segments(),
        }

    def segments(self) -> int:
        """Searchable segments of the live generation (each is searched per query)."""
        resp = self.client.indices.segments(index=self.read_alias)
        return sum(
            len(copy["segments"])
            for index in resp["indices"].values()
            for shard in index["shards"].values()
            for copy in shard
            if copy["routing"]["primary"]
        )

    def _revise(self, stop: threading.Event, revised: list[float]) -> None:
        """New revisions of already indexed documents at --ingest-rate per second."""
        period = 1.0 / self.args.ingest_rate
        n = 0
        next_at = time.perf_counter()
        while not stop.is_set():
            doc = self.gen.document(n % max(1, self.ingested), revision=1 + n // self.ingested)
            key, version = self._put(doc)
            self.versions[key] = version
            revised.append(time.perf_counter())
            n += 1
            next_at += period
            time.sleep(max(0.0, next_at - time.perf_counter()))

    @staticmethod
    def latency_summary(lat: Latencies) -> dict[str, Any]:
        return {
            "rounds": len(lat.took_ms["bm25"]),
            "errors": lat.errors,
            "took_ms": {k: percentiles(lat.took_ms[k]) for k in KINDS},
            "client_ms": {k: percentiles(v) for k, v in lat.client_ms.items()},
        }

    def current_markers(self) -> dict[str, tuple[str, str]]:
        from bench.scale.corpus import marker_for

        out = {}
        for n in range(self.ingested):
            key = f"{self.cfg.input_prefix}{self.gen.document(n).key}"
            out[marker_for(self.gen.seed, n)] = (
                make_doc_id(self.cfg.bucket, key),
                self.versions[key],
            )
        return out

    def cleanup(self) -> list[str]:
        return delete_resources(self.cfg, self.client)
