"""Metadata filters and the access clause against the real node.

A throwaway index with chunkwise's metadata mapping fragment (dynamic templates on
``meta.{s,n,b,l,d}``, the ``readers`` keyword) holds 200 documents with random
metadata and readers. Every operator (strings, numbers, booleans, lists, dates, the
source URI, nested andAll/orAll), random filter trees and random identities are then
asked of the node, and its answer must be exactly the reference evaluator's
(tests/metadata_eval.py: Bedrock's documented semantics, computed in Python). The
index is deleted afterwards.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkwise.access import AccessMode, Identity, access_clause, combine
from chunkwise.metadata import metadata_mapping, translate
from chunkwise.metadata.filters import SOURCE_URI_KEY
from tests.integration.conftest import OsHttp
from tests.metadata_eval import (
    ADMIN,
    BUCKET,
    GROUPS,
    Doc,
    bedrock_holds,
    filters,
    random_docs,
    readable,
)

pytestmark = pytest.mark.integration

DOCS = 200


@pytest.fixture(scope="module")
def corpus(os_http: OsHttp) -> Iterator[tuple[str, list[Doc]]]:
    index = f"chunkwise-it-meta-{uuid.uuid4().hex[:10]}"
    fragment = metadata_mapping()
    body = {
        "settings": {"index": {"number_of_shards": 1, "number_of_replicas": 0}},
        "mappings": {
            "dynamic": "strict",
            "dynamic_templates": fragment["dynamic_templates"],
            "properties": {**fragment["properties"], "source_key": {"type": "keyword"}},
        },
    }
    os_http("PUT", f"/{index}", body)
    try:
        docs = random_docs(random.Random(24), DOCS)
        lines: list[Any] = []
        for doc in docs:
            lines += [{"index": {"_index": index, "_id": doc.id}}, doc.source()]
        result = os_http("POST", "/_bulk?refresh=true", ndjson=lines)
        assert not result["errors"], [i for i in result["items"] if "error" in i["index"]][:3]
        yield index, docs
    finally:
        os_http("DELETE", f"/{index}", ok=(200, 404))


def node_ids(os_http: OsHttp, index: str, clause: dict[str, Any]) -> set[str]:
    query = {"size": DOCS, "_source": False, "query": {"bool": {"filter": [clause]}}}
    hits = os_http("POST", f"/{index}/_search", query)["hits"]["hits"]
    return {h["_id"] for h in hits}


def expected_ids(raw: dict[str, Any], docs: list[Doc]) -> set[str]:
    return {d.id for d in docs if bedrock_holds(raw, d)}


def eq(key: str, value: Any) -> dict[str, Any]:
    return {"equals": {"key": key, "value": value}}


#: One filter per operator and value type, and nested combinations, each checked by name.
EVERY_OPERATOR: dict[str, dict[str, Any]] = {
    "equals string": eq("k0", "a"),
    "equals number": eq("k1", 2.0),
    "equals boolean": eq("k2", True),
    "equals date string (as text)": eq("k3", "2024-01-01"),
    "notEquals string (absent keys match)": {"notEquals": {"key": "k0", "value": "a"}},
    "notEquals number": {"notEquals": {"key": "k1", "value": 0}},
    "in strings": {"in": {"key": "k0", "value": ["a", "b*c", "Ärger"]}},
    "in numbers": {"in": {"key": "k1", "value": [-1.5, 10, 1e10]}},
    "notIn strings (absent keys do not)": {"notIn": {"key": "k2", "value": ["a", "ab"]}},
    "notIn numbers": {"notIn": {"key": "k3", "value": [2024, 0]}},
    "greaterThan number": {"greaterThan": {"key": "k0", "value": 1}},
    "greaterThanOrEquals number": {"greaterThanOrEquals": {"key": "k1", "value": 2}},
    "lessThan number": {"lessThan": {"key": "k2", "value": 10}},
    "lessThanOrEquals number": {"lessThanOrEquals": {"key": "k3", "value": -1.5}},
    "greaterThan date": {"greaterThan": {"key": "k0", "value": "2024-01-01"}},
    "greaterThanOrEquals date-time": {
        "greaterThanOrEquals": {"key": "k1", "value": "2023-12-31T23:00:00-02:00"}
    },
    "lessThan date with fraction and offset": {
        "lessThan": {"key": "k2", "value": "2024-06-15T12:00:00.250+02:00"}
    },
    "lessThanOrEquals date": {"lessThanOrEquals": {"key": "k3", "value": "2024-01-01"}},
    "greaterThan text": {"greaterThan": {"key": "k0", "value": "b"}},
    "lessThanOrEquals text": {"lessThanOrEquals": {"key": "k1", "value": "ab"}},
    "startsWith": {"startsWith": {"key": "k2", "value": "a"}},
    "startsWith a date prefix": {"startsWith": {"key": "k3", "value": "20"}},
    "listContains": {"listContains": {"key": "k0", "value": "Ärger"}},
    "listContains a date": {"listContains": {"key": "k1", "value": "2024-01-01"}},
    "stringContains in strings and lists": {"stringContains": {"key": "k2", "value": "b"}},
    "stringContains a literal star": {"stringContains": {"key": "k3", "value": "*"}},
    "stringContains a literal question mark": {"stringContains": {"key": "k0", "value": "?"}},
    "stringContains a backslash": {"stringContains": {"key": "k1", "value": "\\"}},
    "source uri equals": eq(SOURCE_URI_KEY, f"s3://{BUCKET}/doc17"),
    "source uri in": {"in": {"key": SOURCE_URI_KEY, "value": [f"s3://{BUCKET}/doc1", "s3://x/2"]}},
    "source uri startsWith": {"startsWith": {"key": SOURCE_URI_KEY, "value": f"s3://{BUCKET}/doc1"}},
    "source uri notIn": {"notIn": {"key": SOURCE_URI_KEY, "value": [f"s3://{BUCKET}/doc3"]}},
    "andAll": {"andAll": [eq("k0", "a"), {"notEquals": {"key": "k1", "value": 1}}]},
    "orAll of five": {"orAll": [eq(k, "b") for k in ("k0", "k1", "k2", "k3")] + [eq("k0", 2)]},
    "nested andAll/orAll, depth 5": {
        "orAll": [
            {"andAll": [
                {"orAll": [
                    {"andAll": [{"greaterThan": {"key": "k0", "value": 0}},
                                {"lessThan": {"key": "k0", "value": 2025}}]},
                    {"listContains": {"key": "k1", "value": "a"}},
                ]},
                {"notEquals": {"key": "k2", "value": False}},
            ]},
            {"andAll": [{"startsWith": {"key": "k3", "value": "20"}},
                        {"greaterThan": {"key": "k3", "value": "1999-12-31"}}]},
        ]
    },
}  # fmt: skip


def test_every_operator_answers_what_the_reference_evaluator_says(
    os_http: OsHttp, corpus: tuple[str, list[Doc]]
) -> None:
    index, docs = corpus
    sizes = {}
    for name, raw in EVERY_OPERATOR.items():
        expected = expected_ids(raw, docs)
        got = node_ids(os_http, index, translate(raw, source_bucket=BUCKET))
        assert got == expected, (name, sorted(got ^ expected)[:5])
        sizes[name] = len(expected)
    # Each check is worth something: it selects some documents and not all of them
    # (the one exception is a filter that can only name one document).
    trivial = [n for n, size in sizes.items() if size in (0, DOCS)]
    assert trivial == [], sizes


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(tree=filters())
def test_random_filter_trees_agree_with_the_reference_evaluator(
    os_http: OsHttp, corpus: tuple[str, list[Doc]], tree: dict[str, Any]
) -> None:
    index, docs = corpus
    got = node_ids(os_http, index, translate(tree, source_bucket=BUCKET))
    assert got == expected_ids(tree, docs)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    tree=filters(max_depth=3),
    groups=st.lists(st.sampled_from((*GROUPS, ADMIN, "outsider")), min_size=1, max_size=3),
)
def test_the_access_clause_on_the_node_returns_only_readable_documents(
    os_http: OsHttp, corpus: tuple[str, list[Doc]], tree: dict[str, Any], groups: list[str]
) -> None:
    index, docs = corpus
    identity = Identity("someone", "https://issuer.example", frozenset(groups))
    access = access_clause(identity, AccessMode.GROUPS, admin_group=ADMIN)
    combined = combine(access, translate(tree, source_bucket=BUCKET))
    got = node_ids(os_http, index, combined)
    leaked = {d.id for d in docs if d.id in got and not readable(d, groups)}
    assert leaked == set()
    assert got == {d.id for d in docs if readable(d, groups) and bedrock_holds(tree, d)}


def test_documents_without_readers_are_the_admin_groups_only(
    os_http: OsHttp, corpus: tuple[str, list[Doc]]
) -> None:
    index, docs = corpus
    unread = {d.id for d in docs if not d.metadata.readers}
    assert unread, "the corpus has documents without readers"
    everyone = Identity("u", "https://issuer.example", frozenset(GROUPS))
    clause = access_clause(everyone, AccessMode.GROUPS, admin_group=ADMIN)
    assert clause is not None and not node_ids(os_http, index, clause) & unread
    admin = access_clause(
        Identity("a", "https://issuer.example", frozenset({ADMIN})),
        AccessMode.GROUPS,
        admin_group=ADMIN,
    )
    assert admin is not None and node_ids(os_http, index, admin) == {d.id for d in docs}


@pytest.mark.parametrize(
    "source",
    [
        {"meta": {"s": {"k": {"nested": "object"}}}},  # a key must be a value, not an object
        {"meta": {"n": {"k": "not a number"}}},
        {"meta": {"x": {"k": 1}}},  # no sub-object but the five
        {"unmapped": 1},  # nothing else is dynamic
    ],
)
def test_the_mapping_refuses_what_document_fields_never_write(
    os_http: OsHttp, corpus: tuple[str, list[Doc]], source: dict[str, Any]
) -> None:
    index, _ = corpus
    answer = os_http("POST", f"/{index}/_doc", source, ok=(400,))
    assert answer["error"]["type"] in (
        "mapper_parsing_exception",
        "strict_dynamic_mapping_exception",
    )
