"""Hybrid search: query bodies, fusion and result post-processing (pure; no I/O).

See samdocs/architecture.md, "Search". BM25 runs over the language-analysed fields (``text_en``,
``text_de``) plus the standard-analysed ``text``, and adds the score of the
chunk's best-matching table row (the nested ``rows`` field, each row's cells
named by their column: a question about a cell names its row and its column,
and one row matching both outranks a paragraph that only talks about the
columns); k-NN over ``embedding``
(Lucene HNSW, cosine). The two ranked lists are fused as one `chunkwise.search.fusion.
FusionSpec` says (default ``minmax:0.7``: min-max per leg, BM25 weighted 0.7; ``rrf:60``
selectable), server-side by that spec's search pipeline when the cluster has
neural-search, otherwise client-side by `fuse_client_side`: the same float32 arithmetic
as the cluster's processor, and the same order of equal scores (`tie_key`: the earlier
chunk, then the id), so the cluster's plugins never change the order. Every
raw hit becomes a `Hit` in one place, `build_hit`.

Every result list then goes through `postprocess`: keep only the newest
revision of each document present in the list (S3 last-modified, then version
id), drop hits whose source span overlaps a better-ranked hit of the same
revision, collapse hits with the same text from other documents (the same manual as
PDF and DOCX, a file in two folders: the better-ranked one stays and lists where else
its text lives, `collapse_duplicates`; opt-out per query), cut to k. Every `Hit`
carries its citation and its score breakdown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from chunkwise.access.clause import combine
from chunkwise.index.mapping import LANG_FIELDS, ROWS_FIELD, TEXT_FIELD
from chunkwise.index.states import State
from chunkwise.index.versions import revision_sort_key
from chunkwise.metadata.fields import BOOLEAN_PATH, LIST_PATH, META_FIELD, NUMBER_PATH, STRING_PATH
from chunkwise.search.duplicates import Elsewhere, collapse_duplicates
from chunkwise.search.fusion import DEFAULT_FUSION, FusionSpec

RRF_K = 60
SOURCE_EXCLUDES = ["embedding", "text_en", "text_de", ROWS_FIELD]


class SearchFilters(BaseModel):
    """Restrict a search; every set field must match (AND), values within a field OR.

    ``metadata_filter`` is the caller's metadata filter as a query clause (a Retrieve
    filter through `chunkwise.metadata.translate`); ``access`` is the access clause the
    server adds (`chunkwise.access.AccessPolicy.clause`). `restricted` ANDs an access
    clause with the one already there, so filters can be narrowed, never widened. Both
    sit in the one ``bool.filter`` every leg carries (`clauses`): the BM25 query's and
    the k-NN leg's own ``filter`` (Lucene's efficient filtering: the k nearest are
    chosen among the chunks that pass, not cut afterwards), in every query path."""

    model_config = ConfigDict(frozen=True)

    doc_ids: tuple[str, ...] = ()
    key_prefix: str | None = None
    langs: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    metadata_filter: dict[str, Any] | None = None
    access: dict[str, Any] | None = None

    def restricted(self, access: dict[str, Any] | None) -> SearchFilters:
        """These filters, further limited by ``access`` (None: unchanged)."""
        if access is None:
            return self
        both = access if self.access is None else combine(self.access, access)
        return self.model_copy(update={"access": both})

    def without_access(self) -> SearchFilters:
        """The same filters without the access clause (the audit's comparison only)."""
        return self.model_copy(update={"access": None})

    def clauses(self) -> list[dict[str, Any]]:
        # Candidates of both states: the document's head decides which revision is
        # current (chunkwise.ingest.revisions); the filtered read alias keeps live only.
        out: list[dict[str, Any]] = [{"terms": {"state": [State.PENDING.value, State.LIVE.value]}}]
        if self.doc_ids:
            out.append({"terms": {"doc_id": list(self.doc_ids)}})
        if self.key_prefix:
            out.append({"prefix": {"source_key": self.key_prefix}})
        if self.langs:
            out.append({"terms": {"lang": list(self.langs)}})
        if self.kinds:
            out.append({"terms": {"kind": list(self.kinds)}})
        if self.access is not None or self.metadata_filter is not None:
            out.append(combine(self.access, self.metadata_filter))
        return out


_DE_HINTS = frozenset(
    "der die das und ist nicht ein eine wie was wo warum für mit auf den dem des zu von "
    "im bei oder sind wird werden kann können ich sie wir".split()
)
_EN_HINTS = frozenset(
    "the and is are not a an how what where why for with on of to in by or can "
    "do does i you we".split()
)


def guess_query_lang(query: str) -> str | None:
    """Cheap en/de guess for field boosting (umlauts/ß or stopwords); None if unsure."""
    low = query.lower()
    if any(ch in low for ch in "äöüß"):
        return "de"
    words = [w.strip(".,;:!?\"'()") for w in low.split()]
    de = sum(w in _DE_HINTS for w in words)
    en = sum(w in _EN_HINTS for w in words)
    if de > en:
        return "de"
    if en > de:
        return "en"
    return None


def bm25_fields(lang: str | None, boost: float = 2.0) -> list[str]:
    fields = []
    for code, name in LANG_FIELDS.items():
        fields.append(f"{name}^{boost:g}" if code == lang else name)
    fields.append(TEXT_FIELD)
    return fields


def bm25_clause(query: str, lang: str | None) -> dict[str, Any]:
    return {
        "multi_match": {
            "query": query,
            "fields": bm25_fields(lang),
            "type": "best_fields",
        }
    }


def row_clause(query: str, lang: str | None) -> dict[str, Any]:
    """The best table row's BM25 score (same fields and boost as the chunk's text).

    ``ignore_unmapped``: generations created before the ``rows`` field still answer.
    """
    return {
        "nested": {
            "path": ROWS_FIELD,
            "score_mode": "max",
            "ignore_unmapped": True,
            "query": {
                "multi_match": {
                    "query": query,
                    "fields": [f"{ROWS_FIELD}.{f}" for f in bm25_fields(lang)],
                    "type": "best_fields",
                }
            },
        }
    }


def lexical_clause(query: str, lang: str | None, filters: SearchFilters) -> dict[str, Any]:
    """BM25 over the chunk's text (must match) plus its best table row (adds score)."""
    return {
        "bool": {
            "must": [bm25_clause(query, lang)],
            "should": [row_clause(query, lang)],
            "filter": filters.clauses(),
        }
    }


def bm25_query(
    query: str, k: int, filters: SearchFilters | None = None, *, lang: str | None = None
) -> dict[str, Any]:
    f = filters or SearchFilters()
    return {
        "size": k,
        "_source": {"excludes": SOURCE_EXCLUDES},
        "query": lexical_clause(query, lang, f),
    }


def knn_clause(vector: Sequence[float], k: int, filters: SearchFilters) -> dict[str, Any]:
    # The filter inside the knn clause is Lucene's efficient filtering: the top k
    # are chosen among matching (live) chunks, not filtered afterwards.
    return {
        "knn": {
            "embedding": {
                "vector": [float(x) for x in vector],
                "k": k,
                "filter": {"bool": {"filter": filters.clauses()}},
            }
        }
    }


def knn_query(
    vector: Sequence[float], k: int, filters: SearchFilters | None = None
) -> dict[str, Any]:
    f = filters or SearchFilters()
    return {
        "size": k,
        "_source": {"excludes": SOURCE_EXCLUDES},
        "query": knn_clause(vector, k, f),
    }


def hybrid_query(
    query: str,
    vector: Sequence[float],
    k: int,
    filters: SearchFilters | None = None,
    *,
    lang: str | None = None,
) -> dict[str, Any]:
    """Server-side hybrid query (neural-search); run with a fusion search pipeline."""
    f = filters or SearchFilters()
    return _hybrid_body(k, lexical_clause(query, lang, f), knn_clause(vector, k, f))


def _hybrid_body(k: int, lexical: dict[str, Any], dense: dict[str, Any]) -> dict[str, Any]:
    """A ``hybrid`` query of one lexical and one dense clause, fused by a search pipeline."""
    return {
        "size": k,
        "_source": {"excludes": SOURCE_EXCLUDES},
        "query": {"hybrid": {"queries": [lexical, dense]}},
    }


def neural_clause(
    query: str, k: int, filters: SearchFilters, model_id: str | None = None
) -> dict[str, Any]:
    """k-NN on ``embedding`` with the query embedded by the cluster (ML Commons, see
    `chunkwise.search.query_model`). Without a model id, the generation's default search
    pipeline fills in the model that serves it."""
    inner: dict[str, Any] = {
        "query_text": query,
        "k": k,
        "filter": {"bool": {"filter": filters.clauses()}},
    }
    if model_id:
        inner["model_id"] = model_id
    return {"neural": {"embedding": inner}}


def neural_query(
    query: str, k: int, filters: SearchFilters | None = None, *, model_id: str | None = None
) -> dict[str, Any]:
    f = filters or SearchFilters()
    return {
        "size": k,
        "_source": {"excludes": SOURCE_EXCLUDES},
        "query": neural_clause(query, k, f, model_id),
    }


def hybrid_text_query(
    query: str,
    k: int,
    filters: SearchFilters | None = None,
    *,
    lang: str | None = None,
    model_id: str | None = None,
) -> dict[str, Any]:
    """`hybrid_query` without a vector: the cluster embeds ``query`` for the k-NN part."""
    f = filters or SearchFilters()
    return _hybrid_body(k, lexical_clause(query, lang, f), neural_clause(query, k, f, model_id))


def rrf_pipeline_body(rank_constant: int = RRF_K) -> dict[str, Any]:
    """Search pipeline fusing hybrid sub-queries by RRF (neural-search >= 2.19)."""
    return FusionSpec("rrf", rank_constant=rank_constant).pipeline_body()


def fusion_pipeline_body(spec: FusionSpec = DEFAULT_FUSION) -> dict[str, Any]:
    """The search pipeline fusing hybrid sub-queries as ``spec`` says."""
    return spec.pipeline_body()


# --------------------------------------------------------------------------- results


class Citation(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    revision: str
    page_start: int | None
    page_end: int | None
    start: int
    end: int
    heading_path: list[str]
    body: str


class ScoreBreakdown(BaseModel):
    """Ranks are 1-based positions in each retriever's list; None = not retrieved."""

    model_config = ConfigDict(frozen=True)

    fused: float
    fusion: str  # "norm-server", "norm-client", "rrf-server", "rrf-client", "bm25", "knn"
    bm25: float | None = None
    bm25_rank: int | None = None
    knn: float | None = None
    knn_rank: int | None = None
    # The reranker's score and the hit's fused rank before it (chunkwise.search.rerank);
    # None = not reranked (off, beyond the candidate depth, or the reranker failed).
    rerank: float | None = None
    fused_rank: int | None = None


class Hit(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    doc_id: str
    chunk_index: int
    last_modified: str | None
    kind: str
    lang: str
    citation: Citation
    score: ScoreBreakdown
    text: str = Field(default="", repr=False)
    #: A table chunk's header rows (GFM, with the separator row): context stored with
    #: the chunk, not part of the cited body; "" for other chunks.
    table_header: str = ""
    state: str = ""  # pending or live: the reader keeps what the document's head names
    #: The document's metadata attributes (key -> value, as its sidecar typed them);
    #: never its readers, which stay on the server.
    metadata: dict[str, Any] = Field(default_factory=dict)
    also_in: tuple[Elsewhere, ...] = ()  # the same text in other documents (collapsed)

    @property
    def revision(self) -> str:
        return self.citation.revision


RawHit = Mapping[str, Any]  # one element of response["hits"]["hits"]
Ranked = tuple[float, int]  # one retriever's score and 1-based rank of a hit


def tie_key(score: float, raw: RawHit) -> tuple[float, int, str]:
    """The one order of results, whichever side fused them: best score first; equal
    scores by the earlier chunk, then id.

    Equal scores are common in RRF: a chunk ranked (1, 2) by BM25 and k-NN and its
    neighbour ranked (2, 1) get exactly the same fused score. The cluster returns
    such ties in an order that depends on the index's internal document numbers,
    which differ from one ingest to the next, and client-side fusion has no order
    of its own; both paths sort by this key, so the same index contents answer in
    the same order whether or not the cluster has neural-search. The earlier chunk
    of a document is the one that opens its section or table (and carries the
    context the later ones repeat), so it is the better citation when nothing else
    tells the two apart; the id only makes the order total.
    """
    return (-score, int((raw.get("_source") or {}).get("chunk_index", 0)), str(raw["_id"]))


def tie_order(raw_hits: Iterable[RawHit]) -> list[RawHit]:
    """Raw hits by their own score, best first, ties by `tie_key`."""
    return sorted(raw_hits, key=lambda h: tie_key(_raw_score(h), h))


def _raw_score(raw: RawHit) -> float:
    return float(raw.get("_score") or 0.0)


def build_hit(
    raw: RawHit, fused: float, fusion: str, bm25: Ranked | None = None, knn: Ranked | None = None
) -> Hit:
    """The one place a raw OpenSearch hit becomes a `Hit`, with its score breakdown."""
    src: Mapping[str, Any] = raw["_source"]
    return Hit(
        id=str(raw["_id"]),
        doc_id=str(src.get("doc_id", "")),
        chunk_index=int(src.get("chunk_index", 0)),
        last_modified=src.get("last_modified"),
        kind=str(src.get("kind", "")),
        lang=str(src.get("lang", "")),
        citation=Citation(
            key=str(src.get("source_key", "")),
            revision=str(src.get("revision", "")),
            page_start=src.get("page_start"),
            page_end=src.get("page_end"),
            start=int(src.get("start", 0)),
            end=int(src.get("end", 0)),
            heading_path=list(src.get("heading_path") or []),
            body=str(src.get("body", "")),
        ),
        score=ScoreBreakdown(
            fused=fused,
            fusion=fusion,
            bm25=bm25[0] if bm25 else None,
            bm25_rank=bm25[1] if bm25 else None,
            knn=knn[0] if knn else None,
            knn_rank=knn[1] if knn else None,
        ),
        table_header=str(src.get("table_header") or ""),
        state=str(src.get("state", "")),
        metadata=attributes_of(src),
    )


def attributes_of(src: Mapping[str, Any]) -> dict[str, Any]:
    """A chunk's metadata attributes from its typed sub-objects (`chunkwise.metadata.
    fields`); the date sub-object repeats STRING values, so it is left out."""
    meta = src.get(META_FIELD)
    if not isinstance(meta, Mapping):
        return {}
    out: dict[str, Any] = {}
    for sub in (STRING_PATH, NUMBER_PATH, BOOLEAN_PATH, LIST_PATH):
        values = meta.get(sub)
        if isinstance(values, Mapping):
            out.update(values)
    return dict(sorted(out.items()))


def _ranks(raw_hits: Sequence[RawHit]) -> dict[str, Ranked]:
    """Each id's score and rank in one retriever's list (its first occurrence)."""
    ranks: dict[str, Ranked] = {}
    for rank, h in enumerate(raw_hits, start=1):
        ranks.setdefault(str(h["_id"]), (_raw_score(h), rank))
    return ranks


def fuse_client_side(
    bm25_hits: Sequence[RawHit], knn_hits: Sequence[RawHit], spec: FusionSpec = DEFAULT_FUSION
) -> list[Hit]:
    """Two raw OpenSearch hit lists fused as ``spec`` says (`FusionSpec.fuse`: the scores
    the cluster's pipeline of that spec computes), ordered by `tie_key`, into Hits with the
    full score breakdown."""
    legs = [[(str(h["_id"]), _raw_score(h)) for h in hits] for hits in (bm25_hits, knn_hits)]
    fused = spec.fuse(legs)
    raws: dict[str, RawHit] = {}
    for h in (*bm25_hits, *knn_hits):
        raws.setdefault(str(h["_id"]), h)
    bm25, knn = _ranks(bm25_hits), _ranks(knn_hits)
    order = sorted(fused, key=lambda d: tie_key(fused[d], raws[d]))
    label = spec.side_label("client")
    return [build_hit(raws[d], fused[d], label, bm25.get(d), knn.get(d)) for d in order]


def hits_from_response(
    response: Mapping[str, Any],
    fusion: str,
    *,
    bm25_ranks: Mapping[str, Ranked] | None = None,
    knn_ranks: Mapping[str, Ranked] | None = None,
) -> list[Hit]:
    """Hits of a single (server-fused or single-retriever) response, ties by `tie_key`.

    A single-retriever response ("bm25", "knn") is that retriever's ranking, so each
    hit's own score and position fill its side of the breakdown.
    """
    out: list[Hit] = []
    for rank, h in enumerate(tie_order(response.get("hits", {}).get("hits", [])), start=1):
        d, score = str(h["_id"]), _raw_score(h)
        b = (bm25_ranks or {}).get(d)
        kn = (knn_ranks or {}).get(d)
        if fusion == "bm25" and b is None:
            b = (score, rank)
        if fusion == "knn" and kn is None:
            kn = (score, rank)
        out.append(build_hit(h, score, fusion, b, kn))
    return out


def keep_newest_revision(hits: Iterable[Hit]) -> list[Hit]:
    """Drop every hit whose document has a newer revision elsewhere in the list."""
    hits = list(hits)
    newest: dict[str, tuple[str, str]] = {}
    for h in hits:
        key = revision_sort_key(h.last_modified, h.revision)
        if h.doc_id not in newest or key > newest[h.doc_id]:
            newest[h.doc_id] = key
    return [h for h in hits if revision_sort_key(h.last_modified, h.revision) == newest[h.doc_id]]


# A hit is a duplicate of a better one when at least this share of the shorter
# span is shared: chunkers with overlap repeat a sentence or two, which must
# not hide the chunk that holds the rest of the answer.
DUPLICATE_SPAN_SHARE = 0.5


def _same_passage(a: tuple[int, int], b: tuple[int, int]) -> bool:
    shared = min(a[1], b[1]) - max(a[0], b[0])
    shorter = min(a[1] - a[0], b[1] - b[0])
    return shared > 0 and shared >= DUPLICATE_SPAN_SHARE * max(shorter, 1)


def dedupe_overlapping(hits: Iterable[Hit]) -> list[Hit]:
    """Keep the best-ranked of hits citing mostly the same span of one revision."""
    kept: list[Hit] = []
    spans: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for h in hits:
        c = h.citation
        lst = spans.setdefault((h.doc_id, c.revision), [])
        if any(_same_passage((c.start, c.end), span) for span in lst):
            continue
        if c.start == c.end and any(s == c.start == e for s, e in lst):
            continue
        lst.append((c.start, c.end))
        kept.append(h)
    return kept


def postprocess(hits: Iterable[Hit], k: int, *, collapse: bool = True) -> list[Hit]:
    """Newest revision per document, no overlapping spans, one hit per text (unless
    ``collapse`` is off), at most k hits."""
    out = dedupe_overlapping(keep_newest_revision(hits))
    return (collapse_duplicates(out) if collapse else out)[:k]


def format_hit(h: Hit, rank: int) -> str:
    c = h.citation
    pages = ""
    if c.page_start is not None:
        pages = (
            f" p.{c.page_start}"
            if c.page_end in (None, c.page_start)
            else f" pp.{c.page_start}-{c.page_end}"
        )
    head = " > ".join(c.heading_path)
    s = h.score
    parts = [f"{s.fusion} {s.fused:.4f}"]
    if s.bm25_rank is not None:
        parts.append(f"bm25 #{s.bm25_rank} {s.bm25:.3f}")
    if s.knn_rank is not None:
        parts.append(f"knn #{s.knn_rank} {s.knn:.3f}")
    body = c.body if len(c.body) <= 400 else c.body[:400] + "…"
    lines = [
        f"{rank}. {c.key} @ {c.revision}{pages} [{c.start}, {c.end})  ({', '.join(parts)})",
    ]
    if head:
        lines.append(f"   {head}")
    lines.append("   " + body.replace("\n", "\n   "))
    return "\n".join(lines)
