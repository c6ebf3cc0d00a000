"""opensearch-py adapter of the index port: generations, aliases, bulk, revision states.

Retries
-------
Request-level failures (connection refused/reset, timeouts, HTTP 429 and 5xx)
are retried with exponential backoff and jitter by `tenacity` (the transport
of opensearch-py retries immediately, without backoff, which does not help
against throttling or a restarting node; its own retries are therefore off).
Inside a bulk response, items rejected with 429/5xx are re-sent with the same
backoff; items rejected with 4xx (mapping conflicts, strict mapping, bad
vectors) are permanent. After the last attempt a `TransientOpenSearchError`
(a `TransientError`) is raised; nothing that was not acknowledged is reported
as indexed.

Revisions
---------
The revision switch's adapter (`chunkwise.adapters.opensearch.heads`) writes
chunks and heads with `bulk_with_retries`; this module keeps generations,
aliases, retention and the failure markers.

Index-only fields and the Chunk contract: see `chunkwise.index.bodies`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from opensearchpy import OpenSearch
from opensearchpy.exceptions import (
    ConnectionError as OSConnectionError,
)
from opensearchpy.exceptions import (
    NotFoundError,
    TransportError,
)
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from chunkwise.errors import PermanentError, TransientError
from chunkwise.index.bodies import (
    GenerationModel,
    IndexNames,
    ModelMismatchError,
    RevisionState,
    expired_revisions_query,
    failure_marker,
    index_body,
    index_template_body,
    keyword_bound_changes,
    known_failures_query,
    missing_properties,
    model_mismatch,
    parse_revision_states,
    revision_states_query,
    swap_actions,
    sweep_body,
    template_name,
    tombstones_body,
)

log = logging.getLogger("chunkwise.index")

T = TypeVar("T")
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class TransientOpenSearchError(TransientError):
    """OpenSearch unreachable/throttling after all retries; safe to retry later."""


class GenerationError(PermanentError):
    """Invalid generation operation (exists already, in use, missing, another model)."""


class GenerationModelError(GenerationError, ModelMismatchError):
    """The generation was built with another embedding model."""


def read_generation_meta(
    client: OpenSearch, index_or_alias: str, policy: RetryPolicy | None = None
) -> tuple[str, dict[str, Any]]:
    """The physical index behind ``index_or_alias`` and its mapping's ``_meta``."""

    def get() -> tuple[str, dict[str, Any]]:
        try:
            found = client.indices.get_mapping(index=index_or_alias)
        except NotFoundError as exc:
            raise GenerationError(f"no generation behind {index_or_alias}") from exc
        index = sorted(found)[0]
        return index, dict(found[index]["mappings"].get("_meta", {}))

    return with_retries(policy or RetryPolicy(), f"get mapping of {index_or_alias}", get)


def check_generation_model(
    client: OpenSearch,
    index_or_alias: str,
    model: GenerationModel,
    policy: RetryPolicy | None = None,
) -> str:
    """The generation's index if it was built with ``model``; GenerationError if not."""
    index, meta = read_generation_meta(client, index_or_alias, policy)
    problem = model_mismatch(meta, index, model)
    if problem:
        raise GenerationModelError(problem)
    return index


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 6
    initial: float = 0.2  # seconds
    maximum: float = 5.0
    jitter: float = 0.2


def connect(
    url: str, *, timeout: float = 30.0, http_compress: bool = False, **kwargs: Any
) -> OpenSearch:
    """A client for ``url`` with transport retries off (we retry with backoff).

    Request compression is off by default: a bulk body is mostly vector floats,
    and gzip of it measured at half the bulk time against a local node; turn it
    on for a remote cluster over a slow link.
    """
    return OpenSearch(
        hosts=[url],
        timeout=timeout,
        max_retries=0,
        retry_on_timeout=False,
        http_compress=http_compress,
        **kwargs,
    )


def _status(exc: BaseException) -> int | None:
    if isinstance(exc, TransportError):
        code = exc.status_code
        return code if isinstance(code, int) else None
    return None


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, OSConnectionError):  # includes ConnectionTimeout
        return True
    if isinstance(exc, _RetryItems):
        return True
    st = _status(exc)
    return st is not None and st in RETRY_STATUSES


class _RetryItems(Exception):
    """Internal: some bulk items were throttled; retry those."""


