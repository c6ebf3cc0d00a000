"""The Retrieve filter grammar: bounds and errors (with JSON paths), and the clauses it
becomes. The agreement of the clauses with Bedrock's semantics on random trees is in
tests/property/test_metadata_filters.py, and against the real node in
tests/integration/test_metadata_filters_node.py."""

from __future__ import annotations

from typing import Any

import pytest

from chunkwise.metadata import FilterError, parse_filter, translate
from chunkwise.metadata.filter_query import wildcard_escape
from chunkwise.metadata.filters import MAX_DEPTH, MAX_NODES, SOURCE_URI_KEY


def eq(key: str = "a", value: Any = "x") -> dict[str, Any]:
    return {"equals": {"key": key, "value": value}}


def error_of(raw: Any, **kwargs: Any) -> FilterError:
    with pytest.raises(FilterError) as info:
        translate(raw, **kwargs)
    return info.value


# --------------------------------------------------------------------------- clauses


@pytest.mark.parametrize(
    ("raw", "clause"),
    [
        (eq("dept", "legal"), {"term": {"meta.s.dept": "legal"}}),
        (eq("year", 2024), {"term": {"meta.n.year": 2024.0}}),
        (eq("draft", True), {"term": {"meta.b.draft": True}}),
        ({"notEquals": {"key": "dept", "value": "hr"}},
         {"bool": {"must_not": [{"term": {"meta.s.dept": "hr"}}]}}),
        ({"in": {"key": "dept", "value": ["a", "b"]}}, {"terms": {"meta.s.dept": ["a", "b"]}}),
        ({"in": {"key": "year", "value": [1, 2.5]}}, {"terms": {"meta.n.year": [1.0, 2.5]}}),
        ({"notIn": {"key": "dept", "value": ["a"]}},
         {"bool": {"filter": [{"exists": {"field": "meta.s.dept"}}],
                   "must_not": [{"terms": {"meta.s.dept": ["a"]}}]}}),
        ({"greaterThan": {"key": "year", "value": 1989}},
         {"range": {"meta.n.year": {"gt": 1989.0}}}),
        ({"lessThanOrEquals": {"key": "signed", "value": "2024-01-01"}},
         {"range": {"meta.d.signed": {"lte": 1704067200000, "format": "epoch_millis"}}}),
        ({"greaterThanOrEquals": {"key": "code", "value": "M"}},
         {"range": {"meta.s.code": {"gte": "M"}}}),
        ({"lessThan": {"key": "code", "value": "2024-02-30"}},
         {"range": {"meta.s.code": {"lt": "2024-02-30"}}}),
        ({"startsWith": {"key": "title", "value": "Ver"}}, {"prefix": {"meta.s.title": "Ver"}}),
        ({"listContains": {"key": "tags", "value": "de"}}, {"term": {"meta.l.tags": "de"}}),
        ({"stringContains": {"key": "t", "value": "a*b?c\\"}},
         {"bool": {"should": [{"wildcard": {"meta.s.t": {"value": "*a\\*b\\?c\\\\*"}}},
                              {"wildcard": {"meta.l.t": {"value": "*a\\*b\\?c\\\\*"}}}],
                   "minimum_should_match": 1}}),
        ({"andAll": [eq("a"), eq("b")]},
         {"bool": {"filter": [{"term": {"meta.s.a": "x"}}, {"term": {"meta.s.b": "x"}}]}}),
        ({"orAll": [eq("a"), eq("b")]},
         {"bool": {"should": [{"term": {"meta.s.a": "x"}}, {"term": {"meta.s.b": "x"}}],
                   "minimum_should_match": 1}}),
    ],
)  # fmt: skip
def test_each_operator_becomes_its_clause(raw: dict[str, Any], clause: dict[str, Any]) -> None:
    assert translate(raw) == clause


