"""Query side of the scale benchmark: latency sampling and the swap-consistency check."""

from __future__ import annotations

import random
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.scale.corpus import Generator
from bench.scale.fake_embed import FixedCostEmbedder
from chunkwise.search.hybrid import SearchFilters, bm25_query, hybrid_query, knn_query

K = 5
WINDOW = 20  # k x candidates, as the query function asks
KINDS = ("bm25", "knn", "hybrid")
#: The production read path (Searcher.search: hybrid, the reader guarantee, postprocessing)
#: timed on the client only (it may be more than one request).
SEARCHER = "searcher"
_SENTENCE = re.compile(r"[^.!?]{40,}[.!?]")


@dataclass(frozen=True)
class Query:
    text: str
    lang: str
    vector: list[float]


def sample_queries(gen: Generator, docs: int, n: int, embedder: FixedCostEmbedder) -> list[Query]:
    """``n`` queries of five to eight words from sentences of the indexed documents."""
    rng = random.Random(gen.seed * 7919)
    out: list[Query] = []
    while len(out) < n:
        doc = gen.document(rng.randrange(docs))
        sentences = _SENTENCE.findall(doc.text)
        if not sentences:
            continue
        words = rng.choice(sentences).split()
        start = rng.randrange(max(1, len(words) - 8))
        text = " ".join(words[start : start + rng.randint(5, 8)])
        out.append(Query(text, doc.lang, embedder.embed_query(text)))
    return out


def body_for(kind: str, q: Query) -> dict[str, Any]:
    f = SearchFilters()
    if kind == "bm25":
        return bm25_query(q.text, WINDOW, f, lang=q.lang)
    if kind == "knn":
        return knn_query(q.vector, WINDOW, f)
    return hybrid_query(q.text, q.vector, WINDOW, f, lang=q.lang)


@dataclass
class Latencies:
    took_ms: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    client_ms: dict[str, list[float]] = field(
        default_factory=lambda: {k: [] for k in (*KINDS, SEARCHER)}
    )
    errors: int = 0


def measure(
    client: Any,
    index: str,
    pipeline: str,
    queries: list[Query],
    searcher: Any,
    *,
    warmup: int = 50,
) -> Latencies:
    """Every query of every kind, interleaved, one at a time; the first ``warmup``
    rounds are not counted. ``searcher``: the production Searcher."""
    lat = Latencies()
    for i, q in enumerate(queries):
        t0 = time.perf_counter()
        try:
            searcher.search(q.text, K, lang=q.lang)
        except Exception:
            lat.errors += 1
        else:
            if i >= warmup:
                lat.client_ms[SEARCHER].append((time.perf_counter() - t0) * 1000)
        for kind in KINDS:
            params = {"search_pipeline": pipeline} if kind == "hybrid" else {}
            t0 = time.perf_counter()
            try:
                resp = client.search(index=index, body=body_for(kind, q), params=params)
            except Exception:
                lat.errors += 1
                continue
            wall = (time.perf_counter() - t0) * 1000
            if i >= warmup:
                lat.took_ms[kind].append(float(resp["took"]))
                lat.client_ms[kind].append(wall)
    return lat


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    a = np.array(values)
    return {
        "n": len(values),
        "p50": float(np.percentile(a, 50)),
        "p95": float(np.percentile(a, 95)),
        "p99": float(np.percentile(a, 99)),
        "mean": float(a.mean()),
    }


@dataclass
class SwapCheck:
    """Outcome of the searches sampled while a re-chunk and its alias swap ran."""

    searches: int = 0
    errors: int = 0
    stale: int = 0
    mixed: int = 0
    missing: int = 0
    after_swap: int = 0
    # The same marker searched raw on the read alias (state = live, no reader guarantee):
    # eventually consistent by design, counted apart.
    raw_stale: int = 0
    raw_missing: int = 0
    examples: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        if len(self.examples) < 10:
            self.examples.append(what)


class SwapProbe(threading.Thread):
    """Searches for documents' unique markers until stopped, through the production
    Searcher: every answer must hold exactly the current revision of that document,
    nothing older, never none. ``current`` maps marker -> (doc_id, revision) and must
    not change while it runs."""

    def __init__(
        self,
        client: Any,
        index: str,
        searcher: Any,
        current: Mapping[str, tuple[str, str]],
        *,
        pause: float = 0.02,
        swapped: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__(daemon=True)
        self.client, self.index, self.searcher = client, index, searcher
        self.current = dict(current)
        self.pause = pause
        self.swapped = swapped
        self.stop = threading.Event()
        self.result = SwapCheck()

    def run(self) -> None:
        rng = random.Random(5)
        markers = sorted(self.current)
        while not self.stop.is_set():
            marker = rng.choice(markers)
            self.check(marker)
            self.check_raw(marker)
            time.sleep(self.pause)

    def check(self, marker: str) -> None:
        doc_id, revision = self.current[marker]
        r = self.result
        r.searches += 1
        r.after_swap += int(self.swapped())
        try:
            hits = self.searcher.search(marker, K)
        except Exception as exc:
            r.errors += 1
            r.note(f"{marker}: {type(exc).__name__}: {exc}")
            return
        revisions = {h.revision for h in hits if h.doc_id == doc_id}
        if not revisions:
            r.missing += 1
            r.note(f"{marker}: no hit of its document")
        if revisions - {revision}:
            r.stale += 1
            r.note(f"{marker}: revisions {sorted(revisions)}, current {revision}")
        if len(revisions) > 1:
            r.mixed += 1

    def check_raw(self, marker: str) -> None:
        doc_id, revision = self.current[marker]
        q = Query(marker, "en", [])
        try:
            resp = self.client.search(index=self.index, body=body_for("bm25", q))
        except Exception:
            self.result.errors += 1
            return
        revisions = {
            h["_source"]["revision"]
            for h in resp["hits"]["hits"]
            if h.get("_source", {}).get("doc_id") == doc_id
        }
        self.result.raw_missing += int(not revisions)
        self.result.raw_stale += int(bool(revisions - {revision}))
