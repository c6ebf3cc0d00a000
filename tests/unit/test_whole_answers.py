"""Whole answers or a clear error: every read of the revision protocol and the query
path refuses a partial answer (shards failed or missing, timed out, an ``_mget`` doc
unreadable); it is retried and then raised as `PartialResultError`, never used as if
complete (fake clients, no I/O; issue #27)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from chunkwise.adapters.opensearch.heads import OpenSearchHeads
from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.live_set import OpenSearchLiveSet
from chunkwise.adapters.opensearch.retries import (
    PartialResultError,
    RetryPolicy,
    TransientOpenSearchError,
    whole,
    whole_docs,
    with_retries,
)
from chunkwise.adapters.opensearch.search import Searcher
from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex
from chunkwise.errors import TransientError
from chunkwise.search.audit import AuditRecord
from chunkwise.search.endpoint import QueryEndpoint
from chunkwise.search.hybrid import SearchFilters
from chunkwise.search.rerank import Answer
from tests.fakes.embedder import FixedEmbedder

FAST = RetryPolicy(attempts=3, initial=0.001, maximum=0.002, jitter=0)

OK_SHARDS = {"total": 3, "successful": 3, "skipped": 0, "failed": 0}
FAILED_SHARDS = {
    "total": 3,
    "successful": 2,
    "skipped": 0,
    "failed": 1,
    "failures": [
        {
            "shard": 1,
            "index": "chunks-g1",
            "node": "n2",
            "reason": {"type": "node_disconnected_exception", "reason": "[n2] disconnected"},
        }
    ],
}
# A shard without any started copy: OpenSearch counts it in total, not in failed.
MISSING_SHARDS = {"total": 3, "successful": 2, "skipped": 0, "failed": 0}


def _src(i: int) -> dict[str, Any]:
    return {
        "doc_id": f"d{i}",
        "source_key": f"k{i}",
        "revision": "r",
        "start": 0,
        "end": 1,
        "body": f"passage {i}",
        "state": "live",  # no head: a document of the older protocol, kept as is
    }


def _hits(shards: dict[str, Any], *, timed_out: bool = False, n: int = 2) -> dict[str, Any]:
    hits = [{"_id": f"id{i}", "_score": 1.0 / (i + 1), "_source": _src(i)} for i in range(n)]
    return {"timed_out": timed_out, "_shards": shards, "hits": {"hits": hits}}


class _Indices:
    def __init__(self) -> None:
        self.refreshes = 0
        self.refresh_shards: dict[str, Any] = {"total": 6, "successful": 5, "failed": 0}

    def get_mapping(self, index: str) -> dict[str, Any]:
        return {"chunks-g1": {"mappings": {"_meta": {"embedder": "fake", "dimension": 3}}}}

    def refresh(self, index: str) -> dict[str, Any]:
        self.refreshes += 1
        return {"_shards": self.refresh_shards}


class _Client:
    """Answers searches (and mgets) from a queue; the last answer repeats."""

    def __init__(self, answers: Sequence[dict[str, Any]], docs: Sequence[Any] = ()) -> None:
        self.answers = list(answers)
        self.docs = list(docs)
        self.params: list[dict[str, Any]] = []
        self.indices = _Indices()

    def create_pit(self, index: str, params: dict[str, Any]) -> Any:
        return {"pit_id": "pit", "_shards": OK_SHARDS}

    def delete_pit(self, body: dict[str, Any]) -> Any:
        return {}

    def search(self, body: dict[str, Any], params: dict[str, Any], index: str | None = None) -> Any:
        self.params.append(dict(params))
        if "ids" in body.get("query", {}):  # the reader's heads: none (older protocol)
            return {"timed_out": False, "_shards": OK_SHARDS, "hits": {"hits": []}}
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]

    def mget(self, index: str, body: dict[str, Any], params: dict[str, Any]) -> Any:
        return self.docs.pop(0) if len(self.docs) > 1 else self.docs[0]


def _searcher(client: _Client) -> Searcher:
    return Searcher(client, FixedEmbedder(), fusion="client", policy=FAST)  # type: ignore[arg-type]


# ------------------------------------------------------------------ the helper


@pytest.mark.parametrize(
    "resp",
    [
        {"_shards": FAILED_SHARDS, "hits": {"hits": []}},
        {"_shards": MISSING_SHARDS, "hits": {"hits": []}},
        {"timed_out": True, "_shards": OK_SHARDS, "hits": {"hits": []}},
    ],
    ids=["failed", "missing", "timed_out"],
)
def test_a_partial_search_is_retried_then_a_typed_error(resp: dict[str, Any]) -> None:
    calls = {"n": 0}

    def read() -> Any:
        calls["n"] += 1
        return whole(resp)

    with pytest.raises(PartialResultError) as err:
        with_retries(FAST, "search", read)
    assert calls["n"] == FAST.attempts
    assert isinstance(err.value, TransientOpenSearchError) and isinstance(err.value, TransientError)
    assert err.value.public_reason == "partial_results"


def test_a_whole_search_passes_and_the_failure_reason_is_named() -> None:
    ok = {"_shards": OK_SHARDS, "hits": {"hits": []}}
    assert whole(ok) is ok
    with pytest.raises(PartialResultError, match="node_disconnected_exception"):
        with_retries(FAST, "search", lambda: whole({"_shards": FAILED_SHARDS}))


def test_a_refresh_counts_copies_an_unassigned_replica_is_no_failure() -> None:
    refresh = {"_shards": {"total": 6, "successful": 5, "failed": 0}}
    assert whole(refresh, "refresh", copies=True) is refresh
    with pytest.raises(PartialResultError):
        with_retries(
            FAST,
            "refresh",
            lambda: whole({"_shards": {"total": 6, "successful": 4, "failed": 1}}, copies=True),
        )


def test_an_mget_doc_with_an_error_is_not_absent() -> None:
    resp = {"docs": [{"_id": "a", "found": False}, {"_id": "b", "found": True, "_source": {}}]}
    assert whole_docs(resp) is resp
    broken = {
        "docs": [
            {"_id": "a", "found": False},
            {"_id": "b", "error": {"type": "no_shard_available_action_exception"}},
        ]
    }
    with pytest.raises(PartialResultError, match="no_shard_available"):
        with_retries(FAST, "mget", lambda: whole_docs(broken))


# ------------------------------------------------------------------ the query path


def test_the_searcher_never_returns_a_partial_answer_as_complete() -> None:
    client = _Client([_hits(FAILED_SHARDS)])
    with pytest.raises(PartialResultError):
        _searcher(client).search("q", k=2)
    # every search asked the cluster to fail rather than answer partially
    assert client.params and all(
        p.get("allow_partial_search_results") == "false" for p in client.params
    )


def test_the_searcher_retries_a_partial_answer_and_returns_the_whole_one() -> None:
    client = _Client([_hits(FAILED_SHARDS, n=1), _hits(OK_SHARDS, n=2)] + [_hits(OK_SHARDS)] * 4)
    hits = _searcher(client).search("q", k=2)
    assert len(hits) == 2


def test_a_timed_out_search_is_not_complete() -> None:
    with pytest.raises(PartialResultError, match="timed out"):
        _searcher(_Client([_hits(OK_SHARDS, timed_out=True)])).search("q", k=2)


class _PartialBackend:
    fusion = "client"

    def answer(
        self, query: str, k: int, filters: SearchFilters, *, rerank: bool | None, collapse: bool
    ) -> Answer:
        raise PartialResultError("search: 1 of 3 shards failed")

    def withheld(self, query: str, filters: SearchFilters) -> int:
        return 0


def test_the_query_function_answers_503_with_the_reason() -> None:
    endpoint = QueryEndpoint(backend=_PartialBackend)
    event = {"queryStringParameters": {"q": "wartung"}, "requestContext": {"http": {}}}
    reply = endpoint.answer(event)
    assert reply.status == 503
    assert reply.body == {"error": "search temporarily unavailable", "reason": "partial_results"}
    assert isinstance(reply.audit, AuditRecord) and reply.audit.refused == "unavailable"


# ------------------------------------------------------------------ the protocol's reads


def _index(client: _Client) -> OpenSearchIndex:
    return OpenSearchIndex(client, target="chunks-w", policy=FAST)  # type: ignore[arg-type]


def test_an_unreadable_head_is_an_error_not_a_missing_head() -> None:
    docs = {"docs": [{"_id": "d1:head", "error": {"type": "no_shard_available_action_exception"}}]}
    heads = OpenSearchHeads(_index(_Client([_hits(OK_SHARDS)], [docs])))
    with pytest.raises(PartialResultError):
        heads.mget_heads(["d1"])  # before: {} ("no head"), and the writer would create one


def test_the_readers_head_search_refuses_a_partial_answer() -> None:
    class _HeadsPartial(_Client):
        def search(self, index: str, body: dict[str, Any], params: dict[str, Any]) -> Any:
            self.params.append(dict(params))
            return {"_shards": FAILED_SHARDS, "hits": {"hits": []}}

    client = _HeadsPartial([])
    with pytest.raises(PartialResultError):
        OpenSearchHeads(_index(client)).search_heads(["d1"])
    assert client.params[0]["allow_partial_search_results"] == "false"


def test_a_restamp_read_with_an_unreadable_chunk_is_an_error_not_erased() -> None:
    docs = {"docs": [{"_id": "d1:r:0", "error": {"type": "no_shard_available_action_exception"}}]}
    switch = OpenSearchSwitchIndex(_index(_Client([_hits(OK_SHARDS)], [docs])))
    with pytest.raises(PartialResultError):
        switch.read_revision("d1", "r", 1)  # before: None, "erased", re-extracted


def test_the_sweeps_live_set_refuses_a_partial_aggregation() -> None:
    partial = {"_shards": FAILED_SHARDS, "aggregations": {"kr": {"buckets": []}}}
    live = OpenSearchLiveSet(_index(_Client([partial])), bucket="b")
    with pytest.raises(PartialResultError):
        live.live_revisions()  # before: {} for the failed shard's keys: drift that is not


def test_revision_states_and_retention_refuse_partial_answers() -> None:
    index = _index(_Client([{"_shards": FAILED_SHARDS, "hits": {"hits": []}}]))
    with pytest.raises(PartialResultError):
        index.revision_states("d1")
    with pytest.raises(PartialResultError):
        index.sweep(60)  # before: "nothing matches" on the failed shard, done