def test_the_source_uri_maps_to_chunkwises_source_key() -> None:
    def uri(op: str, value: Any) -> dict[str, Any]:
        return translate({op: {"key": SOURCE_URI_KEY, "value": value}}, source_bucket="docs")

    assert uri("equals", "s3://docs/a/b.pdf") == {"terms": {"source_key": ["a/b.pdf"]}}
    assert uri("equals", "s3://other/a/b.pdf") == {"match_none": {}}
    assert uri("notEquals", "s3://other/a") == {"bool": {"must_not": [{"match_none": {}}]}}
    assert uri("in", ["s3://docs/a", "s3://x/b", "s3://docs/c"]) == {
        "terms": {"source_key": ["a", "c"]}
    }
    assert uri("notIn", ["s3://docs/a"]) == {
        "bool": {"must_not": [{"terms": {"source_key": ["a"]}}]}
    }
    assert uri("startsWith", "s3://docs/reports/") == {"prefix": {"source_key": "reports/"}}
    assert uri("startsWith", "s3://do") == {"match_all": {}}
    assert uri("startsWith", "s3://elsewhere/") == {"match_none": {}}


def test_the_source_uri_needs_the_bucket_and_a_supported_operator() -> None:
    node = {"andAll": [eq(), {"startsWith": {"key": SOURCE_URI_KEY, "value": "s3://b/"}}]}
    error = error_of(node)
    assert error.path == "$.andAll[1].startsWith" and "bucket" in error.reason
    ranged = {"orAll": [eq(), {"greaterThan": {"key": SOURCE_URI_KEY, "value": "s3://b/x"}}]}
    error = error_of(ranged, source_bucket="b")
    assert error.path == "$.orAll[1].greaterThan" and "supports" in error.reason


def test_wildcard_escape() -> None:
    assert wildcard_escape("a*b?c\\d") == "a\\*b\\?c\\\\d"
    assert wildcard_escape("plain") == "plain"


def test_the_parsed_tree_is_immutable() -> None:
    tree = parse_filter({"andAll": [eq(), eq()]})
    with pytest.raises(Exception, match="frozen"):
        tree.members = ()  # type: ignore[misc]


# --------------------------------------------------------------------------- refused


def nest(depth: int) -> dict[str, Any]:
    node = eq()
    for _ in range(depth - 1):
        node = {"andAll": [node, eq()]}
    return node


def test_depth_up_to_five_is_accepted_and_six_is_refused_at_the_deep_node() -> None:
    assert translate(nest(MAX_DEPTH))
    error = error_of(nest(MAX_DEPTH + 1))
    assert error.path == "$" + ".andAll[0]" * MAX_DEPTH and "5 levels" in error.reason


def test_a_very_deep_input_costs_a_loop_not_a_recursion() -> None:
    node: Any = eq()
    for _ in range(100_000):
        node = {"orAll": [node, eq()]}
    assert "5 levels" in error_of(node).reason


def test_at_most_50_operators() -> None:
    def wide(leaves: int) -> dict[str, Any]:
        groups = [{"orAll": [eq(str(i), "x") for i in range(leaves)]} for _ in range(5)]
        return {"andAll": groups}

    assert translate(wide(5))  # 1 + 5 + 25 = 31 operators
    tree = {"andAll": [wide(4), wide(4)]}  # 1 + 2 * (1 + 5 + 20) = 53
    error = error_of(tree)
    assert f"{MAX_NODES} operators" in error.reason


