"""Query function: hybrid search with citations, filtered by metadata and access.

    GET  /?q=Wartungsintervall&k=5&key_prefix=incoming/&lang=de&kind=table&filter=<JSON>
    POST /  {"query": "...", "k": 5, "key_prefix": "...", "lang": ["de"], "kind": ["table"],
             "doc_id": ["..."], "filter": {"equals": {"key": "department", "value": "legal"}},
             "rerank": true, "collapse": true}

Behind a Function URL with IAM auth (access mode ``none``) or an HTTP API with a JWT
authorizer (mode ``groups``, where this function verifies the bearer token itself
too). The logic is `chunkwise.search.endpoint.QueryEndpoint`: returns
``{"query", "k", "fusion", "rerank", "took_ms", "hits": [...]}``, every hit with its
citation and scores (fused, and the rerank score beside it when reranked; ``rerank``
says what the rerank stage did, ``applied`` false with an ``error``: fused order);
401/403 for a caller without a valid token or groups, 400 for a bad request (the
detail names the field, a bad filter its JSON path) or a query OpenSearch refuses, 503
when OpenSearch or the token issuer is unavailable (retry), 500 otherwise (counted as
``QueryErrors``). Error bodies never carry OpenSearch's internal messages. One audit
log line per request: who asked, hits, chunks withheld; never the query or any text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit

from chunkwise.search.endpoint import QueryEndpoint, Reply
from chunkwise.settings import QuerySettings, load_settings
from chunkwise.wiring.query import query_endpoint

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
            spec=SETTINGS.fusion_spec,
        )
    return _SEARCHER


# Access control is checked here, at cold start: a bad setting fails the init.
ENDPOINT: QueryEndpoint = query_endpoint(SETTINGS, lambda: get_searcher())


def _report(reply: Reply) -> None:
    for name, (value, unit) in reply.metrics.items():
        metrics.add_metric(name=name, unit=MetricUnit(unit), value=value)
    if reply.warning:
        logger.warning(
            "query not answered" if reply.status != 200 else "query audit incomplete",
            extra={"reason": reply.warning},
        )
    logger.info("query audit", extra=reply.audit.fields())


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        reply = ENDPOINT.answer(event)
    except Exception:  # every other failure is ours: logged, counted, never echoed
        logger.exception("search failed")
        metrics.add_metric(name="QueryErrors", unit=MetricUnit.Count, value=1)
        return Reply.failure().response()
    _report(reply)
    return reply.response()
