"""Query function (Lambda Function URL, IAM auth): hybrid search with citations.

    GET  /?q=Wartungsintervall&k=5&key_prefix=incoming/&lang=de&kind=table
    POST /  {"query": "...", "k": 5, "key_prefix": "...", "lang": ["de"], "kind": ["table"],
             "doc_id": ["..."]}

Returns ``{"query", "k", "fusion", "took_ms", "hits": [...]}``; every hit carries its
citation: S3 key, revision, pages, ``[start, end)`` into the revision's extracted
text, heading path and the cited body. 400 for a bad request (every parameter is
bounded; the detail names the field) or a query OpenSearch refuses, 503 when
OpenSearch is unavailable (retry), 500 otherwise (counted as ``QueryErrors``).
Error bodies never carry OpenSearch's internal messages.
"""

from __future__ import annotations

import base64
import json
import re
import time
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from chunkwise.errors import QueryRejected, TransientError
from chunkwise.schema import ChunkKind
from chunkwise.settings import QuerySettings, load_settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

    from chunkwise.adapters.opensearch.search import Searcher

logger = Logger(service="chunkwise-query")
tracer = Tracer(service="chunkwise-query")
metrics = Metrics(namespace="chunkwise", service="query")

SETTINGS: QuerySettings = load_settings(QuerySettings)
_SEARCHER: Searcher | None = None


# Bounds on every parameter: a request outside them is the caller's mistake (400),
# never a query OpenSearch has to reject (500) or a 503 the caller would retry.
MAX_QUERY_CHARS = 2000
# Lucene's clause limit (1024) applies to the whole lexical query: each term is a clause
# per analysed field, so the number of terms is bounded well below 1024 / fields.
MAX_QUERY_TERMS = 128
MAX_KEY_PREFIX_CHARS = 1024  # an S3 key is at most 1,024 bytes
MAX_FILTER_VALUES = 20
MAX_DOC_IDS = 100
_TERM = re.compile(r"\w+")
_LANG = re.compile(r"^[a-z]{2,3}$")
_DOC_ID = re.compile(r"^[0-9a-f]{32}$")
_KINDS = frozenset(k.value for k in ChunkKind)


class BadRequest(ValueError):
    """A request parameter is invalid; the message names the field, never echoes it."""


class QueryRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: StrictInt = Field(5, ge=1, le=50)
    key_prefix: str | None = Field(None, max_length=MAX_KEY_PREFIX_CHARS)
    lang: tuple[str, ...] = Field((), max_length=MAX_FILTER_VALUES)
    kind: tuple[str, ...] = Field((), max_length=MAX_FILTER_VALUES)
    doc_id: tuple[str, ...] = Field((), max_length=MAX_DOC_IDS)

    @field_validator("query")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        if len(_TERM.findall(v)) > MAX_QUERY_TERMS:
            raise ValueError(f"at most {MAX_QUERY_TERMS} terms")
        return v

    @field_validator("lang")
    @classmethod
    def _langs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if any(not _LANG.match(x) for x in v):
            raise ValueError("each value must be a 2-3 letter lowercase language code")
        return v

    @field_validator("kind")
    @classmethod
    def _kinds(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if any(x not in _KINDS for x in v):
            raise ValueError(f"each value must be one of {', '.join(sorted(_KINDS))}")
        return v

    @field_validator("doc_id")
    @classmethod
    def _doc_ids(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if any(not _DOC_ID.match(x) for x in v):
            raise ValueError("each value must be a 32-digit lowercase hex document id")
        return v


def _validated(data: dict[str, Any]) -> QueryRequest:
    """QueryRequest, or BadRequest naming each bad field (pydantic's own text would
    repeat the input, which may be a megabyte)."""
    try:
        return QueryRequest.model_validate(data)
    except ValidationError as exc:
        parts = [
            f"{'.'.join(str(x) for x in e['loc'][:1]) or 'body'}: {e['msg']}"
            for e in exc.errors(include_input=False, include_url=False)
        ]
        raise BadRequest("; ".join(parts)) from None


def _k_param(raw: object) -> object:
    """``k`` from a query string: digits only (``true`` or ``1.5`` is not a count)."""
    if raw is None:
        return 5
    text = str(raw)
    if not text.isascii() or not text.isdigit() or len(text) > 3:
        raise BadRequest("k: must be an integer from 1 to 50")
    return int(text)


def parse_request(event: dict[str, Any]) -> QueryRequest:
    method = str(event.get("requestContext", {}).get("http", {}).get("method", "GET")).upper()
    if method == "POST":
        raw = event.get("body") or "{}"
        try:
            if event.get("isBase64Encoded"):
                raw = base64.b64decode(raw).decode("utf-8")
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise BadRequest("body: must be a UTF-8 JSON object") from None
        if not isinstance(data, dict):
            raise BadRequest("body: must be a JSON object")
        return _validated(data)
    qs = event.get("queryStringParameters") or {}

    def listed(name: str) -> tuple[str, ...]:
        v = qs.get(name)
        return tuple(x for x in str(v).split(",") if x) if v else ()

    return _validated(
        {
            "query": str(qs.get("q", qs.get("query", ""))),
            "k": _k_param(qs.get("k")),
            "key_prefix": qs.get("key_prefix"),
            "lang": listed("lang"),
            "kind": listed("kind"),
            "doc_id": listed("doc_id"),
        }
    )


def get_searcher() -> Searcher:
    global _SEARCHER
    if _SEARCHER is None:
        from chunkwise.adapters.opensearch.search import Searcher
        from chunkwise.embedding.embed import get_embedder
        from chunkwise.wiring import opensearch_client

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
    from chunkwise.search.hybrid import SearchFilters

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
