"""Swap phase of the scale benchmark: re-chunk everything into a new generation under
the backfill settings while a prober searches, then verify and swap the aliases."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from bench.scale.load import IDLE_S, load_now
from bench.scale.queries import SwapProbe, measure, sample_queries
from chunkwise.adapters.opensearch.backfill import OpenSearchBackfill, backfilling
from chunkwise.search.fusion import DEFAULT_FUSION
from chunkwise.wiring.operations import finish_rechunk, start_rechunk

if TYPE_CHECKING:
    from bench.scale.phases import Bench

WORKERS = 4
AFTER_SWAP_S = 10.0


def swap_phase(bench: Bench) -> dict[str, Any]:
    swapped = threading.Event()
    probe = SwapProbe(
        bench.client,
        bench.read_alias,
        bench.searcher,
        bench.current_markers(),
        swapped=swapped.is_set,
    )
    load = load_now()
    probe.start()
    gen, enqueued = start_rechunk(bench.settings, embedder=bench.embedder)
    index = bench.settings.names.index(gen)
    calls0 = bench.calls.value
    with backfilling(bench.client, index):
        stats = bench.workers(WORKERS, until_idle=IDLE_S)
    wall = stats.last_done - stats.first_poll
    slept = (bench.calls.value - calls0) * bench.args.sleep / WORKERS
    finish = OpenSearchBackfill(bench.client, index).finish(max_segments=1, warmup=True)
    check = finish_rechunk(bench.settings, gen)
    swapped.set()
    time.sleep(AFTER_SWAP_S)
    probe.stop.set()
    probe.join()
    chunks = bench.live_chunks()
    result = {
        "generation": gen,
        "enqueued": enqueued,
        "docs": stats.succeeded,
        "failed": stats.failed,
        "wall_s": round(wall, 1),
        "docs_per_s": round(stats.succeeded / wall, 1),
        "docs_per_s_excl_embed": round(stats.succeeded / (wall - slept), 1),
        "chunks": chunks,
        "chunks_per_s": round(chunks / wall),
        "refresh_s": round(finish.refresh_s, 1),
        "force_merge_s": round(finish.merge_s, 1),
        "warmup_s": round(finish.warmup_s, 1),
        "segments_after": finish.segments,
        "verified_complete": check.complete,
        "missing": len(check.missing),
        "extra": len(check.extra),
        "probe": vars(probe.result),
        "load_before": load,
        "load_after": load_now(),
    }
    queries = sample_queries(bench.gen, bench.ingested, 250, bench.embedder)
    result["after"] = bench.latency_summary(
        measure(
            bench.client, bench.read_alias, DEFAULT_FUSION.pipeline_name, queries, bench.searcher
        )
    )
    return result
