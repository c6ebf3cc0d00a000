"""One OpenSearch request, or one bulk, retried with backoff; errors typed and redacted.

Request-level failures (connection refused/reset, timeouts, HTTP 429 and 5xx)
are retried with exponential backoff and jitter by `tenacity` (the transport
of opensearch-py retries immediately, without backoff, which does not help
against throttling or a restarting node; its own retries are therefore off,
`chunkwise.adapters.opensearch.client.connect`). Inside a bulk response, items
rejected with 429/5xx are re-sent with the same backoff; items rejected with 4xx
(mapping conflicts, strict mapping, bad vectors) are permanent. After the last
attempt a `TransientOpenSearchError` (a `TransientError`) is raised; nothing that
was not acknowledged is reported as indexed.

Reads are whole or an error (`whole`, `whole_docs`): a search whose ``_shards`` show
a failed or missing shard, or that ``timed_out``, and a realtime ``_mget`` with a doc
answered by an ``error`` instead of ``found``, are partial answers. They are retried
like a 503 (a replica is promoted within seconds of a node loss) and after the last
attempt raised as `PartialResultError` (a `TransientError`: the query function
answers 503, a worker leaves the message for a later attempt), never returned as if
complete. Searches also ask ``allow_partial_search_results=false`` (`WHOLE`), so the
cluster itself fails such a search with a 503; the check of the body stays for the
answers that still come back with shards failed (timeouts, older nodes, proxies).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from opensearchpy import OpenSearch
from opensearchpy.exceptions import (
    ConnectionError as OSConnectionError,
)
from opensearchpy.exceptions import (
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

log = logging.getLogger("chunkwise.index")

T = TypeVar("T")
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class TransientOpenSearchError(TransientError):
    """OpenSearch unreachable/throttling after all retries; safe to retry later."""

    #: why, in a word fit for a reply body (the query function's 503)
    public_reason = "opensearch_unavailable"


class PartialResultError(TransientOpenSearchError):
    """A read came back partial (shards failed or missing, timed out, a doc of an
    ``_mget`` unreadable) on every attempt: nothing of it may be used as complete."""

    public_reason = "partial_results"


#: The search parameter every read of the protocol and the query path sends.
WHOLE: dict[str, str] = {"allow_partial_search_results": "false"}


class _Partial(Exception):
    """Internal: a partial answer; retried like a 503."""


def whole(resp: T, what: str = "search", *, copies: bool = False) -> T:
    """``resp`` of a search if no shard failed, was missing or timed out; else raise
    (retried by `with_retries`, then `PartialResultError`). ``copies``: ``resp`` counts
    shard copies (a refresh: an unassigned replica is in ``total``, not a failure),
    so only ``failed`` counts."""
    if not isinstance(resp, dict):
        return resp
    if resp.get("timed_out"):
        raise _Partial(f"{what}: timed out (partial results)")
    shards = resp.get("_shards")
    if isinstance(shards, dict):
        total = int(shards.get("total", 0))
        failed = int(shards.get("failed", 0))
        answered = int(shards.get("successful", total)) + int(shards.get("skipped", 0))
        if copies:
            answered = total - failed
        if failed > 0 or answered < total:
            first = (shards.get("failures") or [{}])[0]
            reason = error_reason(first.get("reason")) if isinstance(first, dict) else ""
            raise _Partial(
                f"{what}: {failed} of {total} shards failed, {total - answered} unanswered"
                + (f" (first: {reason})" if reason else "")
            )
    return resp


def whole_docs(resp: T, what: str = "mget") -> T:
    """``resp`` of an ``_mget`` if every doc was answered (``found`` true or false);
    a doc with an ``error`` (its shard unavailable) is not "absent": raise."""
    docs = resp.get("docs", []) if isinstance(resp, dict) else []
    bad = [d for d in docs if "error" in d or "found" not in d]
    if bad:
        raise _Partial(
            f"{what}: {len(bad)} of {len(docs)} docs unreadable "
            f"(first: {error_reason(bad[0].get('error'))})"
        )
    return resp


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 6
    initial: float = 0.2  # seconds
    maximum: float = 5.0
    jitter: float = 0.2


def _status(exc: BaseException) -> int | None:
    if isinstance(exc, TransportError):
        code = exc.status_code
        return code if isinstance(code, int) else None
    return None


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, OSConnectionError):  # includes ConnectionTimeout
        return True
    if isinstance(exc, (_RetryItems, _Partial)):
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
    except _Partial as exc:
        raise PartialResultError(
            f"{what}: partial answer on all {policy.attempts} attempts: {exc}"
        ) from exc
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


def error_reason(error: Any) -> str:
    if isinstance(error, dict):
        cause = error.get("caused_by", {})
        return f"{error.get('type')}: {redact_reason(error.get('reason'))}" + (
            f" ({redact_reason(cause.get('reason'))})" if isinstance(cause, dict) and cause else ""
        )
    return redact_reason(error)
