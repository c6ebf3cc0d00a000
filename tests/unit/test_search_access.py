"""The caller's metadata filter and the server's access clause in the query bodies: in
both legs of every query path, never after the search, never widened by the caller."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkwise.access import AccessMode, AccessPolicy, AuthError, Identity
from chunkwise.access.clause import combine
from chunkwise.metadata import FilterError, translate
from chunkwise.search.audit import withheld_count, withheld_count_query
from chunkwise.search.hybrid import (
    SearchFilters,
    attributes_of,
    bm25_query,
    build_hit,
    hybrid_query,
    hybrid_text_query,
    knn_query,
    neural_query,
)
from tests.metadata_eval import ADMIN, BUCKET, GROUPS, Doc, clause_matches, filters, metadata_docs

VECTOR = [0.1, 0.2, 0.3]
USER = {"equals": {"key": "department", "value": "legal"}}
LEGAL = Identity("alice", "https://issuer.example", frozenset({"legal", "staff"}))


def access_filters(user: dict[str, Any] | None = USER) -> SearchFilters:
    clause = AccessPolicy(AccessMode.GROUPS).clause(LEGAL)
    metadata = translate(user) if user is not None else None
    return SearchFilters(langs=("de",), metadata_filter=metadata).restricted(clause)


#: Every body a query path sends, by path; each returns its legs' filter lists.
def _lexical_filter(clause: dict[str, Any]) -> list[dict[str, Any]]:
    filt: list[dict[str, Any]] = clause["bool"]["filter"]
    return filt


def _dense_filter(clause: dict[str, Any]) -> list[dict[str, Any]]:
    (kind,) = clause
    filt: list[dict[str, Any]] = clause[kind]["embedding"]["filter"]["bool"]["filter"]
    return filt


BODIES: dict[str, Callable[[SearchFilters], list[list[dict[str, Any]]]]] = {
    "client fusion, BM25 leg": lambda f: [_lexical_filter(bm25_query("q", 9, f)["query"])],
    "client fusion, k-NN leg": lambda f: [_dense_filter(knn_query(VECTOR, 9, f)["query"])],
    "server hybrid": lambda f: [
        _lexical_filter(hybrid_query("q", VECTOR, 9, f)["query"]["hybrid"]["queries"][0]),
        _dense_filter(hybrid_query("q", VECTOR, 9, f)["query"]["hybrid"]["queries"][1]),
    ],
    "cluster-embedded, neural leg": lambda f: [
        _dense_filter(neural_query("q", 9, f, model_id="m")["query"])
    ],
    "cluster-embedded hybrid": lambda f: [
        _lexical_filter(hybrid_text_query("q", 9, f)["query"]["hybrid"]["queries"][0]),
        _dense_filter(hybrid_text_query("q", 9, f)["query"]["hybrid"]["queries"][1]),
    ],
}


@pytest.mark.parametrize("path", sorted(BODIES))
def test_every_leg_of_every_path_carries_the_user_filter_and_the_access_clause(
    path: str,
) -> None:
    f = access_filters()
    access = {"terms": {"readers": ["legal", "staff"]}}
    user = translate(USER)
    legs = BODIES[path](f)
    assert legs
    for leg in legs:
        # one member requiring both, beside the chunk states and the caller's lang filter
        assert {"bool": {"filter": [access, user]}} in leg
        assert {"terms": {"lang": ["de"]}} in leg
        assert {"terms": {"state": ["pending", "live"]}} in leg


@pytest.mark.parametrize("path", sorted(BODIES))
def test_without_filters_no_leg_carries_an_access_or_metadata_member(path: str) -> None:
    for leg in BODIES[path](SearchFilters()):
        assert leg == [{"terms": {"state": ["pending", "live"]}}]


def _keys(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _keys(value)
    elif isinstance(node, list):
        for value in node:
            yield from _keys(value)


@pytest.mark.parametrize(
    "body",
    [
        hybrid_query("q", VECTOR, 9, access_filters()),
        hybrid_text_query("q", 9, access_filters()),
        knn_query(VECTOR, 9, access_filters()),
        neural_query("q", 9, access_filters()),
        bm25_query("q", 9, access_filters()),
    ],
)
def test_no_body_filters_after_the_search(body: dict[str, Any]) -> None:
    # A post_filter (or a filter outside the k-NN clause) would return fewer than k.
    assert "post_filter" not in set(_keys(body))
    assert "readers" in json.dumps(body["query"])


@pytest.mark.parametrize(
    ("raw", "readers_key", "path"),
    [
        (
            {"listContains": {"key": "chunkwise_readers", "value": "legal"}},
            None,
            "$.listContains.key",
        ),
        ({"equals": {"key": "acl", "value": "x"}}, "acl", "$.equals.key"),
        (
            {"orAll": [USER, {"in": {"key": "chunkwise_owner", "value": ["x"]}}]},
            None,
            "$.orAll[1].in.key",
        ),
        ({"equals": {"key": "x-amz-bedrock-kb-chunk-id", "value": "x"}}, None, "$.equals.key"),
        ({"startsWith": {"key": "meta.s.department", "value": "x"}}, None, "$.startsWith.key"),
    ],
)
def test_a_filter_on_the_readers_key_or_a_reserved_name_is_refused_with_its_path(
    raw: dict[str, Any], readers_key: str | None, path: str
) -> None:
    with pytest.raises(FilterError) as info:
        translate(raw, **({"readers_key": readers_key} if readers_key else {}))
    assert info.value.path == path


_FILTER_FIELDS = ("term", "terms", "range", "prefix", "wildcard")


def _fields(clause: Any) -> Iterator[str]:
    """Every index field a translated clause queries."""
    if isinstance(clause, dict):
        for kind, body in clause.items():
            if kind in _FILTER_FIELDS and isinstance(body, dict):
                yield from (k for k in body if k != "format")
            elif kind == "exists":
                yield body["field"]
            else:
                yield from _fields(body)
    elif isinstance(clause, list):
        for member in clause:
            yield from _fields(member)


@settings(max_examples=300, deadline=None)
@given(filters())
def test_no_filter_the_grammar_accepts_queries_the_readers_field(raw: dict[str, Any]) -> None:
    # Metadata lives under meta.*; the source URI maps to source_key. Nothing else.
    for field in _fields(translate(raw, source_bucket=BUCKET)):
        assert field.startswith("meta.") or field == "source_key", field


def _visible(f: SearchFilters, docs: list[Doc]) -> set[str]:
    every = {"bool": {"filter": f.clauses()}}
    return {d.id for d in docs if clause_matches(every, {**d.source(), "state": "live"})}


@settings(max_examples=200, deadline=None)
@given(
    user=st.one_of(st.none(), filters()),
    own=st.one_of(st.none(), filters()),
    groups=st.sets(st.sampled_from((*GROUPS, ADMIN)), min_size=1, max_size=3),
    docs=metadata_docs(),
)
def test_nothing_a_caller_sets_widens_the_access_clause(
    user: dict[str, Any] | None, own: dict[str, Any] | None, groups: set[str], docs: list[Doc]
) -> None:
    identity = Identity("bob", "https://issuer.example", frozenset(groups))
    policy = AccessPolicy(AccessMode.GROUPS, admin_group=ADMIN)
    # The caller's filter, and an access clause of the caller's own making (a library
    # caller may construct SearchFilters with one) that admits everything.
    metadata = translate(user, source_bucket=BUCKET) if user is not None else None
    caller = SearchFilters(metadata_filter=metadata, access=own and {"match_all": {}})
    f = caller.restricted(policy.clause(identity))
    seen = _visible(f, docs)
    allowed = {d.id for d in docs if ADMIN in groups or set(d.metadata.readers or ()) & groups}
    assert seen <= allowed
    # ... and the caller's filter still applies: it narrows, never is dropped.
    assert seen == _visible(caller, docs) & allowed


def test_restricting_twice_requires_both_clauses() -> None:
    first = {"terms": {"readers": ["a", "b"]}}
    second = {"terms": {"readers": ["b", "c"]}}
    f = SearchFilters().restricted(first).restricted(second)
    assert f.access == combine(first, second)
    assert SearchFilters().restricted(None) == SearchFilters()
    assert f.without_access().access is None


def test_mode_groups_without_an_identity_or_groups_is_refused_before_any_query() -> None:
    policy = AccessPolicy(AccessMode.GROUPS, admin_group=ADMIN)
    with pytest.raises(AuthError) as missing:
        policy.clause(None)
    assert missing.value.status == 401
    with pytest.raises(AuthError) as empty:
        policy.clause(Identity("bob", "https://issuer.example"))
    assert empty.value.status == 403
    assert policy.clause(Identity("root", "iss", frozenset({ADMIN}))) == {"match_all": {}}
    assert AccessPolicy().clause(None) is None


def test_the_withheld_count_compares_the_same_lexical_query_with_and_without_access() -> None:
    f = access_filters()
    body = withheld_count_query("Kündigung", f, lang="de")
    assert body["size"] == 0 and body["track_total_hits"] is True
    lexical = body["query"]["bool"]
    assert {"bool": {"filter": [translate(USER)]}} in lexical["filter"]  # user filter only
    assert "readers" not in json.dumps(lexical)
    assert body["aggs"]["visible"]["filter"] == f.access
    response = {"hits": {"total": {"value": 12}}, "aggregations": {"visible": {"doc_count": 5}}}
    assert withheld_count(response) == 7
    with pytest.raises(ValueError, match="access clause"):
        withheld_count_query("x", SearchFilters())


def test_hits_carry_the_documents_attributes_but_never_its_readers() -> None:
    src = {
        "doc_id": "d",
        "meta": {
            "s": {"department": "legal", "signed": "2024-05-31"},
            "n": {"year": 2024.0},
            "b": {"draft": False},
            "l": {"tags": ["a", "b"]},
            "d": {"signed": "2024-05-31T00:00:00.000Z"},
        },
        "readers": ["legal"],
    }
    expected = {
        "department": "legal",
        "draft": False,
        "signed": "2024-05-31",
        "tags": ["a", "b"],
        "year": 2024.0,
    }
    assert attributes_of(src) == expected
    hit = build_hit({"_id": "x", "_source": src}, 1.0, "bm25")
    assert hit.metadata == expected
    assert "readers" not in json.dumps(hit.model_dump(mode="json"))
    assert attributes_of({"doc_id": "d"}) == {}
