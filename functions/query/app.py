"""Query function (Lambda Function URL, IAM auth): hybrid search with citations.

    GET  /?q=Wartungsintervall&k=5&key_prefix=incoming/&lang=de&kind=table
    POST /  {"query": "...", "k": 5, "key_prefix": "...", "lang": ["de"], "kind": ["table"],
             "doc_id": ["..."]}

Returns ``{"query", "k", "fusion", "took_ms", "hits": [...]}``; every hit carries its
citation: S3 key, revision, pages, ``[start, end)`` into the revision's extracted
text, heading path and the cited body. 400 for a bad request, 503 when OpenSearch is
unavailable (retry), 500 otherwise.
"""

from __future__ import annotations

import base64
import json
import time
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from chunkwise.aws import Settings, load_settings
from chunkwise.errors import ChunkwiseError, TransientError

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from chunkwise.search_opensearch import Searcher

logger = Logger(service="chunkwise-query")
tracer = Tracer(service="chunkwise-query")
metrics = Metrics(namespace="chunkwise", service="query")

SETTINGS: Settings = load_settings(need_bucket=False)
_SEARCHER: Searcher | None = None


class QueryRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1, max_length=2000)
    k: int = Field(5, ge=1, le=50)
    key_prefix: str | None = None
    lang: tuple[str, ...] = ()
    kind: tuple[str, ...] = ()
    doc_id: tuple[str, ...] = ()

    @field_validator("query")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        return v


def parse_request(event: dict[str, Any]) -> QueryRequest:
    method = str(event.get("requestContext", {}).get("http", {}).get("method", "GET")).upper()
    if method == "POST":
        raw = event.get("body") or "{}"
        if event.get("isBase64Encoded"):
            raw = base64.b64decode(raw).decode("utf-8")
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("body must be a JSON object")
        return QueryRequest.model_validate(data)
    qs = event.get("queryStringParameters") or {}

    def listed(name: str) -> tuple[str, ...]:
        v = qs.get(name)
        return tuple(x for x in str(v).split(",") if x) if v else ()

    return QueryRequest(
        query=str(qs.get("q", qs.get("query", ""))),
        k=int(qs.get("k", 5)),
        key_prefix=qs.get("key_prefix"),
        lang=listed("lang"),
        kind=listed("kind"),
        doc_id=listed("doc_id"),
    )


def get_searcher() -> Searcher:
    global _SEARCHER
    if _SEARCHER is None:
        from chunkwise.aws import opensearch_client
        from chunkwise.embed import get_embedder
        from chunkwise.search_opensearch import Searcher

        # With query_embedding "cluster" the embedder only says which languages the
        # model reads; the query vector comes from the cluster's query model.
        _SEARCHER = Searcher(
            opensearch_client(SETTINGS),
            get_embedder(SETTINGS.embedder),
            SETTINGS.names,
            query_embedding=SETTINGS.query_embedding,
        )
    return _SEARCHER


def _response(status: int, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "statusCode": status,
        "headers": {"content-type": "application/json; charset=utf-8"},
        "body": json.dumps(body, ensure_ascii=False),
    }


def search(req: QueryRequest) -> dict[str, Any]:
    from chunkwise.search import SearchFilters

    searcher = get_searcher()
    t0 = time.perf_counter()
    hits = searcher.search(
        req.query,
        req.k,
        SearchFilters(
            doc_ids=req.doc_id, key_prefix=req.key_prefix, langs=req.lang, kinds=req.kind
        ),
    )
    took = (time.perf_counter() - t0) * 1000.0
    metrics.add_metric(name="QueryLatency", unit=MetricUnit.Milliseconds, value=took)
    metrics.add_metric(name="QueryHits", unit=MetricUnit.Count, value=len(hits))
    return {
        "query": req.query,
        "k": req.k,
        "fusion": searcher.fusion,
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
    except (ValidationError, ValueError) as exc:
        return _response(400, {"error": "bad request", "detail": str(exc)})
    try:
        return _response(200, search(req))
    except TransientError as exc:
        logger.warning("search unavailable", extra={"reason": str(exc)})
        return _response(503, {"error": "search temporarily unavailable", "detail": str(exc)})
    except ChunkwiseError as exc:
        logger.exception("search failed")
        return _response(500, {"error": "search failed", "detail": str(exc)})