@pytest.mark.parametrize(
    ("raw", "path", "reason"),
    [
        ("equals", "$", "exactly one operator"),
        ({}, "$", "exactly one operator"),
        ({"equals": {"key": "a", "value": 1}, "in": {"key": "a", "value": [1]}}, "$",
         "exactly one operator"),
        ({"matches": {"key": "a", "value": "x"}}, "$", "exactly one operator"),
        ({"andAll": [eq()]}, "$.andAll", "at least 2"),
        ({"orAll": [eq()] * 6}, "$.orAll", "at most 5"),
        ({"andAll": "x"}, "$.andAll", "tuple"),
        ({"andAll": [eq(), {"orAll": [eq(), {"equals": {"key": "a"}}]}]},
         "$.andAll[1].orAll[1].equals.value", "required"),
        ({"equals": {"key": "a", "value": 1, "boost": 2}}, "$.equals.boost", "Extra"),
        ({"equals": {"key": "a", "value": None}}, "$.equals.value", "string, a number"),
        ({"equals": {"key": "a", "value": {"x": 1}}}, "$.equals.value", "string, a number"),
        ({"equals": {"key": "a", "value": ""}}, "$.equals.value", "empty"),
        ({"equals": {"key": "a", "value": "x" * 2049}}, "$.equals.value", "2048"),
        ({"equals": {"key": 7, "value": "x"}}, "$.equals.key", "string"),
        ({"equals": {"key": "a.b", "value": "x"}}, "$.equals.key", "1-100 characters"),
        ({"greaterThan": {"key": "a", "value": True}}, "$.greaterThan.value", "boolean"),
        ({"greaterThan": {"key": "a", "value": [1]}}, "$.greaterThan.value", "string, a number"),
        ({"in": {"key": "a", "value": "x"}}, "$.in.value", "list of 1 to 100"),
        ({"in": {"key": "a", "value": []}}, "$.in.value", "list of 1 to 100"),
        ({"notIn": {"key": "a", "value": list(range(101))}}, "$.notIn.value", "1 to 100"),
        ({"in": {"key": "a", "value": ["x", 1]}}, "$.in.value", "strings only or numbers only"),
        ({"in": {"key": "a", "value": [True]}}, "$.in.value", "boolean"),
        ({"listContains": {"key": "a", "value": 3}}, "$.listContains.value", "string"),
        ({"stringContains": {"key": "a", "value": ["x"]}}, "$.stringContains.value", "string"),
        ({"startsWith": {"key": "a", "value": float("nan")}}, "$.startsWith.value", "string"),
        ({"equals": {"key": "a", "value": float("inf")}}, "$.equals.value", "finite"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_with_the_path_of_the_node(raw: Any, path: str, reason: str) -> None:
    error = error_of(raw)
    assert error.path == path
    assert reason in error.reason
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    "key",
    ["chunkwise_readers", "chunkwise_anything", "x-amz-bedrock-kb-chunk-id",
     "x-amz-bedrock-kb-data-source-id"],
)  # fmt: skip
def test_filters_on_reserved_keys_are_refused(key: str) -> None:
    # A filter on access control's own key, or on chunkwise's, could at best do
    # nothing; refusing it makes the caller's mistake (or attempt) visible.
    error = error_of({"orAll": [{"notEquals": {"key": key, "value": "x"}}, eq()]})
    assert error.path == "$.orAll[0].notEquals.key"


@pytest.mark.parametrize("key", ["readers", "doc_id", "state", "source_key", "lang", "meta"])
def test_keys_named_like_chunkwise_fields_filter_metadata_only(key: str) -> None:
    """A sidecar may use such a key, so a filter may; it never reaches the top-level
    field of the same name (least of all ``readers``, which access control uses)."""
    clause = translate({"equals": {"key": key, "value": "x"}})
    assert clause == {"term": {f"meta.s.{key}": "x"}}


def test_a_configured_readers_key_is_reserved_in_filters_too() -> None:
    raw = {"listContains": {"key": "allowed_groups", "value": "hr"}}
    assert translate(raw)  # an ordinary key while it is not the readers key
    error = error_of(raw, readers_key="allowed_groups")
    assert error.path == "$.listContains.key" and "readers key" in error.reason


def test_an_error_never_repeats_the_value() -> None:
    secret = "top-secret-value-" * 200
    error = error_of({"equals": {"key": "a", "value": secret}})
    assert "top-secret" not in str(error)
