"""Bulk phase of the scale benchmark: `_bulk` of chunks with 384-d vectors into a
scratch generation, under the backfill settings and under the defaults."""

from __future__ import annotations

import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from bench.scale.load import load_now
from chunkwise import chunk_text
from chunkwise.adapters.opensearch.backfill import OpenSearchBackfill, backfilling
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.retries import bulk_with_retries
from chunkwise.index.backfill import BackfillSpec
from chunkwise.index.documents import bulk_actions
from chunkwise.index.names import make_doc_id
from chunkwise.index.states import State
from chunkwise.schema import Chunk

if TYPE_CHECKING:
    from bench.scale.phases import Bench

#: Concurrent bulk streams: one per core of the local node, as a backfill of several
#: workers sends them.
STREAMS = 2
BATCH = 500
#: Documents of the bulk phase are numbered apart from the ingested ones.
FIRST_DOC = 1_000_000


def make_chunks(
    bench: Bench, n_chunks: int, first: int = FIRST_DOC, prefix: str = "bulk"
) -> list[Chunk]:
    out: list[Chunk] = []
    n = first
    while len(out) < n_chunks:
        doc = bench.gen.document(n)
        key = f"{prefix}/{doc.key}"
        stamp = {"doc_id": make_doc_id("bulk", key), "source_key": key, "revision": "v1"}
        out += [c.model_copy(update=stamp) for c in chunk_text(doc.text, lang=doc.lang)]
        n += 1
    return out[:n_chunks]


def _send(bench: Bench, actions: list[dict[str, Any]]) -> float:
    parts = [actions[i::STREAMS] for i in range(STREAMS)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(STREAMS) as ex:
        for r in ex.map(lambda p: bulk_with_retries(bench.client, p, batch_size=BATCH), parts):
            if r.failed:
                raise SystemExit(f"bulk: {len(r.failed)} chunks rejected: {r.failed[:2]}")
    return time.perf_counter() - t0


def one_run(
    bench: Bench,
    mode: str,
    chunks: list[Chunk],
    vectors: list[list[float]],
    spec: BackfillSpec | None = None,
) -> dict[str, Any]:
    """``spec`` None: the generation's own settings; else under `backfilling(spec)`.
    Either way the run ends like a backfill (refresh, force merge to one segment), so
    that both figures include the graph work the merges owe."""
    emb = bench.embedder
    index = OpenSearchIndex(bench.client, bench.settings.names).create_generation(
        f"bulk{mode}", dimension=emb.dimension, embedder_name=emb.name
    )
    actions = list(bulk_actions(chunks, vectors, index=index, state=State.LIVE))
    load = load_now()
    ctx = contextlib.nullcontext() if spec is None else backfilling(bench.client, index, spec)
    with ctx:
        seconds = _send(bench, actions)
    segments = OpenSearchBackfill(bench.client, index).segments()
    finish = OpenSearchBackfill(bench.client, index).finish(max_segments=1, warmup=True)
    bench.client.indices.delete(index=index)
    after = seconds + finish.refresh_s + finish.merge_s + finish.warmup_s
    return {
        "chunks": len(actions),
        "bulk_s": round(seconds, 1),
        "chunks_per_s": round(len(actions) / seconds),
        "refresh_interval": spec.refresh_interval if spec else "1s (default)",
        "segments_before_merge": segments,
        "refresh_s": round(finish.refresh_s, 1),
        "force_merge_s": round(finish.merge_s, 1),
        "segments_after": finish.segments,
        "chunks_per_s_incl_finish": round(len(actions) / after),
        "load_before": load,
        "load_after": load_now(),
    }


def bulk_phase(bench: Bench, n_chunks: int) -> dict[str, Any]:
    chunks = make_chunks(bench, n_chunks)
    vectors = [bench.embedder.vector(c.text) for c in chunks]
    out: dict[str, Any] = {"streams": STREAMS, "batch": BATCH}
    out["default"] = one_run(bench, "default", chunks, vectors)
    for refresh in bench.args.bulk_refresh.split(","):
        spec = BackfillSpec(refresh_interval=refresh)
        out[f"backfill_{refresh}"] = one_run(
            bench, "bf" + refresh.replace("-", "off"), chunks, vectors, spec
        )
    return out


#: Preloaded documents are numbered apart from the ingested and the bulk ones.
PRELOAD_DOC = 2_000_000


def preload_phase(bench: Bench, n_chunks: int) -> dict[str, Any]:
    """Chunks written straight into the live generation under the backfill settings
    (a bulk load, not the revision protocol): the size the query phase runs at, when
    the ingest phase is shortened (``--preload``)."""
    chunks = make_chunks(bench, n_chunks, PRELOAD_DOC, "preload")
    vectors = [bench.embedder.vector(c.text) for c in chunks]
    (index,) = bench.client.indices.get_alias(name=bench.settings.names.write_alias)
    actions = list(bulk_actions(chunks, vectors, index=index, state=State.LIVE))
    load = load_now()
    with backfilling(bench.client, index):
        seconds = _send(bench, actions)
    finish = OpenSearchBackfill(bench.client, index).finish(max_segments=1, warmup=True)
    return {
        "chunks": len(actions),
        "bulk_s": round(seconds, 1),
        "chunks_per_s": round(len(actions) / seconds),
        "force_merge_s": round(finish.merge_s, 1),
        "segments_after": finish.segments,
        "load_before": load,
        "load_after": load_now(),
    }
