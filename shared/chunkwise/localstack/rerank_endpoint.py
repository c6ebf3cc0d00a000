"""The loopback rerank endpoint: Bedrock's rerank API, served locally to the node's ML Commons.

On AWS the cluster's rerank connector calls Bedrock (Cohere Rerank 3.5). Locally there
is no Bedrock, so the local node's connector (`chunkwise.search.rerank.local_rerank_connector_body`)
calls this endpoint with the very request template the Bedrock connector uses, and the
endpoint answers in Bedrock's shape, so ML Commons runs the same pre- and
post-processing on both:

    POST /rerank  {"query": "...", "documents": ["...", ...], "api_version": 2, "top_n": N}
               -> {"id": "...", "results": [{"index": i, "relevance_score": s}, ...]}
                  (best first; ``top_n`` results, all when absent)

The scorer is pluggable (`RerankScorer`). **No multilingual cross-encoder ships its
weights in a PyPI wheel under a permissive licence** (checked: flashrank and the
sentence-transformers wrappers download their models at run time; the one wheel that
bakes in a model, small-hybrid-reranker, declares no licence and loads static
embeddings from a hub), so the default local scorer, `OverlapScorer`, is lexical: it
proves the wiring (connector, processor, fallback, timeouts) and is not a model to
measure ranking quality with. The embedding endpoint (`chunkwise.localstack.embed_endpoint`)
serves this route too, so `chunkwise local up` starts no further process.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Protocol

from chunkwise.localstack.loopback import JsonHandler, RunningServer, serve_in_thread

MAX_BODY_BYTES = 8 * 1024 * 1024
MAX_DOCUMENTS = 1000  # Bedrock's limit per rerank request
MAX_QUERY_CHARS = 32_000
_WORD = re.compile(r"\w+")


class RerankScorer(Protocol):
    """Scores (query, passage) pairs; higher is more relevant."""

    @property
    def name(self) -> str: ...

    def score(self, query: str, documents: Sequence[str]) -> list[float]: ...


def _stems(text: str) -> set[str]:
    # Five-letter prefixes: a crude stem that lets "Wartung" meet "Wartungsintervall"
    # and "checked" meet "check", in English and German alike.
    return {w[:5] for w in _WORD.findall(text.casefold()) if len(w) > 2}


@dataclass(frozen=True)
class OverlapScorer:
    """Share of the query's word stems found in the passage (ties: the shorter passage).
    Wiring only: not a relevance model."""

    name: str = "overlap"

    def score(self, query: str, documents: Sequence[str]) -> list[float]:
        q = _stems(query)
        if not q:
            return [0.0 for _ in documents]
        out = []
        for doc in documents:
            d = _stems(doc)
            out.append(len(q & d) / len(q) + 1e-6 / (1 + len(d)))
        return out


class BadRerankRequest(ValueError):
    """The body is not a Bedrock rerank request."""


@dataclass(frozen=True)
class RerankRequest:
    query: str
    documents: list[str]
    top_n: int | None


def parse_rerank_request(body: bytes) -> RerankRequest:
    """Bedrock's Cohere Rerank 3.5 request: ``query``, ``documents`` (strings),
    ``api_version`` 2, optional ``top_n``; anything else is refused by name."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRerankRequest(f"body is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BadRerankRequest("body must be a JSON object")
    unknown = sorted(set(data) - {"query", "documents", "api_version", "top_n"})
    if unknown:
        raise BadRerankRequest(f"unknown field(s) {unknown}")
    query, docs = data.get("query"), data.get("documents")
    if not isinstance(query, str) or not query or len(query) > MAX_QUERY_CHARS:
        raise BadRerankRequest('"query" must be a non-empty string')
    if not isinstance(docs, list) or not docs or not all(isinstance(d, str) for d in docs):
        raise BadRerankRequest('"documents" must be a non-empty list of strings')
    if len(docs) > MAX_DOCUMENTS:
        raise BadRerankRequest(f'"documents": at most {MAX_DOCUMENTS}, got {len(docs)}')
    if data.get("api_version") != 2:
        raise BadRerankRequest('"api_version" must be 2 (Cohere Rerank 3.5 on Bedrock)')
    top_n = data.get("top_n")
    if top_n is not None and (not isinstance(top_n, int) or isinstance(top_n, bool) or top_n < 1):
        raise BadRerankRequest('"top_n" must be a positive integer')
    return RerankRequest(query, docs, top_n)


def rerank_response(scorer: RerankScorer, req: RerankRequest) -> dict[str, Any]:
    """Bedrock's answer: results best first, each the document's index and its score."""
    scores = scorer.score(req.query, req.documents)
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    if req.top_n is not None:
        order = order[: req.top_n]
    return {
        "id": str(uuid.uuid4()),
        "results": [{"index": i, "relevance_score": float(scores[i])} for i in order],
    }


def handle(scorer: RerankScorer, body: bytes) -> tuple[int, dict[str, Any]]:
    """(status, payload) of one POST /rerank."""
    try:
        return HTTPStatus.OK, rerank_response(scorer, parse_rerank_request(body))
    except BadRerankRequest as exc:
        return HTTPStatus.BAD_REQUEST, {"message": str(exc)}


def _handler_class(scorer: RerankScorer) -> type[JsonHandler]:
    class Handler(JsonHandler):
        server_version = "chunkwise-rerank/1"
        service = "rerank-endpoint"
        max_body_bytes = MAX_BODY_BYTES

        def do_POST(self) -> None:  # noqa: N802 (http.server dispatches on the name)
            body = self.read_body()
            if self.route() != "/rerank" or body is None:
                self.send_json(HTTPStatus.NOT_FOUND, {"message": f"no route {self.path}"})
            else:
                self.send_json(*handle(scorer, body))

    return Handler


def start_in_thread(scorer: RerankScorer, port: int = 0) -> RunningServer:
    """Serve ``scorer`` on 127.0.0.1:``port`` (0: any free port) from a daemon thread."""
    return serve_in_thread(_handler_class(scorer), port)
