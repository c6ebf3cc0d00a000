"""A parsed metadata filter as an OpenSearch query clause on the typed fields (pure).

The value's type picks the field (`chunkwise.metadata.fields`): a number ``meta.n``, a
boolean ``meta.b``, a string ``meta.s``; a range operator with a string that is an
ISO-8601 date compares ``meta.d`` in time (any other string compares ``meta.s`` as text,
by code point); ``listContains`` is ``meta.l``; ``stringContains`` looks in ``meta.s``
and ``meta.l`` alike. A document whose value for the key is of another type than the
filter's value does not have the key as far as that condition is concerned.

Absent keys, as Bedrock documents them: ``notEquals`` matches a document that lacks the
key ("The key is not present in the document"), every other condition needs the key,
``notIn`` included ("contain a metadata attribute ... whose value isn't in the list").

The clause goes into a ``bool.filter`` (both the BM25 and the k-NN leg); it never
scores. ``x-amz-bedrock-kb-source-uri`` (``s3://bucket/key``) maps to chunkwise's own
``source_key`` given the deployment's bucket; it supports equals, notEquals, in, notIn
and startsWith. Range, prefix and wildcard queries on keywords need the cluster's
default ``search.allow_expensive_queries: true``.
"""

from __future__ import annotations

from typing import Any

from chunkwise.metadata.dates import epoch_millis
from chunkwise.metadata.fields import (
    BOOLEAN_PATH,
    DATE_PATH,
    LIST_PATH,
    NUMBER_PATH,
    STRING_PATH,
    field_path,
)
from chunkwise.metadata.filters import (
    SOURCE_URI_KEY,
    AndAll,
    FilterError,
    OrAll,
    RetrievalFilter,
    members,
    operand,
    operator_of,
    parse_filter,
)
from chunkwise.metadata.model import DEFAULT_READERS_KEY

SOURCE_KEY_FIELD = "source_key"
MATCH_ALL: dict[str, Any] = {"match_all": {}}
MATCH_NONE: dict[str, Any] = {"match_none": {}}
_RANGES = {
    "greaterThan": "gt",
    "greaterThanOrEquals": "gte",
    "lessThan": "lt",
    "lessThanOrEquals": "lte",
}
_SOURCE_URI_OPERATORS = ("equals", "notEquals", "in", "notIn", "startsWith")


def filter_clause(
    node: RetrievalFilter, *, source_bucket: str | None = None, path: str = "$"
) -> dict[str, Any]:
    """The OpenSearch clause of a parsed filter. ``source_bucket`` is the bucket whose
    documents the index holds (needed only for ``x-amz-bedrock-kb-source-uri``);
    ``path`` is the node's JSON path, for errors."""
    operator = operator_of(node)
    if isinstance(node, AndAll | OrAll):
        clauses = [
            filter_clause(m, source_bucket=source_bucket, path=f"{path}.{operator}[{i}]")
            for i, m in enumerate(members(node))
        ]
        if isinstance(node, AndAll):
            return {"bool": {"filter": clauses}}
        return {"bool": {"should": clauses, "minimum_should_match": 1}}
    attribute = operand(node)
    if attribute.key == SOURCE_URI_KEY:
        return _source_uri_clause(operator, attribute.value, source_bucket, f"{path}.{operator}")
    return _leaf_clause(operator, attribute.key, attribute.value)


def translate(
    raw: Any, *, readers_key: str = DEFAULT_READERS_KEY, source_bucket: str | None = None
) -> dict[str, Any]:
    """`parse_filter` then `filter_clause`: a decoded JSON filter to its clause."""
    return filter_clause(parse_filter(raw, readers_key=readers_key), source_bucket=source_bucket)


def _leaf_clause(operator: str, key: str, value: Any) -> dict[str, Any]:
    if operator in ("equals", "notEquals"):
        term = {"term": {_scalar_field(key, value): value}}
        return term if operator == "equals" else {"bool": {"must_not": [term]}}
    if operator in ("in", "notIn"):
        field = field_path(STRING_PATH if isinstance(value[0], str) else NUMBER_PATH, key)
        terms = {"terms": {field: list(value)}}
        if operator == "in":
            return terms
        return {"bool": {"filter": [{"exists": {"field": field}}], "must_not": [terms]}}
    if operator in _RANGES:
        return _range_clause(_RANGES[operator], key, value)
    if operator == "startsWith":
        return {"prefix": {field_path(STRING_PATH, key): value}}
    if operator == "listContains":
        return {"term": {field_path(LIST_PATH, key): value}}
    if operator == "stringContains":
        pattern = f"*{wildcard_escape(value)}*"
        fields = (field_path(STRING_PATH, key), field_path(LIST_PATH, key))
        either = [{"wildcard": {f: {"value": pattern}}} for f in fields]
        return {"bool": {"should": either, "minimum_should_match": 1}}
    raise AssertionError(f"unhandled operator {operator}")  # pragma: no cover


def _scalar_field(key: str, value: str | float | bool) -> str:
    if isinstance(value, bool):
        return field_path(BOOLEAN_PATH, key)
    if isinstance(value, float):
        return field_path(NUMBER_PATH, key)
    return field_path(STRING_PATH, key)


def _range_clause(bound: str, key: str, value: str | float) -> dict[str, Any]:
    if isinstance(value, float):
        return {"range": {field_path(NUMBER_PATH, key): {bound: value}}}
    millis = epoch_millis(value)
    if millis is not None:
        # Epoch milliseconds, not the author's string: the node must not fill in or
        # round missing date parts its own way (the same instant a document's date
        # was indexed as, `chunkwise.metadata.dates`).
        return {"range": {field_path(DATE_PATH, key): {bound: millis, "format": "epoch_millis"}}}
    return {"range": {field_path(STRING_PATH, key): {bound: value}}}


def wildcard_escape(text: str) -> str:
    """``text`` as a literal inside a wildcard pattern (``*``, ``?`` and ``\\`` escaped)."""
    return "".join("\\" + ch if ch in "*?\\" else ch for ch in text)


def _source_uri_clause(operator: str, value: Any, bucket: str | None, path: str) -> dict[str, Any]:
    if operator not in _SOURCE_URI_OPERATORS:
        raise FilterError(path, f"{SOURCE_URI_KEY} supports {', '.join(_SOURCE_URI_OPERATORS)}")
    if bucket is None:
        raise FilterError(path, f"{SOURCE_URI_KEY} needs the deployment's bucket (not set)")
    head = f"s3://{bucket}/"
    if operator == "startsWith":
        if head.startswith(value):
            return MATCH_ALL  # a prefix of the bucket's own URI: every document
        if not value.startswith(head):
            return MATCH_NONE
        return {"prefix": {SOURCE_KEY_FIELD: value[len(head) :]}}
    uris = list(value) if isinstance(value, tuple) else [value]
    keys = [u[len(head) :] for u in uris if isinstance(u, str) and u.startswith(head)]
    keys = [k for k in keys if k]
    matches = {"terms": {SOURCE_KEY_FIELD: keys}} if keys else MATCH_NONE
    if operator in ("equals", "in"):
        return matches
    return {"bool": {"must_not": [matches]}}