def _log_retry(state: RetryCallState) -> None:
    exc = state.outcome.exception() if state.outcome else None
    log.warning(
        "opensearch: attempt %d failed (%s), retrying",
        state.attempt_number,
        type(exc).__name__ if exc else "?",
    )


def with_retries(policy: RetryPolicy, what: str, fn: Callable[[], T]) -> T:
    """Run ``fn`` retrying transient failures; map the final failure to a typed error."""
    retrying = Retrying(
        stop=stop_after_attempt(policy.attempts),
        wait=wait_exponential(multiplier=policy.initial, max=policy.maximum)
        + wait_random(0, policy.jitter),
        retry=retry_if_exception(is_transient),
        before_sleep=_log_retry,
        reraise=True,
    )
    try:
        return retrying(fn)
    except _RetryItems as exc:
        raise TransientOpenSearchError(
            f"{what}: items still throttled after {policy.attempts} attempts: {exc}"
        ) from exc
    except (OSConnectionError, TransportError) as exc:
        if is_transient(exc):
            raise TransientOpenSearchError(
                f"{what}: OpenSearch unavailable after {policy.attempts} attempts: {exc}"
            ) from exc
        raise PermanentError(f"{what}: {exc}") from exc


@dataclass
class BulkResult:
    indexed: list[str] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)


