"""Head records over opensearch-py: their ``_source``, and reading them back.

- realtime ``_mget`` (`OpenSearchHeads.mget_heads`): the last write and its
  ``_seq_no``, no refresh; what the writer compares and sets;
- one search by id over the same snapshot kind as the chunks (`search_heads`):
  what a reader judges its candidates by, never realtime (see
  `chunkwise.index.reading` for why).

The writer's adapter (`chunkwise.adapters.opensearch.switch`) builds on this.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chunkwise.adapters.opensearch.index import OpenSearchIndex
from chunkwise.adapters.opensearch.retries import WHOLE, whole, whole_docs, with_retries
from chunkwise.adapters.opensearch.snapshot import in_pit
from chunkwise.index.heads import HEAD_STATE, Head, head_id
from chunkwise.index.mapping import FAILURE_REASON_FIELD
from chunkwise.index.states import utcnow_iso
from chunkwise.metadata.fields import VERSION_FIELD


def head_source(head: Head) -> dict[str, Any]:
    """The ``_source`` of a head record (``state`` "head", never matched by chunk queries)."""
    return {
        "doc_id": head.doc_id,
        "source_key": head.key,
        "revision": head.revision,
        VERSION_FIELD: head.metadata_version,
        "state": HEAD_STATE,
        "revision_chunks": head.chunks,
        "cleanup": [f"{n}:{rev}" for rev, n in head.cleanup],
        "live_at": utcnow_iso() if head.settled else None,
        FAILURE_REASON_FIELD: head.failed or None,
        "indexed_at": utcnow_iso(),
    }


def head_from_hit(doc: Mapping[str, Any]) -> Head:
    src = doc["_source"]
    cleanup = []
    for item in src.get("cleanup") or []:
        n, _, rev = str(item).partition(":")
        cleanup.append((rev, int(n)))
    return Head(
        doc_id=str(src["doc_id"]),
        key=str(src.get("source_key", "")),
        revision=str(src.get("revision") or ""),
        chunks=int(src.get("revision_chunks") or 0),
        cleanup=tuple(cleanup),
        failed=str(src.get(FAILURE_REASON_FIELD) or ""),
        settled=src.get("live_at") is not None,
        seq_no=int(doc["_seq_no"]),
        primary_term=int(doc["_primary_term"]),
        metadata_version=str(src.get(VERSION_FIELD) or ""),
    )


class OpenSearchHeads:
    """The head records behind an `OpenSearchIndex`'s target (write alias or a
    generation index being built)."""

    def __init__(self, index: OpenSearchIndex) -> None:
        self.index = index
        self.client = index.client
        self.policy = index.policy

    def mget_heads(self, doc_ids: Sequence[str]) -> dict[str, Head]:
        """Stored heads by doc_id (realtime; absent ones are left out)."""
        if not doc_ids:
            return {}
        body = {"docs": [{"_id": head_id(d), "routing": d} for d in doc_ids]}

        def do() -> dict[str, Any]:
            resp: dict[str, Any] = self.client.mget(
                index=self.index.target, body=body, params={"realtime": "true"}
            )
            return whole_docs(resp, "read heads")  # an unreadable head is not "no head"

        docs = with_retries(self.policy, "read heads", do)["docs"]
        return {
            str(d["_source"]["doc_id"]): head_from_hit(d)
            for d in docs
            if d.get("found") and d["_source"].get("state") == HEAD_STATE
        }

    def search_heads(
        self,
        doc_ids: Sequence[str],
        preference: str = "",
        *,
        pit: Mapping[str, str] | None = None,
    ) -> dict[str, Head]:
        """Heads as the searcher sees them (refreshed state, not realtime): what a
        reader compares its candidates with. ``pit``: the point in time of the chunk
        search (`chunkwise.adapters.opensearch.snapshot`), the same searcher of each
        shard; else ``preference`` keeps a reader on the same shard copies (two
        snapshots, though: a refresh may fall between them)."""
        if not doc_ids:
            return {}
        body = {
            "size": len(doc_ids),
            "query": {"ids": {"values": [head_id(d) for d in doc_ids]}},
            "seq_no_primary_term": True,
        }
        params: dict[str, Any] = {"request_cache": "false", **WHOLE}
        if preference and not pit:
            params["preference"] = preference

        def do() -> list[dict[str, Any]]:
            if pit:
                resp = self.client.search(body=in_pit(body, pit), params=params)
            else:
                resp = self.client.search(index=self.index.target, body=body, params=params)
            hits: list[dict[str, Any]] = whole(resp)["hits"]["hits"]
            return hits

        hits = with_retries(self.policy, "search heads", do)
        return {
            str(h["_source"]["doc_id"]): head_from_hit(h)
            for h in hits
            if h["_source"].get("state") == HEAD_STATE
        }
