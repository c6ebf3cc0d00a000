"""Two independent judges of a metadata filter, for the property and integration tests.

- `bedrock_holds`: the Retrieve filter's meaning as Bedrock documents it (API
  reference, RetrievalFilter), on a document's typed attributes; it reads the raw JSON
  filter and never looks at chunkwise's parser or translator.
- `clause_matches`: what an OpenSearch node answers for a query clause (term, terms,
  range, prefix, wildcard, exists, bool, match_all/none) on a document's ``_source``,
  with the field types of chunkwise's mapping (keyword, double, boolean, date).

The translator is right when the two agree for every filter and document. Values come
from small pools whose dates are known by construction (`DATES`), so neither judge has
to parse a date the way the code under test does.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import strategies as st

from chunkwise.metadata.fields import document_fields
from chunkwise.metadata.filters import SOURCE_URI_KEY
from chunkwise.metadata.model import AttributeType, AttributeValue, DocumentMetadata

BUCKET = "bkt"
KEYS = ("k0", "k1", "k2", "k3")
GROUPS = ("g0", "g1", "g2", "g3", "g4")
ADMIN = "admins"


def _utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[misc]


#: Every string a document or a filter may hold, with the instant it names (None: not
#: a date in chunkwise's sense). Wildcard characters and a backslash are in on purpose.
DATES: dict[str, datetime | None] = {
    "a": None,
    "ab": None,
    "abc": None,
    "b": None,
    "b*c": None,
    "a?c": None,
    "x\\y": None,
    "Ärger": None,
    "z": None,
    "10": None,
    "2024-02-30": None,  # no such day: text only
    "2024-01-01": _utc(2024, 1, 1),
    "2024-01-01T00:00:00Z": _utc(2024, 1, 1),
    "2024-01-01T10:30": _utc(2024, 1, 1, 10, 30),
    "2023-12-31T23:00:00-02:00": _utc(2024, 1, 1, 1, 0),
    "2024-06-15T12:00:00.250+02:00": _utc(2024, 6, 15, 10, 0, 0, 250_000),
    "1999-12-31": _utc(1999, 12, 31),
}
STRINGS = tuple(DATES)
SUBSTRINGS = ("a", "b", "*", "?", "\\", "b*", "?c", "b*c", "x\\", "20", "-01", "Ä", "c", "q")
NUMBERS = (-1.5, 0.0, 1.0, 2.0, 10.0, 2024.0, 1e10)
URIS = (
    f"s3://{BUCKET}/doc1",
    f"s3://{BUCKET}/doc12",
    f"s3://{BUCKET}/",
    f"s3://{BUCKET}/doc",
    "s3://",
    "s3://other/doc1",
)


@dataclass(frozen=True)
class Doc:
    id: str
    source_key: str
    metadata: DocumentMetadata

    def source(self) -> dict[str, Any]:
        """The chunk ``_source`` fields this document's metadata gives (plus its key)."""
        return {"source_key": self.source_key, **document_fields(self.metadata)}


# --------------------------------------------------------------------------- Bedrock


def bedrock_holds(node: Mapping[str, Any], doc: Doc) -> bool:
    ((operator, arg),) = node.items()
    if operator == "andAll":
        return all(bedrock_holds(m, doc) for m in arg)
    if operator == "orAll":
        return any(bedrock_holds(m, doc) for m in arg)
    key, value = arg["key"], arg["value"]
    if key == SOURCE_URI_KEY:
        attribute = AttributeValue(AttributeType.STRING, f"s3://{BUCKET}/{doc.source_key}")
    else:
        attribute = doc.metadata.attributes.get(key)
    if operator == "notEquals":  # the one operator that holds for an absent key
        return not _holds("equals", attribute, value)
    return attribute is not None and _holds(operator, attribute, value)


def _holds(operator: str, attribute: AttributeValue | None, value: Any) -> bool:
    if attribute is None:
        return False
    kind, have = attribute.type, attribute.value
    if operator == "equals":
        return _same_kind(kind, value) and have == _number(value)
    if operator in ("in", "notIn"):
        wanted = [_number(v) for v in value]
        if not _same_kind(kind, value[0]):
            return False
        return (have in wanted) == (operator == "in")
    if operator in ("greaterThan", "greaterThanOrEquals", "lessThan", "lessThanOrEquals"):
        return _compare(operator, kind, have, value)
    if operator == "startsWith":
        return kind is AttributeType.STRING and str(have).startswith(value)
    if operator == "listContains":
        return kind is AttributeType.STRING_LIST and value in have
    if operator == "stringContains":
        if kind is AttributeType.STRING:
            return value in str(have)
        return kind is AttributeType.STRING_LIST and any(value in m for m in have)
    raise AssertionError(operator)


