"""The I/O half of `chunkwise eval`: extract, chunk, embed, index, search, report.

Each configuration gets its own index prefix ``<prefix>-<name>`` and a fresh
generation ``<prefix>-<name>-g<timestamp>`` on the real node (write and read
alias swapped to it). Documents are ingested revision by revision, oldest
first, through the pipeline's revision switch (`chunkwise.ingest.revisions`,
the chunks stamped by `with_identity`). Questions then run through the real
search path: ``Searcher`` (server-side hybrid via the neural-search pipeline
when present, current revisions by their heads), BM25 only and k-NN only, with
the production post-processing (newest revision per document, no overlapping
spans).

Latency is the search round trip; the query embedding is computed once per
question (and reported separately), so the three modes and all
configurations search with identical vectors.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from chunkwise import progress
from chunkwise.adapters.opensearch.client import Client as OpenSearch
from chunkwise.adapters.opensearch.client import connect
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.retries import RetryPolicy, with_retries
from chunkwise.adapters.opensearch.search import Searcher, ensure_search_pipelines
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.chunking.chunk import is_runt
from chunkwise.embedding.embed import Embedder, own_token_counter
from chunkwise.errors import ChunkwiseError
from chunkwise.evaluation.baselines import chunk_with, truncate_to_tokens
from chunkwise.evaluation.evaluate import (
    Corpus,
    EvalConfig,
    Gold,
    Judgement,
    Question,
    RankedHit,
    chunk_stats,
    config_report,
    diff_reports,
    judge,
    render_config_markdown,
    render_diff_markdown,
    render_summary_markdown,
    resolve_evidence,
)
from chunkwise.evaluation.legs import fetch_legs
from chunkwise.evaluation.plot import plot_hit3
from chunkwise.evaluation.replay import write_legs
from chunkwise.index.generation_model import GenerationModel
from chunkwise.index.names import IndexNames, make_doc_id, new_generation_id
from chunkwise.index.versions import ObjectVersion
from chunkwise.ingest.document import with_identity
from chunkwise.ingest.revisions import Loaded, RevisionSwitch
from chunkwise.models.counter import HFTokenCounter, load_counter
from chunkwise.models.local import default_embedder
from chunkwise.schema import Chunk
from chunkwise.search.fusion import FusionSpec
from chunkwise.search.hybrid import (
    Hit,
    SearchFilters,
    bm25_query,
    guess_query_lang,
    hits_from_response,
    knn_query,
    postprocess,
)
from chunkwise.stats import percentile

log = logging.getLogger("chunkwise.eval")
BUCKET = "eval"
K = 10


def _slug(name: str) -> str:
    s = re.sub(r"[^a-z0-9_.-]+", "-", name.lower()).strip("-.")
    return s or "config"


class _CachedQueries:
    """The embedder port with query vectors served from a precomputed table."""

    def __init__(self, inner: Embedder, vectors: dict[str, list[float]]) -> None:
        self.inner = inner
        self.vectors = vectors

    name = property(lambda self: self.inner.name)
    dimension = property(lambda self: self.inner.dimension)
    max_tokens = property(lambda self: self.inner.max_tokens)
    batch_size = property(lambda self: self.inner.batch_size)
    languages = property(lambda self: self.inner.languages)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed(texts)

    def embed_query(self, text: str) -> list[float]:
        v = self.vectors.get(text)
        if v is None:
            v = self.vectors[text] = self.inner.embed_query(text)
        return v


def extract_corpus(corpus: Corpus, corpus_dir: Path) -> dict[tuple[str, str], str]:
    from chunkwise.extract import extract

    texts: dict[tuple[str, str], str] = {}
    for doc in corpus.documents:
        for rev in doc.revisions:
            path = corpus_dir / rev.path
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise ChunkwiseError(f"corpus document {doc.key}@{rev.revision}: {exc}") from exc
            texts[(doc.key, rev.revision)] = extract(data, filename=path.name).text
    return texts


class _EmbeddingCache:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.cache: dict[str, list[float]] = {}

    def fitted(self, text: str) -> str:
        """What the model embeds of ``text``: all of it, or (a baseline's chunk over the
        model's cap) its first tokens up to the cap, as a truncating vector store would."""
        return truncate_to_tokens(text, self.embedder.count_tokens, self.embedder.max_tokens)

    def __call__(self, texts: Sequence[str]) -> list[list[float]]:
        todo = sorted({t for t in texts if t not in self.cache})
        if todo:
            for t, v in zip(todo, self.embedder.embed(todo), strict=True):
                self.cache[t] = v
        return [self.cache[t] for t in texts]


def _sizer(config: EvalConfig, embedder: Embedder) -> HFTokenCounter:
    """The configuration's tokenizer if it names one, else the embedder's own sizer
    (its tokenizer, its cap, its passage prefix)."""
    chunker = config.chunker
    if chunker.tokenizer_path is None and chunker.max_tokens is None:
        own = own_token_counter(embedder)
        if own is not None:
            return own
    return load_counter(chunker.tokenizer_path, chunker.max_tokens, chunker.add_special_tokens)


def ingest(
    client: OpenSearch,
    config: EvalConfig,
    corpus: Corpus,
    texts: dict[tuple[str, str], str],
    embed: _EmbeddingCache,
    *,
    prefix: str,
) -> tuple[IndexNames, dict[str, Chunk], dict[str, Any], dict[str, float]]:
    """Build a new generation for ``config``; returns names, chunk store, stats, timings."""
    names = IndexNames(f"{prefix}-{_slug(config.name)}")
    ix = _fresh_generation(client, names, config, embed.embedder)
    port = OpenSearchSwitchIndex(ix)
    counter = _sizer(config, embed.embedder)
    cap = config.chunker.max_tokens or counter.max_tokens
    store: dict[str, Chunk] = {}
    t_chunk = t_embed = t_bulk = 0.0
    chars: list[int] = []
    tokens: list[int] = []
    runts = truncated = 0
    t_all = time.perf_counter()
    for doc in progress.track(corpus.documents, "eval: documents"):
        doc_id = make_doc_id(BUCKET, doc.key)
        for rev in doc.revisions:
            text = texts[(doc.key, rev.revision)]
            t0 = time.perf_counter()
            raw = _chunk(config, text, doc.lang, counter, embed.embedder.max_tokens)
            version = ObjectVersion(rev.last_modified, rev.revision, key=doc.key, bucket=BUCKET)
            chunks = with_identity(raw, doc_id, version)
            t1 = time.perf_counter()
            inputs = [embed.fitted(c.text) for c in chunks]
            truncated += sum(a != c.text for a, c in zip(inputs, chunks, strict=True))
            vectors = embed(inputs)
            t2 = time.perf_counter()
            _switch_to(port, doc_id, version, chunks, vectors)
            t3 = time.perf_counter()
            t_chunk += t1 - t0
            t_embed += t2 - t1
            t_bulk += t3 - t2
            for c in chunks:
                store[c.chunk_id] = c
            if rev.revision == doc.current:
                runts += _measure(chunks, chars, tokens, config, cap)
    ix.refresh()
    stats = {
        **chunk_stats(chars, tokens, runts, cap),
        "embedded_truncated": truncated,
        **index_size(client, names),
    }
    timings = {
        "indexing_s": time.perf_counter() - t_all,
        "chunking_s": t_chunk,
        "embedding_s": t_embed,
        "bulk_s": t_bulk,
    }
    return names, store, stats, timings


def _fresh_generation(
    client: OpenSearch, names: IndexNames, config: EvalConfig, embedder: Embedder
) -> OpenSearchIndex:
    """A new generation of this configuration's own namespace, aliases swapped to it."""
    ix = OpenSearchIndex(client, names)
    for g in ix.generations():  # our own eval namespace only
        ix.drop(g, force=True)
    gen = new_generation_id()
    ix.create_generation(
        gen,
        dimension=embedder.dimension,
        embedder_name=embedder.name,
        tokenizer_id=GenerationModel.of(embedder).tokenizer,
        chunker_config=config.as_dict(),
    )
    ix.swap(gen)
    return ix


def index_size(client: OpenSearch, names: IndexNames) -> dict[str, int]:
    """What the configuration costs to keep: the generation's store in bytes (primary
    shards, after a flush: every revision the switch wrote, superseded ones included, as
    production keeps them until retention), its Lucene documents (nested table rows
    included) and its live chunks."""
    client.indices.flush(index=names.write_alias)
    stats = client.indices.stats(index=names.write_alias, metric="store,docs")
    prim = stats["_all"]["primaries"]
    live = client.count(index=names.read_alias)["count"]
    return {
        "index_bytes": int(prim["store"]["size_in_bytes"]),
        "index_docs": int(prim["docs"]["count"]),
        "index_live_chunks": int(live),
    }


def _chunk(
    config: EvalConfig, text: str, lang: str, counter: HFTokenCounter, cap: int
) -> list[Chunk]:
    """The configuration's chunks of ``text``; over-cap chunks as its ``over_cap`` says."""
    return chunk_with(
        config.baseline,
        text,
        lang,
        config.chunker,
        counter=counter,
        over_cap=config.over_cap,
        token_cap=cap,
    )


def _measure(
    chunks: Sequence[Chunk], chars: list[int], tokens: list[int], config: EvalConfig, cap: int
) -> int:
    """Add the current revision's chunk sizes to ``chars``/``tokens``; its runt count."""
    runts = 0
    for c in chunks:
        chars.append(len(c.body))
        tokens.append(c.token_count)
        if len(chunks) > 1 and is_runt(len(c.body), c.token_count, config.chunker, cap):
            runts += 1
    return runts


def _switch_to(
    port: OpenSearchSwitchIndex,
    doc_id: str,
    version: ObjectVersion,
    chunks: list[Chunk],
    vectors: list[list[float]],
) -> None:
    """Make ``version`` the document's current revision through the production switch
    (``version`` plays S3's current version: revisions are ingested oldest first)."""
    switch = RevisionSwitch(
        port, lambda _key: version, lambda _items: {doc_id: Loaded(chunks, vectors)}
    )
    outcome = switch.run({doc_id: version.key})[doc_id]
    if outcome.error is not None:
        raise outcome.error


def _ranked(hits: Sequence[Hit], store: dict[str, Chunk]) -> list[RankedHit]:
    out = []
    for h in hits:
        c = h.citation
        chunk = store.get(h.id)
        out.append(
            RankedHit(
                id=h.id,
                key=c.key,
                revision=c.revision,
                start=c.start,
                end=c.end,
                body=c.body,
                text=chunk.text if chunk is not None else "",
                tokens=chunk.token_count if chunk is not None else 0,
            )
        )
    return out


def _raw_search(
    client: OpenSearch, searcher: Searcher, names: IndexNames, body: dict[str, Any]
) -> Any:
    def call() -> Any:
        return client.search(index=names.read_alias, body=body)

    return with_retries(searcher.policy, "search", call)


def fusion_mode(spec: FusionSpec) -> str:
    return f"hybrid[{spec.name}]"


def search_all(
    client: OpenSearch,
    searcher: Searcher,
    names: IndexNames,
    questions: Sequence[Question],
    modes: Sequence[str],
    vectors: dict[str, list[float]],
    fused: Mapping[str, Searcher] | None = None,
) -> dict[str, list[tuple[Question, list[Hit], float]]]:
    """Every question in every mode; ``fused``: extra hybrid modes, each its own Searcher
    (another fusion pipeline) over the same index."""
    extra = dict(fused or {})
    out: dict[str, list[tuple[Question, list[Hit], float]]] = {m: [] for m in (*modes, *extra)}
    window = K * searcher.candidates
    f = SearchFilters()
    for q in progress.track(questions, "eval: questions"):
        lang = guess_query_lang(q.question)  # what the real search path does
        for mode in out:
            t0 = time.perf_counter()
            if mode in extra:
                hits = extra[mode].search(q.question, K, f)
            elif mode == "hybrid":
                hits = searcher.search(q.question, K, f)
            elif mode == "bm25":
                resp = _raw_search(
                    client, searcher, names, bm25_query(q.question, window, f, lang=lang)
                )
                hits = postprocess(hits_from_response(resp, "bm25"), K)
            else:
                resp = _raw_search(
                    client, searcher, names, knn_query(vectors[q.question], window, f)
                )
                hits = postprocess(hits_from_response(resp, "knn"), K)
            out[mode].append((q, hits, 1000 * (time.perf_counter() - t0)))
    return out


def run_evaluation(
    questions: Sequence[Question],
    configs: Sequence[EvalConfig],
    corpus: Corpus,
    *,
    corpus_dir: Path,
    out_dir: Path,
    url: str,
    prefix: str = "eval",
    modes: Sequence[str] = ("hybrid", "bm25", "vector"),
    fusions: Sequence[FusionSpec] = (),
    keep_indices: bool = False,
    plot: bool = True,
    client: OpenSearch | None = None,
    embedder: Embedder | None = None,
    legs_out: Path | None = None,
    legs_depth: int | None = None,
) -> list[dict[str, Any]]:
    slugs = [_slug(c.name) for c in configs]
    if len(set(slugs)) != len(slugs):
        raise ChunkwiseError(f"configuration names must be distinct: {[c.name for c in configs]}")
    texts = extract_corpus(corpus, corpus_dir)
    current = {d.key: d.current for d in corpus.documents}
    run = _Run(
        client=_reachable(client or connect(url), url),
        embedder=embedder or default_embedder(),
        questions=questions,
        corpus=corpus,
        texts=texts,
        gold=resolve_evidence(questions, texts, current),
        modes=modes,
        prefix=prefix,
        fusions=fusions,
        legs_out=legs_out,
        legs_depth=legs_depth,
    )
    out_dir.mkdir(parents=True, exist_ok=True)
    reports: list[dict[str, Any]] = []
    for config in progress.track(configs, "eval: configurations"):
        report = run.evaluate(config, keep_indices=keep_indices)
        reports.append(report)
        slug = _slug(config.name)
        _write_json(out_dir / f"{slug}.json", report)
        (out_dir / f"{slug}.md").write_text(render_config_markdown(report), encoding="utf-8")
    mode = "hybrid" if "hybrid" in modes else modes[0]
    for other in reports[1:]:
        d = diff_reports(reports[0], other, mode)
        stem = f"diff_{_slug(d['a'])}_vs_{_slug(d['b'])}"
        _write_json(out_dir / f"{stem}.json", d)
        (out_dir / f"{stem}.md").write_text(render_diff_markdown(d), encoding="utf-8")
    _write_json(out_dir / "summary.json", _summary(reports))
    (out_dir / "summary.md").write_text(
        "# Retrieval evaluation summary\n\n" + render_summary_markdown(reports, mode),
        encoding="utf-8",
    )
    if plot and reports:
        plot_hit3(reports, out_dir / "hit3.png", mode)
    return reports


def _reachable(client: OpenSearch, url: str) -> OpenSearch:
    try:
        with_retries(RetryPolicy(attempts=2), "ping", client.info)
    except ChunkwiseError as exc:
        raise ChunkwiseError(f"OpenSearch at {url} is not reachable: {exc}") from exc
    return client


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


class _Run:
    """One evaluation: the questions embedded once, then each configuration in turn."""

    def __init__(
        self,
        *,
        client: OpenSearch,
        embedder: Embedder,
        questions: Sequence[Question],
        corpus: Corpus,
        texts: dict[tuple[str, str], str],
        gold: dict[str, Gold],
        modes: Sequence[str],
        prefix: str,
        fusions: Sequence[FusionSpec] = (),
        legs_out: Path | None = None,
        legs_depth: int | None = None,
    ) -> None:
        self.legs_out, self.legs_depth = legs_out, legs_depth
        self.client, self.embedder, self.questions = client, embedder, questions
        self.corpus, self.texts, self.gold = corpus, texts, gold
        self.modes, self.prefix, self.fusions = modes, prefix, tuple(fusions)
        self.vectors: dict[str, list[float]] = {}
        self.query_ms: list[float] = []
        for q in questions:
            if q.question not in self.vectors:
                t0 = time.perf_counter()
                self.vectors[q.question] = embedder.embed_query(q.question)
                self.query_ms.append(1000 * (time.perf_counter() - t0))
        self.embed_cache = _EmbeddingCache(embedder)
        self.cached = _CachedQueries(embedder, self.vectors)

    def evaluate(self, config: EvalConfig, *, keep_indices: bool) -> dict[str, Any]:
        log.info("eval: ingesting with %s", config.name)
        names, store, stats, timings = ingest(
            self.client, config, self.corpus, self.texts, self.embed_cache, prefix=self.prefix
        )
        ensure_search_pipelines(self.client)  # the deploy-time step; searching only reads
        searcher = Searcher(self.client, self.cached, names)
        fused = self._fusion_searchers(names)
        results = search_all(
            self.client, searcher, names, self.questions, self.modes, self.vectors, fused
        )
        judgements: dict[str, list[Judgement]] = {
            mode: [
                judge(q, _ranked(h, store), self.gold[q.id], self.texts, ms) for q, h, ms in rows
            ]
            for mode, rows in results.items()
        }
        report = config_report(config, judgements, stats, timings, self._meta(searcher, names))
        if self.legs_out is not None:
            depth = self.legs_depth or K * searcher.candidates
            legs = fetch_legs(
                searcher,
                self.questions,
                self.vectors,
                depth,
                self.gold,
                self.texts,
                store,
                _ranked,
                K,
            )
            write_legs(self.legs_out / f"{_slug(config.name)}.jsonl", legs)
        if not keep_indices:
            ix = OpenSearchIndex(self.client, names)
            for g in ix.generations():
                ix.drop(g, force=True)
        return report

    def _fusion_searchers(self, names: IndexNames) -> dict[str, Searcher]:
        """One Searcher per swept fusion, its pipeline written first (an evaluation is a
        development run on its own node; the deploy-time pipelines stay as they are)."""
        out = {}
        for spec in self.fusions:
            self.client.transport.perform_request(
                "PUT", f"/_search/pipeline/{spec.pipeline_name}", body=spec.pipeline_body()
            )
            out[fusion_mode(spec)] = Searcher(
                self.client,
                self.cached,
                names,
                pipeline=(spec.pipeline_name, spec.label),
                spec=spec,
            )
        return out

    def _meta(self, searcher: Searcher, names: IndexNames) -> dict[str, Any]:
        return {
            "opensearch": searcher.caps.version,
            "hybrid_fusion": f"{searcher.fusion} {searcher.spec.name}",
            "embedder": self.embedder.name,
            "index": names.read_alias,
            "k": K,
            "questions": len(self.questions),
            "query_embedding_ms_p50": percentile(self.query_ms, 50),
            "query_embedding_ms_p95": percentile(self.query_ms, 95),
        }


def _summary(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return {
        "configs": [r["config"] for r in reports],
        "meta": reports[0]["meta"] if reports else {},
        "hit@3": {
            r["config"]["name"]: {
                md: {g: m["hit@3"] for g, m in groups.items()} for md, groups in r["modes"].items()
            }
            for r in reports
        },
        "superseded_citations": {
            r["config"]["name"]: sum(
                groups["all"]["superseded_citations"] for groups in r["modes"].values()
            )
            for r in reports
        },
        "chunks": {r["config"]["name"]: r["chunks"] for r in reports},
        "timings": {r["config"]["name"]: r["timings"] for r in reports},
    }
