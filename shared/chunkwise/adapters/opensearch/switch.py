"""opensearch-py adapter of the revision switch's port (`chunkwise.ingest.revisions`).

Every method is one round trip for a whole batch of documents (plus the
retries of `with_retries`, exponential backoff with jitter by tenacity):

- heads: realtime ``_mget`` (`chunkwise.adapters.opensearch.heads`); documents
  without a head get one aggregation over their live chunks (written by the older
  protocol);
- chunks: ``_bulk`` of scripted upserts (`_WRITE_PENDING`: created, or written over a
  superseded/deleted chunk of the same state, never over a pending or live one) and no
  refresh at all; the chunks of the
  current state read back by id (realtime ``_mget``, `read_revision`) for a
  metadata-only change, which restamps them instead of extracting and embedding;
- commit: ``_bulk`` of head writes, each with ``if_seq_no``/``if_primary_term``
  (``create`` for a first head); a 409 means a concurrent writer moved the head;
  default ``wait_for_active_shards`` (1) on purpose: an acknowledged write is on every
  in-sync copy already (OpenSearch replicates synchronously and drops a failing copy from
  the in-sync set before acknowledging), and ``all`` would only stall ingest while a
  replica is missing (samdocs/architecture.md, "Acknowledged writes on a cluster");
- finish: ``_bulk`` of partial updates (state ``live``) of the new chunks and
  deletes of the old revisions' chunks by id; no refresh;
- clear: ``_bulk`` of conditional head updates (cleanup list emptied, settled).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from chunkwise.adapters.opensearch.heads import OpenSearchHeads, head_source
from chunkwise.adapters.opensearch.retries import (
    WHOLE,
    bulk_with_retries,
    error_reason,
    whole,
    whole_docs,
    with_retries,
)
from chunkwise.errors import TransientError
from chunkwise.index.documents import bulk_actions, chunk_from_source
from chunkwise.index.heads import LEGACY_STATE, Head, absent_head, chunk_ids, head_id
from chunkwise.index.states import State, utcnow_iso
from chunkwise.ingest.revisions import Loaded
from chunkwise.schema import Chunk

log = logging.getLogger("chunkwise.ingest.revisions")

# A late finish (a twin's, of a head replaced since) must not undo a newer one: only
# pending -> live, and only pending/live -> superseded/deleted; anything else is a no-op.
# (Painless is a core module; `_update_by_query`, which the node may lack, is not used.)
_SET_STATE = (
    "String s = ctx._source.state;"
    "if (params.to == 'live' ? s == 'pending' : (s == 'pending' || s == 'live')) {"
    "  ctx._source.state = params.to;"
    "  if (params.to == 'live') { ctx._source.live_at = params.now; }"
    "  else { ctx._source.superseded_at = params.now; }"
    "} else { ctx.op = 'none'; }"
)


# A state's chunk ids repeat when the state does: a sidecar deleted again (the state is
# the bare object revision once more), an unversioned object or sidecar whose content
# returns to an earlier ETag, a version restored in S3. The chunks of that earlier
# state are superseded (until retention erases them), and a plain `create` would leave
# them so while a new head names them: the document would vanish. So a write creates
# the chunk, or replaces one that is superseded or deleted; a pending or live one (a
# twin writer's, or the current head's) is never touched, so a late twin never turns
# live chunks back to pending. Reviving an old chunk as pending is safe: only a head
# that names its state makes it visible.
_WRITE_PENDING = (
    "String s = ctx._source.state;"
    "if (s == null || s == 'superseded' || s == 'deleted') {"
    "  ctx._source.clear(); ctx._source.putAll(params.doc);"
    "} else { ctx.op = 'none'; }"
)


class OpenSearchSwitchIndex(OpenSearchHeads):
    """`SwitchIndexPort` over an `OpenSearchIndex` (its target: write alias or a
    generation index being built)."""

    # ------------------------------------------------------------------ heads

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
                index=self.index.target, body=body, params={"request_cache": "false", **WHOLE}
            )
            return whole(resp, "legacy revisions")

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
                item.chunks,
                item.vectors,
                index=self.index.target,
                state=State.PENDING,
                metadata_version=item.metadata_version,
                fields=item.fields,
            ):
                doc_of[a["_id"]] = a["_routing"]
                actions.append(_pending_write(a))
        res = bulk_with_retries(
            self.client, actions, policy=self.policy, batch_size=self.index.batch_size
        )
        failed: dict[str, list[dict[str, Any]]] = {}
        for f in res.failed:
            if f["status"] != 409:  # 409: a twin writer's update won every retry
                failed.setdefault(doc_of.get(str(f["_id"]), ""), []).append(f)
        total = {d: sum(1 for a in actions if a["_routing"] == d) for d in failed}
        return {
            d: f"{len(fs)} of {total[d]} chunks rejected, whole revision withdrawn "
            f"(first: {fs[0]['_id']}: {error_reason(fs[0].get('error'))})"
            for d, fs in failed.items()
        }

    def read_revision(
        self, doc_id: str, key: str, n: int
    ) -> list[tuple[Chunk, list[float]]] | None:
        """The ``n`` chunks of the revision state ``key`` with their vectors, by id
        (realtime: a head's chunks were written before it was committed); None if any
        is missing (erased by retention) or unreadable."""
        if n < 1:
            return None
        body = {"docs": [{"_id": i, "routing": doc_id} for i in chunk_ids(doc_id, key, n)]}

        def do() -> list[dict[str, Any]]:
            resp = self.client.mget(index=self.index.target, body=body, params={"realtime": "true"})
            docs: list[dict[str, Any]] = whole_docs(resp, f"read {doc_id} {key}")["docs"]
            return docs

        docs = with_retries(self.policy, f"read {doc_id} {key}", do)
        if not all(d.get("found") for d in docs):
            return None
        try:
            return [chunk_from_source(d["_source"]) for d in docs]
        except (KeyError, ValueError) as exc:
            log.warning("restamp of %s %s: stored chunks unreadable (%s)", doc_id, key, exc)
            return None

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
            if h.revision:
                actions += self._set_state(h, h.revision_key, h.chunks, State.LIVE, now)
            old = State.DELETED if h.tombstone else State.SUPERSEDED
            for key, n in h.cleanup:
                actions += self._set_state(h, key, n, old, now)
        res = bulk_with_retries(
            self.client, actions, policy=self.policy, batch_size=self.index.batch_size
        )
        hard = [f for f in res.failed if f["status"] != 404]  # 404: erased already
        if hard:
            raise TransientError(f"finish: {len(hard)} chunk updates refused, first {hard[0]}")

    def _set_state(
        self, head: Head, key: str, n: int, state: State, now: str
    ) -> list[dict[str, Any]]:
        script = {
            "source": _SET_STATE,
            "lang": "painless",
            "params": {"to": state.value, "now": now},
        }
        return [
            {
                "_op_type": "update",
                "_index": self.index.target,
                "_id": i,
                "_routing": head.doc_id,
                # a twin's finish of the same head may update the same chunk at once
                "retry_on_conflict": 3,
                "_source": {"script": script},
            }
            for i in chunk_ids(head.doc_id, key, n)
        ]

    def record_failure(
        self, doc_id: str, key: str, revision: str, reason: str, metadata_version: str = ""
    ) -> None:
        self.index.record_failure(doc_id, key, revision, reason, metadata_version)

    def clear_cleanup(self, heads: Sequence[Head]) -> None:
        settled = [self._conditional(h, replace(h, cleanup=(), settled=True)) for h in heads]
        bulk_with_retries(self.client, settled, policy=self.policy)  # 409: a newer head


def _pending_write(action: dict[str, Any]) -> dict[str, Any]:
    """An index action of `bulk_actions` as the guarded upsert `_WRITE_PENDING` (the
    document goes once, as a script parameter; ``scripted_upsert`` runs the script on
    an empty document when there is none)."""
    script = {"source": _WRITE_PENDING, "lang": "painless", "params": {"doc": action["_source"]}}
    return {
        **{k: v for k, v in action.items() if k != "_source"},
        "_op_type": "update",
        "retry_on_conflict": 3,
        "_source": {"script": script, "scripted_upsert": True, "upsert": {}},
    }
