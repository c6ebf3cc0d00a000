"""The sweep's view of an index: which revision states are live per key (`LiveSetPort`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.retries import WHOLE, whole, with_retries
from chunkwise.index.mapping import FAILURE_REASON_FIELD
from chunkwise.index.names import make_doc_id
from chunkwise.index.revision_queries import marker_revision_key
from chunkwise.index.states import State
from chunkwise.index.versions import revision_key
from chunkwise.metadata.fields import VERSION_FIELD


class OpenSearchLiveSet:
    """`LiveSetPort` over an `OpenSearchIndex` (its target: write alias or a generation).

    One composite aggregation over (source_key, doc_id, revision, metadata_version) of
    live chunks, paged; no per-document requests. Each key's live set holds revision
    keys (`chunkwise.index.versions.revision_key`), so a chunk whose metadata is older
    than its sidecar is drift like a chunk of an older object version. Live, not
    pending: pending chunks are either not current yet (a head names them, its finish is
    under way or failed: the sweep re-enqueues the key and the switch repairs it) or
    never will be (a lost race), so counting them would show drift that no switch can
    remove. Only documents of ``bucket`` count (doc_id = hash of bucket + key), so
    buckets can share an index.
    """

    def __init__(self, index: OpenSearchIndex, bucket: str, page: int = 1000) -> None:
        self.index = index
        self.bucket = bucket
        self.page = page

    def known_failures(self) -> dict[str, dict[str, str]]:
        out: dict[str, dict[str, str]] = {}
        for marker in self.index.known_failures():
            key = str(marker["source_key"])
            if marker["doc_id"] == make_doc_id(self.bucket, key):
                reason = str(marker.get(FAILURE_REASON_FIELD, ""))
                out.setdefault(key, {})[marker_revision_key(marker)] = reason
        return out

    def live_revisions(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for key, doc, revision in self._live_chunks():
            # one index may hold several buckets' documents: keep this bucket's only
            if doc == make_doc_id(self.bucket, key):
                out.setdefault(key, set()).add(revision)
        return out

    def other_documents(self) -> int:
        """Live documents of other buckets in the same index (the local stack asks
        before it drops generations whose documents its bucket no longer holds)."""
        docs = {doc for key, doc, _ in self._live_chunks() if doc != make_doc_id(self.bucket, key)}
        return len(docs)

    def _live_chunks(self) -> Iterator[tuple[str, str, str]]:
        """(source_key, doc_id, revision key) of every live revision state in the index, paged."""
        after: dict[str, Any] | None = None
        while True:
            comp: dict[str, Any] = {
                "size": self.page,
                "sources": [
                    {"key": {"terms": {"field": "source_key"}}},
                    {"doc": {"terms": {"field": "doc_id"}}},
                    {"revision": {"terms": {"field": "revision"}}},
                    # chunks written before metadata existed have none: "" (no sidecar)
                    {"meta": {"terms": {"field": VERSION_FIELD, "missing_bucket": True}}},
                ],
            }
            if after:
                comp["after"] = after
            body = {
                "size": 0,
                "query": {"term": {"state": State.LIVE.value}},
                "aggs": {"kr": {"composite": comp}},
            }

            def do(b: dict[str, Any] = body) -> dict[str, Any]:
                self.index.refresh()
                resp: dict[str, Any] = self.index.client.search(
                    index=self.index.target, body=b, params={"request_cache": "false", **WHOLE}
                )
                return whole(resp, "live revisions")

            agg = with_retries(self.index.policy, "live revisions", do)["aggregations"]["kr"]
            for b in agg["buckets"]:
                key = str(b["key"]["key"])
                state = revision_key(str(b["key"]["revision"]), str(b["key"]["meta"] or ""))
                yield key, str(b["key"]["doc"]), state
            after = agg.get("after_key")
            if not agg["buckets"] or not after:
                return
