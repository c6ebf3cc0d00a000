"""The query function, from an event (Function URL or HTTP API, payload format 2.0) to
its reply, over two ports: the search backend and the token verifier (pure).

In access mode ``groups`` every request is authenticated first, by the function itself
(`IdentityVerifier`, in production `chunkwise.adapters.jwt.TokenVerifier` on the raw
``Authorization`` header, whatever a gateway checked before it): 401 without a valid
token, 403 for a valid token whose groups are unusable or absent, 403 for a request
whose parameters name groups, readers or an identity. Then the request is parsed (400
naming the field; a bad ``filter`` names its JSON path), and the access clause is
added to the filters the backend puts into both legs of its query, before fusion and
before anything ranks the hits again. Every reply carries its audit record (who, how
many hits, how many chunks withheld; never the query or any text).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from chunkwise.access import AccessMode, AccessPolicy, AuthError, Identity
from chunkwise.errors import ConfigError, QueryRejected, TransientError
from chunkwise.metadata import DEFAULT_READERS_KEY, FilterError
from chunkwise.search.audit import AuditRecord
from chunkwise.search.hybrid import SearchFilters
from chunkwise.search.request import (
    BadRequest,
    IdentityInRequest,
    QueryRequest,
    filters,
    metadata_clause,
    parse_request,
)
from chunkwise.search.rerank import Answer


class SearchBackend(Protocol):
    """What the endpoint needs of a searcher (`chunkwise.adapters.opensearch.search.Searcher`)."""

    @property
    def fusion(self) -> str: ...

    def answer(
        self, query: str, k: int, filters: SearchFilters, *, rerank: bool | None, collapse: bool
    ) -> Answer: ...

    def withheld(self, query: str, filters: SearchFilters) -> int: ...


class IdentityVerifier(Protocol):
    def identify(self, authorization: str | None) -> Identity:
        """The verified identity of an ``Authorization`` header value, or AuthError."""


@dataclass(frozen=True)
class Reply:
    """An answer: HTTP status and body, the audit record, and for the log only: a
    warning (why a request failed) and the metrics to count."""

    status: int
    body: dict[str, Any]
    audit: AuditRecord
    warning: str | None = None
    metrics: Mapping[str, tuple[float, str]] = field(default_factory=dict)

    @classmethod
    def failure(cls) -> Reply:
        """The answer to a failure of ours (500): nothing of it is echoed."""
        return cls(500, {"error": "search failed"}, AuditRecord(status=500, access="unknown"))

    def response(self) -> dict[str, Any]:
        headers = {"content-type": "application/json; charset=utf-8"}
        if self.status == 401:
            headers["www-authenticate"] = "Bearer"  # RFC 6750: how to authenticate
        return {
            "statusCode": self.status,
            "headers": headers,
            "body": json.dumps(self.body, ensure_ascii=False),
        }


def header(event: Mapping[str, Any], name: str) -> str | None:
    """A request header, by name in any case (payload 2.0 lower-cases them; tests and
    other callers may not)."""
    headers = event.get("headers") or {}
    wanted = name.lower()
    for key, value in headers.items():
        if str(key).lower() == wanted:
            return str(value)
    return None


@dataclass(frozen=True)
class QueryEndpoint:
    """The query function's logic. ``backend`` is called per request (the searcher is
    built on first use, so a cold start does not wait for OpenSearch)."""

    backend: Callable[[], SearchBackend]
    policy: AccessPolicy = field(default_factory=AccessPolicy)
    verifier: IdentityVerifier | None = None
    readers_key: str = DEFAULT_READERS_KEY
    #: Names refused as request parameters besides `request.IDENTITY_PARAMS`.
    reserved: frozenset[str] = frozenset()
    source_bucket: str | None = None
    clock: Callable[[], float] = time.perf_counter

    def __post_init__(self) -> None:
        if self.policy.mode is AccessMode.GROUPS and self.verifier is None:
            raise ConfigError("access mode groups needs a token verifier")

    def answer(self, event: Mapping[str, Any]) -> Reply:
        try:
            identity = self._identify(event)
        except AuthError as exc:
            return self._refused(exc.status, exc.public, exc.reason.value, None, str(exc))
        except TransientError as exc:
            return self._unavailable(None, str(exc), _reason(exc))
        try:
            req = parse_request(dict(event), reserved={self.readers_key, *self.reserved})
            metadata = metadata_clause(
                req, readers_key=self.readers_key, source_bucket=self.source_bucket
            )
            access = self.policy.clause(identity)
        except IdentityInRequest as exc:
            return self._refused(403, "forbidden", "identity_in_request", identity, str(exc))
        except (BadRequest, FilterError) as exc:
            return self._refused(400, "bad request", "bad_request", identity, None, str(exc))
        except AuthError as exc:  # a verified identity without groups
            return self._refused(exc.status, exc.public, exc.reason.value, identity, str(exc))
        return self._search(req, filters(req, metadata).restricted(access), identity)

    def _identify(self, event: Mapping[str, Any]) -> Identity | None:
        if self.policy.mode is AccessMode.NONE:
            return None  # the invoke permission is the gate; a header means nothing here
        assert self.verifier is not None
        return self.verifier.identify(header(event, "authorization"))

    def _access_kind(self, identity: Identity | None) -> str:
        if self.policy.mode is AccessMode.NONE:
            return "none"
        return "admin" if self.policy.is_admin(identity) else "groups"

    def _search(self, req: QueryRequest, f: SearchFilters, identity: Identity | None) -> Reply:
        backend = self.backend()
        kind = self._access_kind(identity)
        t0 = self.clock()
        try:
            # The access clause is in ``f``: the rerank stage only sees what passed it.
            answer = backend.answer(req.query, req.k, f, rerank=req.rerank, collapse=req.collapse)
        except QueryRejected as exc:
            # OpenSearch refused the query itself (a 400, the clause limit): the caller's
            # input; OpenSearch's own text stays in the log.
            return self._refused(
                400, "bad request", "query_rejected", identity, str(exc), exc.public
            )
        except TransientError as exc:
            # a partial answer (shards failed or missing) is one of these: never a 200
            return self._unavailable(identity, str(exc), _reason(exc))
        took = (self.clock() - t0) * 1000.0
        hits = answer.hits
        withheld, warning = self._withheld(backend, req, f, kind)
        body = {
            "query": req.query,
            "k": req.k,
            "fusion": backend.fusion,
            "rerank": answer.rerank.as_dict(),
            "took_ms": round(took, 1),
            "hits": [
                {"rank": i, **h.model_dump(mode="json", exclude={"text"})}
                for i, h in enumerate(hits, start=1)
            ],
        }
        audit = AuditRecord.of(
            identity,
            status=200,
            access=kind,
            k=req.k,
            filtered=req.filter is not None,
            hits=len(hits),
            withheld=withheld,
        )
        return Reply(200, body, audit, warning, _search_metrics(took, answer))

    def _withheld(
        self, backend: SearchBackend, req: QueryRequest, f: SearchFilters, kind: str
    ) -> tuple[int, str | None]:
        """The audit's withheld count (0 when nothing limits the caller). A failure to
        count does not fail the answer: the hits are right, only the log line is short."""
        if kind != "groups":
            return 0, None
        try:
            return backend.withheld(req.query, f), None
        except (QueryRejected, TransientError) as exc:
            return -1, f"withheld count failed: {exc}"

    def _refused(
        self,
        status: int,
        public: str,
        reason: str,
        identity: Identity | None,
        warning: str | None,
        detail: str | None = None,
    ) -> Reply:
        body: dict[str, Any] = {"error": public}
        if detail is not None:
            body = {"error": "bad request", "detail": detail}
        audit = AuditRecord.of(
            identity, status=status, access=self._access_kind(identity), refused=reason
        )
        metric = "QueryRefused" if status in (401, 403) else "QueryBadRequests"
        return Reply(status, body, audit, warning, {metric: (1, "Count")})

    def _unavailable(
        self, identity: Identity | None, warning: str, reason: str = "unavailable"
    ) -> Reply:
        audit = AuditRecord.of(
            identity, status=503, access=self._access_kind(identity), refused="unavailable"
        )
        body = {"error": "search temporarily unavailable", "reason": reason}
        return Reply(503, body, audit, warning, {"QueryUnavailable": (1, "Count")})


def _reason(exc: TransientError) -> str:
    """The 503's ``reason``: a word for the client (``partial_results`` when shards
    failed on every attempt, ``opensearch_unavailable``, ...), never the message."""
    return str(getattr(exc, "public_reason", "unavailable"))


def _search_metrics(took_ms: float, answer: Answer) -> dict[str, tuple[float, str]]:
    metrics = {"QueryLatency": (took_ms, "Milliseconds"), "QueryHits": (len(answer.hits), "Count")}
    if answer.rerank.applied:
        metrics["RerankLatency"] = (answer.rerank.took_ms, "Milliseconds")
    elif answer.rerank.error:
        metrics["RerankFallbacks"] = (1, "Count")
    return metrics
