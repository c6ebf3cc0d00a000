"""The loopback embedding endpoint over real HTTP (a fake model, no OpenSearch)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from chunkwise.localstack.embed_endpoint import probe, start_in_thread
from chunkwise.localstack.loopback import RunningServer

pytestmark = pytest.mark.integration


class _Encoder:
    name = "fake-e5"
    dimension = 2
    query_prefix = "query: "

    def embed_query(self, text: str) -> list[float]:
        return [float(len(self.query_prefix + text)), 0.5]


@pytest.fixture()
def endpoint() -> Iterator[RunningServer]:
    running = start_in_thread(_Encoder())
    try:
        yield running
    finally:
        running.stop()


def _post(url: str, body: bytes) -> tuple[int, Any]:
    req = urllib.request.Request(
        url, data=body, method="POST", headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_it_embeds_what_the_connector_sends(endpoint: RunningServer) -> None:
    body = json.dumps({"prefix": "query: ", "texts": ["Tagegeld", "ü"]}).encode()
    status, data = _post(endpoint.url + "/embed", body)
    assert status == 200
    assert data["embeddings"] == [
        [15.0, 0.5],
        [8.0, 0.5],
    ]  # len("query: Tagegeld"), len("query: ü")
    assert probe(endpoint.url) == {"model": "fake-e5", "dimension": 2, "query_prefix": "query: "}


def test_it_refuses_bad_requests(endpoint: RunningServer) -> None:
    assert _post(endpoint.url + "/embed", b'{"texts": []}')[0] == 400
    assert _post(endpoint.url + "/embed", b"{")[0] == 400
    wrong_prefix = _post(endpoint.url + "/embed", b'{"texts": ["a"], "prefix": ""}')
    assert wrong_prefix[0] == 400 and "expects 'query: '" in wrong_prefix[1]["error"]
    assert _post(endpoint.url + "/other", b'{"texts": ["a"]}')[0] == 404
    assert endpoint.url.startswith("http://127.0.0.1:")