def _bulk_body(actions: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    body: list[dict[str, Any]] = []
    for a in actions:
        meta: dict[str, Any] = {"_index": a["_index"], "_id": a["_id"]}
        if a.get("_routing"):
            meta["routing"] = a["_routing"]
        for k in ("if_seq_no", "if_primary_term", "retry_on_conflict"):
            if k in a:
                meta[k] = a[k]
        op = a.get("_op_type", "index")
        body.append({op: meta})
        if op != "delete":
            body.append(a["_source"])
    return body


def bulk_with_retries(
    client: OpenSearch,
    actions: Sequence[dict[str, Any]],
    *,
    policy: RetryPolicy = RetryPolicy(),
    batch_size: int = 500,
    refresh: str | bool = False,
) -> BulkResult:
    """Send bulk actions; retry throttled items and failed requests with backoff.

    Returns acknowledged ids and permanently failed items (4xx). Raises
    `TransientOpenSearchError` when retries are exhausted.
    """
    result = BulkResult()
    for s in range(0, len(actions), batch_size):
        pending = list(actions[s : s + batch_size])

        def attempt(batch: list[dict[str, Any]] = pending) -> None:
            resp = client.bulk(body=_bulk_body(batch), params={"refresh": str(refresh).lower()})
            retry: list[dict[str, Any]] = []
            by_id = {a["_id"]: a for a in batch}
            for item in resp.get("items", []):
                (_op, info), *_ = item.items()
                status = int(info.get("status", 0))
                if 200 <= status < 300:
                    result.indexed.append(str(info["_id"]))
                elif status in RETRY_STATUSES:
                    retry.append(by_id[str(info["_id"])])
                else:
                    result.failed.append(
                        {"_id": info.get("_id"), "status": status, "error": info.get("error")}
                    )
            batch[:] = retry
            if retry:
                raise _RetryItems(f"{len(retry)} of the batch throttled")

        with_retries(policy, "bulk", attempt)
    return result


class GenerationAdmin:
    """Generations and aliases of one deployment (the base of `OpenSearchIndex`)."""

    def __init__(
        self,
        client: OpenSearch,
        names: IndexNames | None = None,
        *,
        target: str | None = None,
        policy: RetryPolicy | None = None,
        batch_size: int = 500,
        page_size: int = 1000,
        max_rounds: int = 100,
        model: GenerationModel | None = None,
    ) -> None:
        self.client = client
        # The model the written vectors come from: checked against the target
        # generation's metadata before the first write (None: not checked).
        self.model = model
        self._model_checked = False
        self.page_size = page_size
        self.max_rounds = max_rounds
        self.names = names or IndexNames()
        self.target = target or self.names.write_alias
        self.policy = policy or RetryPolicy()
        self.batch_size = batch_size

    # ------------------------------------------------------------------ generations

    def create_generation(
        self,
        generation: str,
        *,
        dimension: int,
        embedder_name: str = "",
        tokenizer_id: str = "",
        chunker_config: dict[str, Any] | None = None,
        shards: int = 1,
        replicas: int = 0,
    ) -> str:
        index = self.names.index(generation)
        body = index_body(
            dimension,
            embedder_name=embedder_name,
            tokenizer_id=tokenizer_id,
            generation=generation,
            chunker_config=chunker_config,
            shards=shards,
            replicas=replicas,
        )

        def create() -> None:
            if self.client.indices.exists(index=index):
                raise GenerationError(f"generation index {index} exists already")
            self.client.indices.create(index=index, body=body)

        self.ensure_template(shards=shards, replicas=replicas)

        with_retries(self.policy, f"create {index}", create)
        return index

    def ensure_template(self, *, shards: int = 1, replicas: int = 0) -> None:
        """Install (or update) the index template for this deployment's generations."""
        body = index_template_body(self.names, shards=shards, replicas=replicas)
        name = template_name(self.names)
        with_retries(
            self.policy,
            f"put index template {name}",
            lambda: self.client.indices.put_index_template(name=name, body=body),
        )

    def alias_holders(self, alias: str) -> list[str]:
        def get() -> list[str]:
            try:
                return sorted(self.client.indices.get_alias(name=alias).keys())
            except NotFoundError:
                return []

        return with_retries(self.policy, f"get alias {alias}", get)

    def live_generation(self) -> str | None:
        holders = self.alias_holders(self.names.read_alias)
        return holders[0] if holders else None

    def swap(self, generation: str) -> dict[str, Any]:
        """Point write and read alias at ``generation`` in one atomic ``_aliases`` call."""
        index = self.names.index(generation)

        def do() -> dict[str, Any]:
            if not self.client.indices.exists(index=index):
                raise GenerationError(f"generation index {index} does not exist")
            body = swap_actions(
                self.names,
                index,
                current_write=self.alias_holders(self.names.write_alias),
                current_read=self.alias_holders(self.names.read_alias),
            )
            self.client.indices.update_aliases(body=body)
            return body

        return with_retries(self.policy, f"swap to {index}", do)

    def drop(self, generation: str, *, force: bool = False) -> None:
        index = self.names.index(generation)
        in_use = index in self.alias_holders(self.names.read_alias) or index in self.alias_holders(
            self.names.write_alias
        )
        if in_use and not force:
            raise GenerationError(f"{index} holds the live aliases; swap first (or force)")

        def do() -> None:
            try:
                self.client.indices.delete(index=index)
            except NotFoundError as exc:
                raise GenerationError(f"generation index {index} does not exist") from exc

        with_retries(self.policy, f"drop {index}", do)

    def generations(self) -> list[str]:
        def get() -> list[str]:
            try:
                found = self.client.indices.get(index=f"{self.names.prefix}-*")
            except NotFoundError:
                return []
            return sorted(g for g in (self.names.generation_of(i) for i in found) if g is not None)

        return with_retries(self.policy, "list generations", get)

    def ensure_live_generation(
        self, generation: str, *, dimension: int, embedder_name: str = "", tokenizer_id: str = ""
    ) -> str:
        """Create ``generation`` and swap to it unless some generation is live already;
        a live generation created by an older release gets this release's new fields.
        (A live generation of another model stays live: moving over is a re-chunk
        into a new generation and a swap; writes and queries refuse it until then.)"""
        live = self.live_generation()
        if live:
            self.add_missing_fields(live)
            return live
        index = self.names.index(generation)
        if not self.client.indices.exists(index=index):
            self.create_generation(
                generation,
                dimension=dimension,
                embedder_name=embedder_name,
                tokenizer_id=tokenizer_id,
            )
        self.swap(generation)
        return index

    def generation_meta(self, index_or_alias: str) -> tuple[str, dict[str, Any]]:
        """The physical index behind ``index_or_alias`` and its generation metadata."""
        return read_generation_meta(self.client, index_or_alias, self.policy)

    def check_model(self, model: GenerationModel, index_or_alias: str | None = None) -> str:
        """Raise GenerationError unless ``model``'s vectors belong in the generation."""
        return check_generation_model(
            self.client, index_or_alias or self.target, model, self.policy
        )

    def add_missing_fields(self, index: str) -> list[str]:
        """Add the fields of this release's mapping that ``index`` lacks, and bring its
        keyword bounds (``ignore_above``) up to date; returns the changed fields' names."""

        def do() -> list[str]:
            mapping = self.client.indices.get_mapping(index=index)[index]["mappings"]
            dimension = int(mapping.get("_meta", {}).get("dimension", 1))
            wanted = index_body(dimension)["mappings"]["properties"]
            current = mapping.get("properties", {})
            changes = {
                **missing_properties(current, wanted),
                **keyword_bound_changes(current, wanted),
            }
            if changes:
                self.client.indices.put_mapping(index=index, body={"properties": changes})
                log.info("updated fields %s in the mapping of %s", sorted(changes), index)
            return sorted(changes)

        return with_retries(self.policy, f"add missing fields to {index}", do)


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
                    index=self.target, body=b, params={"request_cache": "false"}
                )
                return resp

            agg = with_retries(self.policy, "expired revisions", do)["aggregations"]["revs"]
            out.update((str(b["key"]["doc"]), str(b["key"]["revision"])) for b in agg["buckets"])
            after = agg.get("after_key")
            if not agg["buckets"] or not after:
                return out

    # ------------------------------------------------------------------ IndexPort

    def refresh(self) -> None:
        with_retries(self.policy, "refresh", lambda: self.client.indices.refresh(index=self.target))

    def revision_states(self, doc_id: str) -> dict[str, RevisionState]:
        def do() -> dict[str, RevisionState]:
            resp = self.client.search(
                index=self.target,
                body=revision_states_query(doc_id),
                params={"routing": doc_id, "request_cache": "false"},
            )
            return parse_revision_states(resp)

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
        params: dict[str, Any] = {"request_cache": "false"}
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
            hits: list[dict[str, Any]] = resp["hits"]["hits"]
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
            return {
                "_op_type": "delete",
                "_index": h["_index"],
                "_id": h["_id"],
                "_routing": h.get("_routing") or h["_source"]["doc_id"],
            }

        return self._bulk_rounds(query, routing, what, action, policy)

    def live_revisions(self, doc_id: str) -> set[str]:
        return {r for r, s in self.revision_states(doc_id).items() if s.visible}

    def record_failure(self, doc_id: str, key: str, revision: str, reason: str) -> None:
        marker_id, source = failure_marker(doc_id, key, revision, reason)
        with_retries(
            self.policy,
            f"record failure of {doc_id}/{revision}",
            lambda: self.client.index(
                index=self.target, id=marker_id, body=source, params={"routing": doc_id}
            ),
        )

    def known_failures(self) -> list[dict[str, Any]]:
        """Every failure marker's source (doc_id, source_key, revision, reason)."""
        out: list[dict[str, Any]] = []
        after: list[Any] | None = None
        while True:
            body = known_failures_query(after, self.page_size)

            def do(b: dict[str, Any] = body) -> list[dict[str, Any]]:
                self.refresh()
                resp = self.client.search(
                    index=self.target, body=b, params={"request_cache": "false"}
                )
                hits: list[dict[str, Any]] = resp["hits"]["hits"]
                return hits

            hits = with_retries(self.policy, "known failures", do)
            out.extend(h["_source"] for h in hits)
            if len(hits) < self.page_size:
                return out
            after = hits[-1]["sort"]


# OpenSearch quotes document content in some reasons ("The prefix of the first immense
# term is: '[...]'", "Preview of field's value: '...'"): cut there, blank quoted spans.
_CONTENT_TAIL = re.compile(
    r"(the prefix of the first immense term|preview of field).*", re.I | re.S
)
_QUOTED = re.compile(r"'[^']*'|\[[^\]]{40,}\]")


def redact_reason(reason: object) -> str:
    """An OpenSearch error reason fit for a log line: no document text, bounded length."""
    text = _CONTENT_TAIL.sub("(content omitted)", str(reason))
    return _QUOTED.sub("'…'", text)[:300]


def _cutoff(older_than_seconds: int, now: datetime | None) -> str:
    cutoff = (now or datetime.now(UTC)) - timedelta(seconds=older_than_seconds)
    return cutoff.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def error_reason(error: Any) -> str:
    if isinstance(error, dict):
        cause = error.get("caused_by", {})
        return f"{error.get('type')}: {redact_reason(error.get('reason'))}" + (
            f" ({redact_reason(cause.get('reason'))})" if isinstance(cause, dict) and cause else ""
        )
    return redact_reason(error)