def _same_kind(kind: AttributeType, value: Any) -> bool:
    if isinstance(value, bool):
        return kind is AttributeType.BOOLEAN
    if isinstance(value, int | float):
        return kind is AttributeType.NUMBER
    return kind is AttributeType.STRING


def _number(value: Any) -> Any:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _compare(operator: str, kind: AttributeType, have: Any, value: Any) -> bool:
    # Only strings of the pool: their date-ness is known, not parsed here.
    assert isinstance(value, int | float) or value in DATES, f"{value!r} is not in DATES"
    if isinstance(value, int | float):
        if kind is not AttributeType.NUMBER:
            return False
        left, right = have, float(value)
    elif DATES.get(value) is not None:
        if kind is not AttributeType.STRING or DATES.get(have) is None:
            return False
        left, right = DATES[have], DATES[value]
    else:
        if kind is not AttributeType.STRING:
            return False
        left, right = have, value
    return {
        "greaterThan": left > right,
        "greaterThanOrEquals": left >= right,
        "lessThan": left < right,
        "lessThanOrEquals": left <= right,
    }[operator]


# --------------------------------------------------------------------------- OpenSearch

_RANGE = {"gt": (1,), "gte": (0, 1), "lt": (-1,), "lte": (-1, 0)}


def clause_matches(clause: Mapping[str, Any], src: Mapping[str, Any]) -> bool:
    ((kind, body),) = clause.items()
    if kind == "match_all":
        return True
    if kind == "match_none":
        return False
    if kind == "bool":
        return _bool(body, src)
    if kind == "exists":
        return bool(_values(src, body["field"]))
    ((field, arg),) = body.items()
    have = _values(src, field)
    if kind == "term":
        return _typed(field, arg) in have
    if kind == "terms":
        return any(_typed(field, v) in have for v in arg)
    if kind == "prefix":
        return any(str(v).startswith(arg) for v in have)
    if kind == "wildcard":
        pattern = _wildcard_regex(arg["value"])
        return any(pattern.fullmatch(str(v)) for v in have)
    if kind == "range":
        return any(_in_range(field, v, arg) for v in have)
    raise AssertionError(f"the test judge does not know {kind}")


def _bool(body: Mapping[str, Any], src: Mapping[str, Any]) -> bool:
    required = list(body.get("filter", [])) + list(body.get("must", []))
    if not all(clause_matches(c, src) for c in required):
        return False
    if any(clause_matches(c, src) for c in body.get("must_not", [])):
        return False
    should = body.get("should", [])
    # OpenSearch's default: one should clause must match when there is no must/filter.
    minimum = body.get("minimum_should_match", 0 if required or not should else 1)
    return sum(clause_matches(c, src) for c in should) >= minimum


def _values(src: Mapping[str, Any], path: str) -> list[Any]:
    node: Any = src
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return []
        node = node[part]
    return list(node) if isinstance(node, list) else [node]


def _typed(field: str, value: Any) -> Any:
    if field.startswith("meta.n."):
        return float(value)
    return value


def _millis(text: str) -> int:
    return (datetime.fromisoformat(text) - _utc(1970, 1, 1)) // timedelta(milliseconds=1)


def _in_range(field: str, have: Any, arg: Mapping[str, Any]) -> bool:
    if field.startswith("meta.d."):
        assert arg.get("format") == "epoch_millis", "dates are compared in epoch millis"
        left: Any = _millis(have)
    else:
        left = have
    for bound, signs in _RANGE.items():
        if bound in arg:
            right = arg[bound]
            sign = (left > right) - (left < right)
            if sign not in signs:
                return False
    return True


