"""Property tests of the metadata filter translator and the access clause.

For random filter trees within the bounds and random documents, the OpenSearch clause
chunkwise generates must select exactly the documents Bedrock's documented semantics
select (two independent judges, tests/metadata_eval.py); and no caller filter, however
built, may let a caller see a document the access clause alone would withhold.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chunkwise.access import AccessMode, Identity, access_clause, combine
from chunkwise.metadata.filter_query import filter_clause
from chunkwise.metadata.filters import parse_filter
from tests.metadata_eval import (
    ADMIN,
    BUCKET,
    GROUPS,
    Doc,
    bedrock_holds,
    clause_matches,
    count_nodes,
    filters,
    metadata_docs,
    readable,
)

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(tree=filters(), docs=metadata_docs())
def test_the_clause_selects_what_bedrock_semantics_select(
    tree: dict[str, Any], docs: list[Doc]
) -> None:
    clause = filter_clause(parse_filter(tree), source_bucket=BUCKET)
    for doc in docs:
        expected = bedrock_holds(tree, doc)
        assert clause_matches(clause, doc.source()) == expected, (doc.id, doc.metadata)


@SETTINGS
@given(
    tree=filters(),
    docs=metadata_docs(),
    groups=st.lists(st.sampled_from((*GROUPS, ADMIN, "outsider")), min_size=1, max_size=4),
)
def test_no_caller_filter_widens_what_the_access_clause_allows(
    tree: dict[str, Any], docs: list[Doc], groups: list[str]
) -> None:
    identity = Identity("someone", "https://issuer.example", frozenset(groups))
    access = access_clause(identity, AccessMode.GROUPS, admin_group=ADMIN)
    user = filter_clause(parse_filter(tree), source_bucket=BUCKET)
    combined = combine(access, user)
    for doc in docs:
        src = doc.source()
        seen = clause_matches(combined, src)
        assert seen == (readable(doc, groups) and bedrock_holds(tree, doc)), doc.id
        if seen:
            assert readable(doc, groups)


def test_the_strategies_reach_every_operator_and_the_bounds() -> None:
    """The generated trees are worth testing with: every operator, the source URI key,
    deep and wide trees (so the properties above can fail where it matters)."""
    seen: set[str] = set()
    deepest = widest = largest = 0

    @settings(max_examples=600, deadline=None)
    @given(tree=filters())
    def collect(tree: dict[str, Any]) -> None:
        nonlocal deepest, widest, largest
        largest = max(largest, count_nodes(tree))
        stack = [(tree, 1)]
        while stack:
            node, depth = stack.pop()
            ((operator, arg),) = node.items()
            seen.add(operator)
            deepest = max(deepest, depth)
            if operator in ("andAll", "orAll"):
                widest = max(widest, len(arg))
                stack.extend((m, depth + 1) for m in arg)
            elif arg["key"].startswith("x-amz-"):
                seen.add("source-uri")

    collect()
    assert seen >= {
        "equals", "notEquals", "greaterThan", "greaterThanOrEquals", "lessThan",
        "lessThanOrEquals", "in", "notIn", "startsWith", "listContains", "stringContains",
        "andAll", "orAll", "source-uri",
    }  # fmt: skip
    assert deepest == 5 and widest == 5 and largest > 15
