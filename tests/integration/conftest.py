"""Shared fixtures for integration tests that need a real OpenSearch node.

The node is started outside pytest (``make opensearch-up`` locally, ``.ci/run`` in CI), or is
an existing cluster named by ``OPENSEARCH_URL`` (a Docker container, an AWS domain). Tests that
ask for ``opensearch_url`` FAIL, never skip, when nothing answers: a silently skipped suite
would hide a broken CI setup.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from opensearchpy import OpenSearch

from chunkwise.adapters.opensearch.index import connect
from chunkwise.embedding.embed import Embedder
from chunkwise.models.local import default_embedder
from tests.embed_cache import CachedEmbedder

DEFAULT_OPENSEARCH_URL = "http://127.0.0.1:9200"

OsHttp = Callable[..., Any]


def _request(
    base_url: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    ndjson: list[Any] | None = None,
    ok: tuple[int, ...] = (200, 201),
    timeout: float = 30.0,
) -> Any:
    """One JSON request to OpenSearch; raises AssertionError with the response body on error."""
    data: bytes | None = None
    headers = {"Accept": "application/json"}
    if ndjson is not None:
        data = "".join(json.dumps(line) + "\n" for line in ndjson).encode()
        headers["Content-Type"] = "application/x-ndjson"
    elif body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(base_url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        status, raw = err.code, err.read()
    text = raw.decode("utf-8", "replace")
    if status not in ok:
        raise AssertionError(f"{method} {path} -> HTTP {status}: {text[:2000]}")
    return json.loads(text) if text.strip() else None


@pytest.fixture(scope="session")
def opensearch_url() -> str:
    """Base URL of a reachable OpenSearch cluster with yellow or green health."""
    url = os.environ.get("OPENSEARCH_URL", DEFAULT_OPENSEARCH_URL).rstrip("/")
    hint = (
        "start the local node with `make opensearch-up` (tools/opensearch/opensearch.sh; "
        "log in .local/opensearch/node.log) or set OPENSEARCH_URL to a running cluster"
    )
    try:
        health = _request(url, "GET", "/_cluster/health", timeout=10)
    except (OSError, AssertionError, ValueError) as err:
        pytest.fail(f"OpenSearch is not reachable at {url}: {err}; {hint}", pytrace=False)
    if health.get("status") not in ("green", "yellow"):
        pytest.fail(f"OpenSearch at {url} has cluster health {health!r}; {hint}", pytrace=False)
    return url


@pytest.fixture(scope="session")
def os_http(opensearch_url: str) -> OsHttp:
    """``os_http(method, path, body=None, *, ndjson=None, ok=(200, 201))`` -> parsed JSON."""

    def call(method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        return _request(opensearch_url, method, path, body, **kwargs)

    return call


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real local embedding model (loaded once per test session), its vectors
    for fixture texts kept on disk keyed by model, tokenizer and text
    (tests/embed_cache.py)."""
    return CachedEmbedder(default_embedder())  # type: ignore[return-value]


@pytest.fixture(scope="session")
def client(opensearch_url: str) -> OpenSearch:
    """An opensearch-py client on the node under test, with the search pipelines the
    deploy-time step creates (the query path only reads them)."""
    from chunkwise.adapters.opensearch.search import ensure_search_pipelines

    os_client = connect(opensearch_url)
    ensure_search_pipelines(os_client)
    return os_client
