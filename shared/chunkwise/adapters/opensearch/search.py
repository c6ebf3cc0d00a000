"""Executes hybrid search against OpenSearch (opensearch-py); picks the fusion path.

- ``server``: the cluster has neural-search and the search pipeline of the searcher's
  `FusionSpec` (``CHUNKWISE_FUSION``, default ``minmax:0.7``: ``normalization-processor``;
  ``rrf:K``: ``score-ranker-processor``, neural-search >= 2.19), named by the spec
  (``chunkwise-fusion-minmax-0-7``), so a pipeline found fuses as the spec says. One round
  trip; the score breakdown has the fused score only.
- ``client``: two searches (BM25, k-NN) fused by the same spec
  (`chunkwise.search.hybrid.fuse_client_side`: the cluster's arithmetic, the same tie
  rule); the breakdown has both retrievers' scores and ranks.
- ``auto`` (default): ``server`` if the spec's pipeline is there, else ``client``.

Both query the write alias (the reader needs pending chunks too) with the same
filter inside every query: the chunk states, the caller's filters and metadata
filter, and in access mode ``groups`` the access clause (`restrict`), in the BM25
query's ``bool.filter`` and the k-NN leg's own ``filter`` alike (so k-NN picks its
top k among the chunks that pass). Results are post-processed (newest revision per
document, no overlapping spans).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from opensearchpy import OpenSearch
from opensearchpy.exceptions import NotFoundError, TransportError

from chunkwise.access import AccessMode, AccessPolicy, Identity
from chunkwise.adapters.opensearch.generations import check_generation_model
from chunkwise.adapters.opensearch.heads import OpenSearchHeads
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.rerank import ClusterScorer
from chunkwise.adapters.opensearch.retries import WHOLE, RetryPolicy, whole, with_retries
from chunkwise.adapters.opensearch.snapshot import in_pit, point_in_time
from chunkwise.embedding.embed import Embedder, QueryTokenCounting
from chunkwise.errors import PermanentError, QueryRejected
from chunkwise.index.generation_model import GenerationModel
from chunkwise.index.names import IndexNames
from chunkwise.index.reading import candidate_of, read_current
from chunkwise.search.audit import withheld_count, withheld_count_query
from chunkwise.search.fusion import DEFAULT_FUSION, FusionSpec
from chunkwise.search.hybrid import (
    Hit,
    SearchFilters,
    bm25_query,
    fuse_client_side,
    guess_query_lang,
    hits_from_response,
    hybrid_query,
    hybrid_text_query,
    knn_query,
    neural_query,
    postprocess,
)
from chunkwise.search.rerank import Answer, RerankConfig, RerankOutcome, rerank_stage

log = logging.getLogger("chunkwise.search")

Fusion = Literal["auto", "server", "client"]
QueryEmbedding = Literal["client", "cluster"]


@dataclass(frozen=True)
class ClusterCaps:
    neural_search: bool
    pipeline: str  # the search pipeline of the searcher's fusion spec; "" = none found
    version: str
    spec: FusionSpec = DEFAULT_FUSION  # the fusion both paths run

    @property
    def server_pipeline(self) -> str | None:
        """The search pipeline server-side fusion runs with; None = fuse client-side."""
        return self.pipeline if self.neural_search and self.pipeline else None


#: What the query path assumes when it may not even read the cluster's plugins.
CLIENT_FUSION_ONLY = ClusterCaps(neural_search=False, pipeline="", version="")


def ensure_search_pipelines(
    client: OpenSearch, policy: RetryPolicy | None = None, spec: FusionSpec = DEFAULT_FUSION
) -> str:
    """Create the search pipeline of ``spec`` (its `FusionSpec.pipeline_name`); returns its
    name, '' without neural-search or when the plugin refuses it (RRF needs 2.19's
    ``score-ranker-processor``): the query path then fuses client-side, the same way.

    The only place chunkwise writes search pipelines: the admin custom resource at
    deploy time and ``chunkwise local up`` call it (through `chunkwise.wiring.ensure_index`),
    the query path never does (its role may only read). Further deploy-time search setup
    (a default pipeline, model connectors) belongs here.
    """
    pol = policy or RetryPolicy(attempts=3)
    if not _has_neural_search(client, pol):
        return ""

    def put() -> Any:
        return client.transport.perform_request(
            "PUT", f"/_search/pipeline/{spec.pipeline_name}", body=spec.pipeline_body()
        )

    try:
        with_retries(pol, f"put {spec.name} pipeline", put)
    except PermanentError as exc:
        log.warning("search pipeline %s not accepted (%s): client-side fusion", spec.name, exc)
        return ""
    return spec.pipeline_name


def _has_neural_search(client: OpenSearch, policy: RetryPolicy) -> bool:
    plugins = with_retries(policy, "cat plugins", lambda: client.cat.plugins(format="json"))
    return any("neural-search" in str(p.get("component", "")) for p in plugins)


def _pipeline_exists(client: OpenSearch, name: str, policy: RetryPolicy) -> bool:
    def get() -> bool:
        try:
            client.transport.perform_request("GET", f"/_search/pipeline/{name}")
        except NotFoundError:
            return False
        return True

    return with_retries(policy, f"get pipeline {name}", get)


def detect_caps(
    client: OpenSearch, policy: RetryPolicy | None = None, spec: FusionSpec = DEFAULT_FUSION
) -> ClusterCaps:
    """Does the cluster have neural-search and the search pipeline of ``spec``? Reads only
    (GET): the query role may not write, and the pipelines are created at deploy time."""
    pol = policy or RetryPolicy(attempts=3)
    neural = _has_neural_search(client, pol)
    version = str(with_retries(pol, "info", client.info).get("version", {}).get("number", ""))
    if not neural:
        return ClusterCaps(neural_search=False, pipeline="", version=version, spec=spec)
    found = _pipeline_exists(client, spec.pipeline_name, pol)
    if not found:
        log.warning(
            "neural-search without the %s search pipeline: fusing client-side", spec.pipeline_name
        )
    pipeline = spec.pipeline_name if found else ""
    return ClusterCaps(neural_search=True, pipeline=pipeline, version=version, spec=spec)


def rejected_query(exc: TransportError) -> QueryRejected | None:
    """The query itself is at fault: a 400 (parse error, bad value) or Lucene's clause
    limit, which OpenSearch reports as a 500. None for everything else (outages,
    throttling, permissions), which keeps its own classification."""
    status = exc.status_code if isinstance(exc.status_code, int) else None
    detail = json.dumps(exc.info, default=str)[:4000] if exc.info is not None else str(exc)
    if (
        "too_many_clauses" in detail
        or "too_many_nested_clauses" in detail
        or ("maxClauseCount" in detail)
    ):
        return QueryRejected(f"search: clause limit: {str(exc.error)[:200]}")
    if status == 400:
        return QueryRejected(
            f"search: rejected with 400: {str(exc.error)[:200]}",
            public="the query could not be parsed",
        )
    return None


MATCH_ALL: dict[str, Any] = {"match_all": {}}


def restrict(
    filters: SearchFilters, identity: Identity | None, access: AccessPolicy | None
) -> SearchFilters:
    """``filters`` limited to what ``identity`` may read under ``access``. A caller that
    names an identity without a policy searches in mode ``groups`` without an admin
    group; no identity and no policy: no limit (mode ``none``)."""
    if access is None:
        if identity is None:
            return filters
        access = AccessPolicy(AccessMode.GROUPS)
    return filters.restricted(access.clause(identity))


class Searcher:
    """Hybrid search over the write alias's generation, current revisions only (heads)."""

    def __init__(
        self,
        client: OpenSearch,
        embedder: Embedder,
        names: IndexNames | None = None,
        *,
        fusion: Fusion = "auto",
        index: str | None = None,
        candidates: int = 4,
        policy: RetryPolicy | None = None,
        query_embedding: QueryEmbedding = "client",
        query_model_id: str | None = None,
        pipeline: tuple[str, str] | None = None,
        rerank: RerankConfig | None = None,
        spec: FusionSpec = DEFAULT_FUSION,
    ) -> None:
        """``query_embedding="cluster"``: send the query text and let the cluster embed it
        (ML Commons, `chunkwise.search.query_model`); the generation's default search pipeline
        names the model and fuses the hybrid query, unless ``query_model_id`` is given.
        The embedder then only says which languages the model reads. ``pipeline``: (name,
        fusion label) of another fusion pipeline for server-side fusion (`chunkwise eval
        --fusions`); its hits are ordered by the same tie rule. ``rerank``: the rerank
        stage after fusion (`chunkwise.search.rerank`), off without a model id. ``spec``:
        the fusion of both paths (its pipeline server-side, `fuse_client_side` otherwise)."""
        self.client = client
        self.embedder = embedder
        self.names = names or IndexNames()
        # Not the filtered read alias: the reader needs pending chunks too (a head may
        # name a revision whose live flag is not set yet).
        self.index = index or self.names.write_alias
        self._request = threading.local()  # the point in time of the search under way
        self.requested: Fusion = fusion
        self.candidates = max(1, candidates)
        self.policy = policy or RetryPolicy(attempts=3)
        self.query_embedding: QueryEmbedding = query_embedding
        self.query_model_id = query_model_id
        self.pipeline = pipeline
        self.rerank = rerank or RerankConfig()
        self.spec = spec
        self._caps: ClusterCaps | None = None
        self._lock = threading.Lock()
        self._model_checked = False

    @property
    def caps(self) -> ClusterCaps:
        """Detected once per Searcher (per warm Lambda). An outage is not cached (the
        next request asks again); a refusal (e.g. the role may not read the plugin
        list) is: client-side fusion then, without asking on every request."""
        with self._lock:
            if self._caps is None:
                try:
                    self._caps = detect_caps(self.client, self.policy, self.spec)
                except PermanentError as exc:
                    log.warning("cluster capabilities unreadable (%s): client-side fusion", exc)
                    self._caps = CLIENT_FUSION_ONLY
            return self._caps

    @property
    def fusion(self) -> Literal["server", "client"]:
        if self.requested == "client":
            return "client"
        if self.requested == "server":
            if self.caps.server_pipeline is None:
                raise RuntimeError(
                    "server-side fusion needs the neural-search plugin and a chunkwise search "
                    "pipeline (created by the admin step / `chunkwise local up`)"
                )
            return "server"
        return "server" if self.caps.server_pipeline else "client"

    def search(
        self,
        query: str,
        k: int = 5,
        filters: SearchFilters | None = None,
        *,
        lang: str | None = None,
        identity: Identity | None = None,
        access: AccessPolicy | None = None,
    ) -> list[Hit]:
        """The k best hits of the documents' current revisions (`answer`'s hits)."""
        return self.answer(query, k, filters, lang=lang, identity=identity, access=access).hits

    def answer(
        self,
        query: str,
        k: int = 5,
        filters: SearchFilters | None = None,
        *,
        lang: str | None = None,
        identity: Identity | None = None,
        access: AccessPolicy | None = None,
        rerank: bool | None = None,
        collapse: bool = True,
    ) -> Answer:
        """The k best hits of the documents' current revisions: candidates of any
        revision, then each document's head decides (`read_current`), searched again
        with a wider window when a head moved past the candidates; then the rerank
        stage (``rerank``: None = on when a model is configured) and post-processing
        (``collapse``: one hit per text).

        ``identity``: search as this verified caller (`restrict`); the access clause
        goes into both legs of every query path, with ``filters`` (its
        ``metadata_filter`` too), never applied to the hits afterwards. The reranker
        only ever sees hits that passed it."""
        if k < 1:
            raise ValueError("k must be >= 1")
        f = restrict(filters or SearchFilters(), identity, access)
        qlang = lang or guess_query_lang(query)
        use_rerank = self.rerank.enabled if rerank is None else rerank and self.rerank.enabled
        window = max(k * self.candidates, self.rerank.depth if use_rerank else 0)
        # candidates and heads from one point in time: the same searcher of each shard,
        # on its primary (`chunkwise.adapters.opensearch.snapshot`, why)
        with point_in_time(self.client, self.index, self.policy) as pit:
            self._request.pit = pit  # every candidate search of this read (`_search`)
            try:
                hits = read_current(
                    lambda attempt: self._candidates(query, window * (attempt + 1), f, qlang),
                    lambda h: candidate_of(h.id, h.doc_id, h.state),
                    lambda ids: self.heads.search_heads(ids, pit=pit),
                )
            finally:
                self._request.pit = None
        outcome = RerankOutcome(requested=bool(rerank))
        if rerank and not self.rerank.enabled:
            outcome = RerankOutcome(requested=True, error="no rerank model configured")
        if use_rerank:
            # After the heads and the filters: only current chunks the caller may read.
            scorer = ClusterScorer(self.client, self.rerank.model_id, self.rerank.timeout_ms)
            hits, outcome = rerank_stage(query, hits, self.rerank.depth, scorer, time.perf_counter)
            if outcome.error:
                log.warning("rerank failed, fused order kept: %s", outcome.error)
        return Answer(postprocess(hits, k, collapse=collapse), outcome)

    def withheld(
        self,
        query: str,
        filters: SearchFilters,
        *,
        lang: str | None = None,
        identity: Identity | None = None,
        access: AccessPolicy | None = None,
    ) -> int:
        """How many chunks the access clause kept from the lexical matches of ``query``
        (`chunkwise.search.audit.withheld_count_query`); 0 when nothing limits the caller."""
        f = restrict(filters, identity, access)
        if f.access is None or f.access == MATCH_ALL:
            return 0
        body = withheld_count_query(query, f, lang=lang or guess_query_lang(query))
        return withheld_count(self._search(body))

    @property
    def heads(self) -> OpenSearchHeads:
        index = OpenSearchIndex(self.client, self.names, target=self.index, policy=self.policy)
        return OpenSearchHeads(index)

    def _candidates(
        self, query: str, window: int, f: SearchFilters, qlang: str | None
    ) -> list[Hit]:
        if not self.embedder_reads(qlang):
            return self._lexical(query, window, f, qlang)
        if self.query_embedding == "cluster":
            # The generation's own query model embeds the text (chunkwise.search.query_model).
            return self._cluster_embedded(query, window, f, qlang)
        self.check_model()
        self._check_query_fits(query)
        vector = self.embedder.embed_query(query)
        if self.fusion == "server":
            return self._server(query, vector, window, f, qlang)
        return self._client(query, vector, window, f, qlang)

    def check_model(self) -> None:
        """Refuse (GenerationError) to put this embedder's query vectors against a
        generation built with another model; checked once per searcher."""
        if self._model_checked:
            return
        check_generation_model(self.client, self.index, GenerationModel.of(self.embedder))
        self._model_checked = True

    def _check_query_fits(self, query: str) -> None:
        """A query longer than the model's token cap is the caller's input (400), not a
        failure of ours: refuse it before the model does (it raises a PermanentError)."""
        if not isinstance(self.embedder, QueryTokenCounting):
            return
        tokens = self.embedder.count_query_tokens(query)
        cap = int(self.embedder.max_tokens)
        if tokens > cap:
            raise QueryRejected(
                f"query: {tokens} tokens, over the {cap} of {self.embedder.name}",
                public=f"the query is too long for the embedding model (at most {cap} tokens)",
            )

    def embedder_reads(self, lang: str | None) -> bool:
        """False when the query's language is known and the model was not trained on
        it: its vectors would only add noise to the fused ranking."""
        languages = getattr(self.embedder, "languages", None)
        return languages is None or lang is None or lang in languages

    def _lexical(self, query: str, window: int, f: SearchFilters, lang: str | None) -> list[Hit]:
        return hits_from_response(self._search(bm25_query(query, window, f, lang=lang)), "bm25")

    def _search(self, body: Mapping[str, Any], params: dict[str, Any] | None = None) -> Any:
        # whole or an error: a shard lost mid-query is a 503, not fewer hits
        every = {**WHOLE, **(params or {})}
        pit = getattr(self._request, "pit", None)
        index = None if pit else self.index  # a search in a PIT names no index
        return with_retries(
            self.policy,
            "search",
            lambda: _whole_search(self.client, index, in_pit(body, pit), every),
        )

    def _server(
        self, query: str, vector: list[float], window: int, f: SearchFilters, lang: str | None
    ) -> list[Hit]:
        pipeline = self.caps.server_pipeline or self.spec.pipeline_name
        label = self.spec.side_label("server")
        if self.pipeline is not None:
            pipeline, label = self.pipeline
        body = hybrid_query(query, vector, window, f, lang=lang)
        return hits_from_response(self._search(body, {"search_pipeline": pipeline}), label)

    def _client(
        self, query: str, vector: list[float], window: int, f: SearchFilters, lang: str | None
    ) -> list[Hit]:
        b = self._search(bm25_query(query, window, f, lang=lang))
        kn = self._search(knn_query(vector, window, f))
        return fuse_client_side(b["hits"]["hits"], kn["hits"]["hits"], self.spec)

    def _cluster_embedded(
        self, query: str, window: int, f: SearchFilters, lang: str | None
    ) -> list[Hit]:
        """Same queries as the client-embedded path, with ``query_text`` for the k-NN part.
        No pipeline is named: the generation's default pipeline (the admin step's fusion
        spec, `chunkwise.search.query_model.default_pipeline_body`) fuses, so server-side
        fusion needs only the plugin, not a chunkwise search pipeline."""
        server = self.requested != "client" and self.caps.neural_search
        if server:
            body = hybrid_text_query(query, window, f, lang=lang, model_id=self.query_model_id)
            return hits_from_response(self._search(body), self.spec.side_label("server"))
        b = self._search(bm25_query(query, window, f, lang=lang))
        kn = self._search(neural_query(query, window, f, model_id=self.query_model_id))
        return fuse_client_side(b["hits"]["hits"], kn["hits"]["hits"], self.spec)


def _whole_search(
    client: OpenSearch, index: str | None, body: Mapping[str, Any], params: dict[str, Any]
) -> Any:
    """One search attempt: the whole answer, or the query's own error."""
    try:
        return whole(client.search(index=index, body=body, params=params))
    except TransportError as exc:
        rejected = rejected_query(exc)
        if rejected is not None:
            raise rejected from exc  # not retried: the same query fails again
        raise
