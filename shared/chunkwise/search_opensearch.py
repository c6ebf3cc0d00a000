"""Executes hybrid search against OpenSearch (opensearch-py); picks the fusion path.

- ``server``: the cluster has neural-search. A search pipeline fuses the
  ``hybrid`` query's BM25 and k-NN sub-results: RRF (``score-ranker-processor``,
  neural-search >= 2.19) or, on older plugins, min-max normalisation + mean.
  One round trip; the score breakdown has the fused score only.
- ``client``: two searches (BM25, k-NN) fused by `chunkwise.search.rrf` (k=60);
  the breakdown has both retrievers' scores and ranks.
- ``auto`` (default): ``server`` if the plugin is there, else ``client``.

Both query the read alias, whose filter hides non-live chunks; the same live
filter is also inside every query (so k-NN picks its top k among live chunks).
Results are post-processed (newest revision per document, no overlapping spans).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from opensearchpy import OpenSearch
from opensearchpy.exceptions import TransportError

from chunkwise.embed import Embedder
from chunkwise.errors import QueryRejected
from chunkwise.index import GenerationModel, IndexNames
from chunkwise.index_opensearch import RetryPolicy, check_generation_model, with_retries
from chunkwise.search import (
    PIPELINE_NORM,
    PIPELINE_RRF,
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
    normalization_pipeline_body,
    postprocess,
    rrf_pipeline_body,
)

log = logging.getLogger("chunkwise.search")

Fusion = Literal["auto", "server", "client"]
QueryEmbedding = Literal["client", "cluster"]


@dataclass(frozen=True)
class ClusterCaps:
    neural_search: bool
    rrf_pipeline: bool  # score-ranker-processor accepted
    version: str


def detect_caps(client: OpenSearch, policy: RetryPolicy | None = None) -> ClusterCaps:
    """Does the cluster have neural-search, and does it accept the RRF processor?"""
    pol = policy or RetryPolicy(attempts=3)
    plugins = with_retries(pol, "cat plugins", lambda: client.cat.plugins(format="json"))
    names = {str(p.get("component", "")) for p in plugins}
    version = str(with_retries(pol, "info", client.info).get("version", {}).get("number", ""))
    neural = any("neural-search" in n for n in names)
    rrf_ok = False
    if neural:
        try:
            client.transport.perform_request(
                "PUT", f"/_search/pipeline/{PIPELINE_RRF}", body=rrf_pipeline_body()
            )
            rrf_ok = True
        except TransportError as exc:
            log.info("RRF search pipeline not accepted (%s); using normalization", exc)
            client.transport.perform_request(
                "PUT", f"/_search/pipeline/{PIPELINE_NORM}", body=normalization_pipeline_body()
            )
    return ClusterCaps(neural_search=neural, rrf_pipeline=rrf_ok, version=version)


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


class Searcher:
    """Hybrid search over the read alias."""

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
    ) -> None:
        """``query_embedding="cluster"``: send the query text and let the cluster embed it
        (ML Commons, `chunkwise.query_model`); the generation's default search pipeline
        names the model and fuses the hybrid query, unless ``query_model_id`` is given.
        The embedder then only says which languages the model reads."""
        self.client = client
        self.embedder = embedder
        self.names = names or IndexNames()
        self.index = index or self.names.read_alias
        self.requested: Fusion = fusion
        self.candidates = max(1, candidates)
        self.policy = policy or RetryPolicy(attempts=3)
        self.query_embedding: QueryEmbedding = query_embedding
        self.query_model_id = query_model_id
        self._caps: ClusterCaps | None = None
        self._lock = threading.Lock()
        self._model_checked = False

    @property
    def caps(self) -> ClusterCaps:
        with self._lock:
            if self._caps is None:
                self._caps = detect_caps(self.client, self.policy)
            return self._caps

    @property
    def fusion(self) -> Literal["server", "client"]:
        if self.requested == "client":
            return "client"
        if self.requested == "server":
            if not self.caps.neural_search:
                raise RuntimeError("server-side fusion needs the neural-search plugin")
            return "server"
        return "server" if self.caps.neural_search else "client"

    def search(
        self,
        query: str,
        k: int = 5,
        filters: SearchFilters | None = None,
        *,
        lang: str | None = None,
    ) -> list[Hit]:
        if k < 1:
            raise ValueError("k must be >= 1")
        f = filters or SearchFilters()
        qlang = lang or guess_query_lang(query)
        window = k * self.candidates
        if not self.embedder_reads(qlang):
            return postprocess(self._lexical(query, window, f, qlang), k)
        if self.query_embedding == "cluster":
            # The generation's own query model embeds the text (chunkwise.query_model).
            return postprocess(self._cluster_embedded(query, window, f, qlang), k)
        self.check_model()
        vector = self.embedder.embed_query(query)
        if self.fusion == "server":
            hits = self._server(query, vector, window, f, qlang)
        else:
            hits = self._client(query, vector, window, f, qlang)
        return postprocess(hits, k)

    def check_model(self) -> None:
        """Refuse (GenerationError) to put this embedder's query vectors against a
        generation built with another model; checked once per searcher."""
        if self._model_checked:
            return
        check_generation_model(self.client, self.index, GenerationModel.of(self.embedder))
        self._model_checked = True

    def embedder_reads(self, lang: str | None) -> bool:
        """False when the query's language is known and the model was not trained on
        it: its vectors would only add noise to the fused ranking."""
        languages = getattr(self.embedder, "languages", None)
        return languages is None or lang is None or lang in languages

    def _lexical(self, query: str, window: int, f: SearchFilters, lang: str | None) -> list[Hit]:
        return hits_from_response(self._search(bm25_query(query, window, f, lang=lang)), "bm25")

    def _search(self, body: Mapping[str, Any], params: dict[str, Any] | None = None) -> Any:
        def attempt() -> Any:
            try:
                return self.client.search(index=self.index, body=body, params=params or {})
            except TransportError as exc:
                rejected = rejected_query(exc)
                if rejected is not None:
                    raise rejected from exc  # not retried: the same query fails again
                raise

        return with_retries(self.policy, "search", attempt)

    def _server(
        self, query: str, vector: list[float], window: int, f: SearchFilters, lang: str | None
    ) -> list[Hit]:
        pipeline = PIPELINE_RRF if self.caps.rrf_pipeline else PIPELINE_NORM
        body = hybrid_query(query, vector, window, f, lang=lang)
        resp = self._search(body, {"search_pipeline": pipeline})
        return hits_from_response(resp, "rrf-server" if pipeline == PIPELINE_RRF else "norm-server")

    def _client(
        self, query: str, vector: list[float], window: int, f: SearchFilters, lang: str | None
    ) -> list[Hit]:
        b = self._search(bm25_query(query, window, f, lang=lang))
        kn = self._search(knn_query(vector, window, f))
        return fuse_client_side(b["hits"]["hits"], kn["hits"]["hits"])

    def _cluster_embedded(
        self, query: str, window: int, f: SearchFilters, lang: str | None
    ) -> list[Hit]:
        """Same queries as the client-embedded path, with ``query_text`` for the k-NN part.
        No pipeline is named: the generation's default pipeline (RRF, k=60) fuses."""
        if self.fusion == "server":
            body = hybrid_text_query(query, window, f, lang=lang, model_id=self.query_model_id)
            return hits_from_response(self._search(body), "rrf-server")
        b = self._search(bm25_query(query, window, f, lang=lang))
        kn = self._search(neural_query(query, window, f, model_id=self.query_model_id))
        return fuse_client_side(b["hits"]["hits"], kn["hits"]["hits"])
