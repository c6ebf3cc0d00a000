"""opensearch-py adapter of the index port: revision states, failure markers and the
retention sweep over one deployment's target (write alias or a generation).

The revision switch's adapter (`chunkwise.adapters.opensearch.switch`) writes chunks
and heads; generations and aliases are `chunkwise.adapters.opensearch.generations`;
retries and bulk `chunkwise.adapters.opensearch.retries`. Index-only fields and the
Chunk contract: `chunkwise.index.mapping`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from chunkwise.adapters.opensearch.generations import GenerationAdmin
from chunkwise.adapters.opensearch.retries import (
    WHOLE,
    RetryPolicy,
    TransientOpenSearchError,
    bulk_with_retries,
    error_reason,
    whole,
    with_retries,
)
from chunkwise.errors import PermanentError
from chunkwise.index.revision_queries import (
    RevisionState,
    expired_revisions_query,
    failure_marker,
    known_failures_query,
    parse_revision_states,
    revision_states_query,
    sweep_body,
    tombstones_body,
)


class OpenSearchIndex(GenerationAdmin):
    """The index of one deployment over opensearch-py: generations (`GenerationAdmin`),
    revision states, failure markers and the retention sweep.

    ``target`` is where writes go: the write alias (default), or a physical
    generation index while it is being built before the swap.
    """

    def sweep(self, older_than_seconds: int, *, now: datetime | None = None) -> int:
        """Delete superseded/deleted chunks older than the retention, and the heads of
        deleted keys; returns the number of chunks."""
        cutoff = _cutoff(older_than_seconds, now)
        chunks = self._delete_matching(sweep_body(cutoff)["query"], routing=None, what="sweep")
        self._delete_matching(tombstones_body(cutoff)["query"], routing=None, what="tombstones")
        return chunks

    def expired_revisions(
        self, older_than_seconds: int, *, now: datetime | None = None
    ) -> set[tuple[str, str]]:
        """(doc_id, revision) of every revision with chunks `sweep` would delete."""
        cutoff = _cutoff(older_than_seconds, now)
        out: set[tuple[str, str]] = set()
        after: dict[str, Any] | None = None
        self.refresh()
        while True:
            body = expired_revisions_query(cutoff, after, self.page_size)

            def do(b: dict[str, Any] = body) -> dict[str, Any]:
                resp: dict[str, Any] = self.client.search(
                    index=self.target, body=b, params={"request_cache": "false", **WHOLE}
                )
                return whole(resp, "expired revisions")

            agg = with_retries(self.policy, "expired revisions", do)["aggregations"]["revs"]
            out.update((str(b["key"]["doc"]), str(b["key"]["revision"])) for b in agg["buckets"])
            after = agg.get("after_key")
            if not agg["buckets"] or not after:
                return out

    # ------------------------------------------------------------------ IndexPort

    def refresh(self) -> None:
        with_retries(
            self.policy,
            "refresh",
            lambda: whole(self.client.indices.refresh(index=self.target), "refresh", copies=True),
        )

    def revision_states(self, doc_id: str) -> dict[str, RevisionState]:
        def do() -> dict[str, RevisionState]:
            resp = self.client.search(
                index=self.target,
                body=revision_states_query(doc_id),
                params={"routing": doc_id, "request_cache": "false", **WHOLE},
            )
            return parse_revision_states(whole(resp, f"states of {doc_id}"))

        return with_retries(self.policy, f"states of {doc_id}", do)

    # The node may lack the `reindex` module (_update_by_query/_delete_by_query), and
    # those APIs skip conflicting documents anyway. So state changes are done as
    # search (with seq_no/primary_term, routed to the document's shard) + bulk
    # conditional updates: a concurrent change makes the update fail with 409 and the
    # loop re-reads. Every round removes the updated chunks from the query's matches,
    # so repeating until nothing matches also pages through large documents.

    def _matching(
        self, query: dict[str, Any], routing: str | None, what: str, policy: RetryPolicy
    ) -> list[dict[str, Any]]:
        params: dict[str, Any] = {"request_cache": "false", **WHOLE}
        if routing is not None:
            params["routing"] = routing

        def do() -> list[dict[str, Any]]:
            resp = self.client.search(
                index=self.target,
                body={
                    "query": query,
                    "size": self.page_size,
                    "_source": ["doc_id"],
                    "seq_no_primary_term": True,
                },
                params=params,
            )
            hits: list[dict[str, Any]] = whole(resp, what)["hits"]["hits"]
            return hits

        return with_retries(policy, what, do)

    def _bulk_rounds(
        self,
        query: dict[str, Any],
        routing: str | None,
        what: str,
        make_action: Callable[[dict[str, Any]], dict[str, Any]],
        policy: RetryPolicy | None = None,
    ) -> int:
        policy = policy or self.policy
        done = 0
        for _ in range(self.max_rounds):
            hits = self._matching(query, routing, what, policy)
            if not hits:
                return done
            res = bulk_with_retries(
                self.client,
                [make_action(h) for h in hits],
                policy=policy,
                batch_size=self.batch_size,
                refresh=True,
            )
            done += len(res.indexed)
            hard = [f for f in res.failed if f["status"] not in (404, 409)]
            if hard:
                raise PermanentError(f"{what}: {error_reason(hard[0].get('error'))}")
        raise TransientOpenSearchError(f"{what}: still matching after {self.max_rounds} rounds")

    def _delete_matching(
        self,
        query: dict[str, Any],
        *,
        routing: str | None,
        what: str,
        policy: RetryPolicy | None = None,
    ) -> int:
        def action(h: dict[str, Any]) -> dict[str, Any]:
            # Conditional on what the search saw: a chunk written over since (a
            # superseded chunk revived by a new write of its state) is left alone.
            return {
                "_op_type": "delete",
                "_index": h["_index"],
                "_id": h["_id"],
                "_routing": h.get("_routing") or h["_source"]["doc_id"],
                "if_seq_no": h["_seq_no"],
                "if_primary_term": h["_primary_term"],
            }

        return self._bulk_rounds(query, routing, what, action, policy)

    def live_revisions(self, doc_id: str) -> set[str]:
        return {r for r, s in self.revision_states(doc_id).items() if s.visible}

    def record_failure(
        self, doc_id: str, key: str, revision: str, reason: str, metadata_version: str = ""
    ) -> None:
        marker_id, source = failure_marker(
            doc_id, key, revision, reason, metadata_version=metadata_version
        )
        with_retries(
            self.policy,
            f"record failure of {doc_id}/{revision}",
            lambda: self.client.index(
                index=self.target, id=marker_id, body=source, params={"routing": doc_id}
            ),
        )

    def known_failures(self) -> list[dict[str, Any]]:
        """Every failure marker's source (doc_id, source_key, revision, metadata_version,
        reason)."""
        out: list[dict[str, Any]] = []
        after: list[Any] | None = None
        while True:
            body = known_failures_query(after, self.page_size)

            def do(b: dict[str, Any] = body) -> list[dict[str, Any]]:
                self.refresh()
                resp = self.client.search(
                    index=self.target, body=b, params={"request_cache": "false", **WHOLE}
                )
                hits: list[dict[str, Any]] = whole(resp, "known failures")["hits"]["hits"]
                return hits

            hits = with_retries(self.policy, "known failures", do)
            out.extend(h["_source"] for h in hits)
            if len(hits) < self.page_size:
                return out
            after = hits[-1]["sort"]


def _cutoff(older_than_seconds: int, now: datetime | None) -> str:
    cutoff = (now or datetime.now(UTC)) - timedelta(seconds=older_than_seconds)
    return cutoff.isoformat(timespec="milliseconds").replace("+00:00", "Z")