def _wildcard_regex(pattern: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        out.append(".*" if ch == "*" else "." if ch == "?" else re.escape(ch))
        i += 1
    return re.compile("".join(out), re.DOTALL)


# --------------------------------------------------------------------------- random data


def random_metadata(rng: random.Random, *, with_readers: bool = True) -> DocumentMetadata:
    attributes: dict[str, AttributeValue] = {}
    for key in KEYS:
        kind = rng.choice(["absent", "s", "s", "n", "b", "l"])
        if kind == "s":
            attributes[key] = AttributeValue(AttributeType.STRING, rng.choice(STRINGS))
        elif kind == "n":
            attributes[key] = AttributeValue(AttributeType.NUMBER, rng.choice(NUMBERS))
        elif kind == "b":
            attributes[key] = AttributeValue(AttributeType.BOOLEAN, rng.random() < 0.5)
        elif kind == "l":
            members = tuple(rng.sample(STRINGS, rng.randint(1, 3)))
            attributes[key] = AttributeValue(AttributeType.STRING_LIST, members)
    readers: tuple[str, ...] | None = None
    if with_readers and rng.random() < 0.8:
        readers = tuple(sorted(rng.sample(GROUPS, rng.randint(0, 3))))
    return DocumentMetadata(attributes=attributes, readers=readers)


def random_docs(rng: random.Random, count: int) -> list[Doc]:
    return [Doc(f"d{i}", f"doc{i}", random_metadata(rng)) for i in range(count)]


def readable(doc: Doc, groups: Sequence[str]) -> bool:
    """May a caller in ``groups`` read ``doc`` (the access model, from first principles)?"""
    if ADMIN in groups:
        return True
    return bool(set(doc.metadata.readers or ()) & set(groups))


# --------------------------------------------------------------------------- filter strategies

_SCALARS = st.one_of(st.sampled_from(STRINGS), st.sampled_from(NUMBERS), st.booleans())
_RANGE_VALUES = st.one_of(st.sampled_from(STRINGS), st.sampled_from(NUMBERS))
_LISTS = st.one_of(
    st.lists(st.sampled_from(STRINGS), min_size=1, max_size=4),
    st.lists(st.sampled_from(NUMBERS), min_size=1, max_size=4),
)
_VALUES_BY_OPERATOR = {
    "equals": _SCALARS,
    "notEquals": _SCALARS,
    "greaterThan": _RANGE_VALUES,
    "greaterThanOrEquals": _RANGE_VALUES,
    "lessThan": _RANGE_VALUES,
    "lessThanOrEquals": _RANGE_VALUES,
    "in": _LISTS,
    "notIn": _LISTS,
    "startsWith": st.sampled_from(SUBSTRINGS + STRINGS[:6]),
    "listContains": st.sampled_from(STRINGS),
    "stringContains": st.sampled_from(SUBSTRINGS),
}
_URI_VALUES = {
    "equals": st.sampled_from(URIS),
    "notEquals": st.sampled_from(URIS),
    "in": st.lists(st.sampled_from(URIS), min_size=1, max_size=3),
    "notIn": st.lists(st.sampled_from(URIS), min_size=1, max_size=3),
    "startsWith": st.sampled_from(URIS),
}


@st.composite
def leaf_filters(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.integers(0, 9)) == 0:
        operator = draw(st.sampled_from(sorted(_URI_VALUES)))
        return {operator: {"key": SOURCE_URI_KEY, "value": draw(_URI_VALUES[operator])}}
    operator = draw(st.sampled_from(sorted(_VALUES_BY_OPERATOR)))
    key = draw(st.sampled_from(KEYS))
    return {operator: {"key": key, "value": draw(_VALUES_BY_OPERATOR[operator])}}


def filters(max_depth: int = 5) -> st.SearchStrategy[dict[str, Any]]:
    """Filter trees within chunkwise's bounds: depth <= max_depth, 2-5 members per
    andAll/orAll, and few enough leaves that no tree has more than 50 operators."""
    if max_depth <= 1:
        return leaf_filters()
    inner = filters(max_depth - 1)
    combined = st.builds(
        lambda op, members: {op: members},
        st.sampled_from(["andAll", "orAll"]),
        st.lists(inner, min_size=2, max_size=5),
    )
    tree = st.one_of(leaf_filters(), leaf_filters(), combined)
    return tree.filter(lambda node: count_nodes(node) <= 50)


def count_nodes(node: Mapping[str, Any]) -> int:
    ((operator, arg),) = node.items()
    if operator in ("andAll", "orAll"):
        return 1 + sum(count_nodes(m) for m in arg)
    return 1


@st.composite
def metadata_docs(draw: st.DrawFn, count: int = 16) -> list[Doc]:
    seed = draw(st.integers(0, 2**32 - 1))
    return random_docs(random.Random(seed), count)
