"""opensearch-py adapter of the revision switch's port (`chunkwise.ingest.revisions`).

Every method is one round trip for a whole batch of documents (plus the
retries of `with_retries`, exponential backoff with jitter by tenacity):

- heads (writer): realtime ``_mget`` (the last write and its ``_seq_no``, no
  refresh); documents without a head get one aggregation over their live chunks
  (written by the older protocol);
- heads (reader): one search by id over the same snapshot kind as the chunks
  (`search_heads`), never realtime: see `chunkwise.ingest.revisions` for why;
- chunks: ``_bulk`` with ``op_type=create`` and no refresh at all;
- commit: ``_bulk`` of head writes, each with ``if_seq_no``/``if_primary_term``
  (``create`` for a first head); a 409 means a concurrent writer moved the head;
- finish: ``_bulk`` of partial updates (state ``live``) of the new chunks and
  deletes of the old revisions' chunks by id; no refresh;
- clear: ``_bulk`` of conditional head updates (cleanup list emptied, settled).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from chunkwise.adapters.opensearch.index import (
    OpenSearchIndex,
    bulk_with_retries,
    redact_reason,
    with_retries,
)
from chunkwise.index.bodies import FAILURE_REASON_FIELD, State, bulk_actions, utcnow_iso
from chunkwise.ingest.revisions import (
    HEAD_STATE,
    LEGACY_STATE,
    Head,
    Loaded,
    absent_head,
    chunk_ids,
    head_id,
)

log = logging.getLogger("chunkwise.ingest.revisions")

#: The head's fields in the generation mapping (besides the chunk fields it reuses).
HEAD_FIELDS: dict[str, Any] = {"cleanup": {"type": "keyword", "index": False, "doc_values": False}}


def head_source(head: Head) -> dict[str, Any]:
    """The ``_source`` of a head record (``state`` "head", never matched by chunk queries)."""
    return {
        "doc_id": head.doc_id,
        "source_key": head.key,
        "revision": head.revision,
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
    )


class OpenSearchSwitchIndex:
    """`SwitchIndexPort` over an `OpenSearchIndex` (its target: write alias or a
    generation index being built)."""

    def __init__(self, index: OpenSearchIndex) -> None:
        self.index = index
        self.client = index.client
        self.policy = index.policy

    # ------------------------------------------------------------------ heads

    def mget_heads(self, doc_ids: Sequence[str]) -> dict[str, Head]:
        """Stored heads by doc_id (realtime; absent ones are left out)."""
        if not doc_ids:
            return {}
        body = {"docs": [{"_id": head_id(d), "routing": d} for d in doc_ids]}

        def do() -> dict[str, Any]:
            resp: dict[str, Any] = self.client.mget(
                index=self.index.target, body=body, params={"realtime": "true"}
            )
            return resp

        docs = with_retries(self.policy, "read heads", do)["docs"]
        return {
            str(d["_source"]["doc_id"]): head_from_hit(d)
            for d in docs
            if d.get("found") and d["_source"].get("state") == HEAD_STATE
        }

    def search_heads(self, doc_ids: Sequence[str], preference: str = "") -> dict[str, Head]:
        """Heads as the searcher sees them (refreshed state, not realtime): what a
        reader compares its candidates with. ``preference`` keeps a reader on the
        same shard copies as its chunk search."""
        if not doc_ids:
            return {}
        body = {
            "size": len(doc_ids),
            "query": {"ids": {"values": [head_id(d) for d in doc_ids]}},
            "seq_no_primary_term": True,
        }
        params: dict[str, Any] = {"request_cache": "false"}
        if preference:
            params["preference"] = preference

        def do() -> list[dict[str, Any]]:
            resp = self.client.search(index=self.index.target, body=body, params=params)
            hits: list[dict[str, Any]] = resp["hits"]["hits"]
            return hits

        hits = with_retries(self.policy, "search heads", do)
        return {
            str(h["_source"]["doc_id"]): head_from_hit(h)
            for h in hits
            if h["_source"].get("state") == HEAD_STATE
        }

    def read_heads(self, docs: Mapping[str, str]) -> dict[str, Head]:
        stored = self.mget_heads(list(docs))
        legacy = self._legacy_revisions([d for d in docs if d not in stored])
        return {
            d: stored.get(d) or absent_head(d, key, sorted(legacy.get(d, {}).items()))
            for d, key in docs.items()
        }

    def _legacy_revisions(self, doc_ids: Sequence[str]) -> dict[str, dict[str, int]]:
        """Live revisions (and their chunk counts) of documents without a head."""
        if not doc_ids:
            return {}
        body = {
            "size": 0,
            "query": {
                "bool": {
                    "filter": [
                        {"terms": {"doc_id": list(doc_ids)}},
                        {"term": {"state": LEGACY_STATE}},
                    ]
                }
            },
            "aggs": {
                "docs": {
                    "terms": {"field": "doc_id", "size": len(doc_ids)},
                    "aggs": {"revs": {"terms": {"field": "revision", "size": 100}}},
                }
            },
        }

        def do() -> dict[str, Any]:
            resp: dict[str, Any] = self.client.search(
                index=self.index.target, body=body, params={"request_cache": "false"}
            )
            return resp

        aggs = with_retries(self.policy, "legacy revisions", do)["aggregations"]
        return {
            str(b["key"]): {str(r["key"]): int(r["doc_count"]) for r in b["revs"]["buckets"]}
            for b in aggs["docs"]["buckets"]
        }

    # ------------------------------------------------------------------ chunks

    def write_chunks(self, loaded: Sequence[Loaded]) -> dict[str, str]:
        if self.index.model is not None and not self.index._model_checked:
            self.index.check_model(self.index.model)  # before anything is written
            self.index._model_checked = True
        actions: list[dict[str, Any]] = []
        doc_of: dict[str, str] = {}
        for item in loaded:
            for a in bulk_actions(
                item.chunks, item.vectors, index=self.index.target, state=State.PENDING
            ):
                a["_op_type"] = "create"
                doc_of[a["_id"]] = a["_routing"]
                actions.append(a)
        res = bulk_with_retries(
            self.client, actions, policy=self.policy, batch_size=self.index.batch_size
        )
        rejected: dict[str, str] = {}
        for f in res.failed:
            if f["status"] == 409:
                continue  # created by a twin writer of the same revision: there already
            doc = doc_of.get(str(f["_id"]), "")
            rejected.setdefault(doc, f"{f['status']}: {redact_reason(f.get('error'))}")
        return rejected

    def delete_chunks(self, ids: Sequence[str], routing: Mapping[str, str]) -> None:
        actions = [
            {"_op_type": "delete", "_index": self.index.target, "_id": i, "_routing": routing[i]}
            for i in ids
        ]
        bulk_with_retries(self.client, actions, policy=self.policy)

    # ------------------------------------------------------------------ commit

    def commit_heads(self, pairs: Sequence[tuple[Head, Head]]) -> dict[str, Head]:
        if not pairs:
            return {}
        actions = [self._conditional(read, new) for read, new in pairs]
        res = bulk_with_retries(self.client, actions, policy=self.policy)
        hard = [f for f in res.failed if f["status"] != 409]
        if hard:
            log.warning("head writes rejected: %s", hard[0])
        committed = {i.removesuffix(":head") for i in res.indexed}
        return self._committed({new.doc_id: new for _read, new in pairs if new.doc_id in committed})

    def _committed(self, heads: Mapping[str, Head]) -> dict[str, Head]:
        """The committed heads with their new concurrency tokens (read back realtime;
        a head read is cheap and the bulk response's seq_no is per item anyway)."""
        stored = self.mget_heads(list(heads))
        return {d: h for d, h in stored.items() if h.revision == heads[d].revision}

    def _conditional(self, read: Head, new: Head) -> dict[str, Any]:
        action: dict[str, Any] = {
            "_index": self.index.target,
            "_id": head_id(new.doc_id),
            "_routing": new.doc_id,
            "_source": head_source(new),
        }
        if read.seq_no < 0:
            action["_op_type"] = "create"  # fails with 409 if a head appeared meanwhile
        else:
            action["_op_type"] = "index"
            action["if_seq_no"] = read.seq_no
            action["if_primary_term"] = read.primary_term
        return action

    # ------------------------------------------------------------------ finish

    def finish(self, heads: Sequence[Head]) -> None:
        now = utcnow_iso()
        actions: list[dict[str, Any]] = []
        for h in heads:
            for i in chunk_ids(h.doc_id, h.revision, h.chunks) if h.revision else []:
                actions.append(
                    {
                        "_op_type": "update",
                        "_index": self.index.target,
                        "_id": i,
                        "_routing": h.doc_id,
                        "_source": {"doc": {"state": State.LIVE.value, "live_at": now}},
                    }
                )
            for revision, n in h.cleanup:
                for i in chunk_ids(h.doc_id, revision, n):
                    actions.append(
                        {
                            "_op_type": "delete",
                            "_index": self.index.target,
                            "_id": i,
                            "_routing": h.doc_id,
                        }
                    )
        res = bulk_with_retries(
            self.client, actions, policy=self.policy, batch_size=self.index.batch_size
        )
        hard = [f for f in res.failed if f["status"] != 404]  # gone already: a newer finish
        if hard:
            log.warning("finish: %d items failed, first %s", len(hard), hard[0])

    def clear_cleanup(self, heads: Sequence[Head]) -> None:
        settled = [
            self._conditional(h, Head(h.doc_id, h.key, h.revision, h.chunks, (), h.failed, True))
            for h in heads
        ]
        bulk_with_retries(self.client, settled, policy=self.policy)  # 409: a newer head
