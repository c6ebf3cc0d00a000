"""Query function (Lambda Function URL, IAM auth): hybrid search with citations.

    GET  /?q=Wartungsintervall&k=5&key_prefix=incoming/&lang=de&kind=table
    POST /  {"query": "...", "k": 5, "key_prefix": "...", "lang": ["de"], "kind": ["table"],
             "doc_id": ["..."], "rerank": true, "collapse": true}

The request is parsed and bounded by `chunkwise.search.request`. Returns
``{"query", "k", "fusion", "rerank", "took_ms", "hits": [...]}``; every hit carries its
citation: S3 key, revision, pages, ``[start, end)`` into the revision's extracted
text, heading path and the cited body, its scores (fused, and the rerank score beside
it when reranked) and ``also_in`` (the same text in other documents). ``rerank`` says
what the rerank stage did: ``applied`` false with an ``error`` means the reranker
failed or ran out of time and the hits are in their fused order. 400 for a bad
request (every parameter is bounded; the detail names the field) or a query
OpenSearch refuses, 503 when OpenSearch is unavailable (retry), 500 otherwise
(counted as ``QueryErrors``). Error bodies never carry OpenSearch's internal messages.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit

from chunkwise.errors import QueryRejected, TransientError
from chunkwise.search.request import BadRequest, QueryRequest, filters, parse_request
from chunkwise.settings import QuerySettings, load_settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from chunkwise.adapters.opensearch.search import Searcher

logger = Logger(service="chunkwise-query")
tracer = Tracer(service="chunkwise-query")
metrics = Metrics(namespace="chunkwise", service="query")

SETTINGS: QuerySettings = load_settings(QuerySettings)
_SEARCHER: Searcher | None = None


def get_searcher() -> Searcher:
    global _SEARCHER
    if _SEARCHER is None:
        from chunkwise.adapters.opensearch.search import Searcher
        from chunkwise.wiring import opensearch_client, rerank_config
        from chunkwise.wiring.embedders import embedder_for

        # With query_embedding "cluster" the embedder only says which languages the
        # model reads; the query vector comes from the cluster's query model.
        _SEARCHER = Searcher(
            opensearch_client(SETTINGS),
            embedder_for(SETTINGS),
            SETTINGS.names,
            query_embedding=SETTINGS.query_embedding,
            rerank=rerank_config(SETTINGS),
        )
    return _SEARCHER


def _response(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"content-type": "application/json; charset=utf-8"},
        "body": json.dumps(body, ensure_ascii=False),
    }


def search(req: QueryRequest) -> dict[str, Any]:
    searcher = get_searcher()
    t0 = time.perf_counter()
    answer = searcher.answer(
        req.query, req.k, filters(req), rerank=req.rerank, collapse=req.collapse
    )
    hits = answer.hits
    took = (time.perf_counter() - t0) * 1000.0
    metrics.add_metric(name="QueryLatency", unit=MetricUnit.Milliseconds, value=took)
    metrics.add_metric(name="QueryHits", unit=MetricUnit.Count, value=len(hits))
    if answer.rerank.applied:
        metrics.add_metric(
            name="RerankLatency", unit=MetricUnit.Milliseconds, value=answer.rerank.took_ms
        )
    elif answer.rerank.error:
        metrics.add_metric(name="RerankFallbacks", unit=MetricUnit.Count, value=1)
    return {
        "query": req.query,
        "k": req.k,
        "fusion": searcher.fusion,
        "rerank": answer.rerank.as_dict(),
        "took_ms": round(took, 1),
        "hits": [
            {"rank": i, **h.model_dump(mode="json", exclude={"text"})}
            for i, h in enumerate(hits, start=1)
        ],
    }


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        req = parse_request(event)
    except BadRequest as exc:
        return _response(400, {"error": "bad request", "detail": str(exc)})
    try:
        return _response(200, search(req))
    except QueryRejected as exc:
        # OpenSearch refused the query itself (a 400, the clause limit): the caller's
        # input; OpenSearch's own text stays in the log.
        logger.warning("query rejected", extra={"reason": str(exc)})
        return _response(400, {"error": "bad request", "detail": exc.public})
    except TransientError as exc:
        logger.warning("search unavailable", extra={"reason": str(exc)})
        metrics.add_metric(name="QueryUnavailable", unit=MetricUnit.Count, value=1)
        return _response(503, {"error": "search temporarily unavailable"})
    except Exception:  # every other failure is ours: logged, counted, never echoed
        logger.exception("search failed")
        metrics.add_metric(name="QueryErrors", unit=MetricUnit.Count, value=1)
        return _response(500, {"error": "search failed"})
