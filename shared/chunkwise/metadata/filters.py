"""Metadata filters in the grammar of Bedrock's Retrieve ``RetrievalFilter``: parsed and
bounded here (pure), turned into OpenSearch clauses by `chunkwise.metadata.filter_query`.

A filter is a JSON object with exactly one operator key::

    {"andAll": [{"equals": {"key": "department", "value": "legal"}},
                {"greaterThanOrEquals": {"key": "year", "value": 2023}},
                {"orAll": [{"listContains": {"key": "tags", "value": "contract"}},
                           {"startsWith": {"key": "title", "value": "Vertrag"}}]}]}

Operators and the values they take: ``equals`` / ``notEquals`` (a string, number or
boolean), ``greaterThan`` / ``greaterThanOrEquals`` / ``lessThan`` / ``lessThanOrEquals``
(a number or a string), ``in`` / ``notIn`` (a list of 1-100 strings or of 1-100 numbers),
``startsWith`` / ``listContains`` / ``stringContains`` (a string), ``andAll`` / ``orAll``
(2 to 5 filters). Bounds on the whole: depth at most 5 (a single condition is depth 1),
at most 50 operator objects. A key is an attribute name (`model.KEY_RE`) or Bedrock's
built-in ``x-amz-bedrock-kb-source-uri``; a key that names something reserved (the
readers key, ``chunkwise_*``) is refused. Every other key is translated to a path under
``meta.*`` only (a key ``doc_id`` means ``meta.s.doc_id``), so no filter can reach the
fields access control relies on.

Bad input raises `FilterError` with the JSON path of the offending node
(``$.andAll[2].orAll[0].listContains.value``) and never the value itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)

from chunkwise.errors import ChunkwiseError
from chunkwise.metadata.model import (
    BEDROCK_PREFIX,
    DEFAULT_READERS_KEY,
    check_readers_key,
    key_refusal,
    number_value,
    string_refusal,
)

MAX_DEPTH = 5
MAX_NODES = 50
MAX_VALUES = 100
#: Bedrock's andAll / orAll take at least two members; the API reference gives five as
#: the maximum (the service model itself states no maximum).
MIN_MEMBERS = 2
MAX_MEMBERS = 5
#: Bedrock's built-in attribute of every chunk: its document's ``s3://bucket/key``.
SOURCE_URI_KEY = "x-amz-bedrock-kb-source-uri"
COMBINATORS = ("andAll", "orAll")

Scalar = str | float | bool


class FilterError(ChunkwiseError, ValueError):
    """A filter outside the grammar or its bounds: the caller's mistake (answered 400).
    ``path`` is the JSON path of the offending node; the message never holds a value."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"filter {path}: {reason}")
        self.path = path
        self.reason = reason


# --------------------------------------------------------------------------- attributes


class _Attribute(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str

    @field_validator("key", mode="before")
    @classmethod
    def _key(cls, key: Any, info: ValidationInfo) -> str:
        if not isinstance(key, str):
            raise ValueError("must be a string")
        if key == SOURCE_URI_KEY:
            return key
        readers_key = (info.context or {}).get("readers_key", DEFAULT_READERS_KEY)
        if key == readers_key:
            raise ValueError("the readers key is reserved for access control")
        if key.startswith(BEDROCK_PREFIX):
            raise ValueError(f"of Bedrock's own keys only {SOURCE_URI_KEY} is supported")
        reason = key_refusal(key, readers_key)
        if reason:
            raise ValueError(reason)
        return key


class ScalarAttribute(_Attribute):
    """``equals`` / ``notEquals``: a string, a number or a boolean."""

    value: Scalar

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, value: Any) -> Scalar:
        return _scalar(value, allow_bool=True)


class RangeAttribute(_Attribute):
    """The four range operators: a number, or a string (an ISO date compares in time)."""

    value: str | float

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, value: Any) -> str | float:
        scalar = _scalar(value, allow_bool=False)
        assert not isinstance(scalar, bool)
        return scalar


class ListAttribute(_Attribute):
    """``in`` / ``notIn``: 1-100 strings, or 1-100 numbers (one kind per list)."""

    value: tuple[str, ...] | tuple[float, ...]

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, value: Any) -> tuple[str, ...] | tuple[float, ...]:
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_VALUES:
            raise ValueError(f"must be a list of 1 to {MAX_VALUES} values")
        items = [_scalar(v, allow_bool=False) for v in value]
        if all(isinstance(v, str) for v in items):
            return tuple(str(v) for v in items)
        if all(isinstance(v, float) for v in items):
            return tuple(float(v) for v in items)
        raise ValueError("must hold strings only or numbers only")


class StringAttribute(_Attribute):
    """``startsWith`` / ``listContains`` / ``stringContains``: a string."""

    value: str

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError("must be a string")
        return str(_scalar(value, allow_bool=False))


def _scalar(value: Any, *, allow_bool: bool) -> Scalar:
    if isinstance(value, bool):
        if allow_bool:
            return value
        raise ValueError("a boolean is not a value for this operator")
    if isinstance(value, int | float):
        number = number_value(value)
        if number is None:
            raise ValueError("must be a finite number")
        return number
    if isinstance(value, str):
        reason = string_refusal(value)
        if reason:
            raise ValueError(reason)
        return value
    raise ValueError("must be a string, a number or a boolean")


# --------------------------------------------------------------------------- nodes


class _Node(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Equals(_Node):
    attribute: ScalarAttribute = Field(alias="equals")


class NotEquals(_Node):
    attribute: ScalarAttribute = Field(alias="notEquals")


class GreaterThan(_Node):
    attribute: RangeAttribute = Field(alias="greaterThan")


class GreaterThanOrEquals(_Node):
    attribute: RangeAttribute = Field(alias="greaterThanOrEquals")


class LessThan(_Node):
    attribute: RangeAttribute = Field(alias="lessThan")


class LessThanOrEquals(_Node):
    attribute: RangeAttribute = Field(alias="lessThanOrEquals")


class In(_Node):
    attribute: ListAttribute = Field(alias="in")


class NotIn(_Node):
    attribute: ListAttribute = Field(alias="notIn")


class StartsWith(_Node):
    attribute: StringAttribute = Field(alias="startsWith")


class ListContains(_Node):
    attribute: StringAttribute = Field(alias="listContains")


class StringContains(_Node):
    attribute: StringAttribute = Field(alias="stringContains")


class AndAll(_Node):
    members: tuple[RetrievalFilter, ...] = Field(
        alias="andAll", min_length=MIN_MEMBERS, max_length=MAX_MEMBERS
    )


class OrAll(_Node):
    members: tuple[RetrievalFilter, ...] = Field(
        alias="orAll", min_length=MIN_MEMBERS, max_length=MAX_MEMBERS
    )


Leaf = (
    Equals | NotEquals | GreaterThan | GreaterThanOrEquals | LessThan | LessThanOrEquals
    | In | NotIn | StartsWith | ListContains | StringContains
)  # fmt: skip
_OPERATORS: dict[str, type[_Node]] = {
    "equals": Equals,
    "notEquals": NotEquals,
    "greaterThan": GreaterThan,
    "greaterThanOrEquals": GreaterThanOrEquals,
    "lessThan": LessThan,
    "lessThanOrEquals": LessThanOrEquals,
    "in": In,
    "notIn": NotIn,
    "startsWith": StartsWith,
    "listContains": ListContains,
    "stringContains": StringContains,
    "andAll": AndAll,
    "orAll": OrAll,
}
OPERATORS = tuple(_OPERATORS)
_ONE_OPERATOR = "must be an object with exactly one operator: " + ", ".join(_OPERATORS)


def _operator_of(value: Any) -> str | None:
    """The discriminator: the single key of a filter object (None: not one)."""
    if isinstance(value, dict) and len(value) == 1:
        (key,) = value
        return key if key in _OPERATORS else None
    return None


RetrievalFilter = Annotated[
    Annotated[Equals, Tag("equals")]
    | Annotated[NotEquals, Tag("notEquals")]
    | Annotated[GreaterThan, Tag("greaterThan")]
    | Annotated[GreaterThanOrEquals, Tag("greaterThanOrEquals")]
    | Annotated[LessThan, Tag("lessThan")]
    | Annotated[LessThanOrEquals, Tag("lessThanOrEquals")]
    | Annotated[In, Tag("in")]
    | Annotated[NotIn, Tag("notIn")]
    | Annotated[StartsWith, Tag("startsWith")]
    | Annotated[ListContains, Tag("listContains")]
    | Annotated[StringContains, Tag("stringContains")]
    | Annotated[AndAll, Tag("andAll")]
    | Annotated[OrAll, Tag("orAll")],
    Discriminator(
        _operator_of,
        custom_error_type="filter_operator",
        custom_error_message=_ONE_OPERATOR,
    ),
]
AndAll.model_rebuild()
OrAll.model_rebuild()


_ADAPTER: TypeAdapter[RetrievalFilter] = TypeAdapter(RetrievalFilter)


# --------------------------------------------------------------------------- parsing


def parse_filter(raw: Any, *, readers_key: str = DEFAULT_READERS_KEY) -> RetrievalFilter:
    """The filter tree of a decoded JSON value; `FilterError` (with the JSON path of the
    offending node) if it is outside the grammar or its bounds."""
    check_readers_key(readers_key)
    _check_shape(raw)
    try:
        return _ADAPTER.validate_python(raw, context={"readers_key": readers_key})
    except ValidationError as err:
        first = err.errors()[0]
        raise FilterError(json_path(first["loc"]), _message(first["msg"])) from None


def _message(msg: str) -> str:
    # pydantic prefixes the messages of our validators; the reason reads better alone.
    return msg.removeprefix("Value error, ")


def _check_shape(raw: Any) -> None:
    """Depth and size, checked before any model sees the tree (a 10,000-deep input must
    cost a loop, not a recursion)."""
    stack: list[tuple[Any, str, int]] = [(raw, "$", 1)]
    nodes = 0
    while stack:
        node, path, depth = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise FilterError(path, f"a filter has at most {MAX_NODES} operators")
        if depth > MAX_DEPTH:
            raise FilterError(path, f"a filter nests at most {MAX_DEPTH} levels deep")
        operator = _operator_of(node)
        members = node.get(operator) if operator in COMBINATORS else None
        if isinstance(members, list):
            for i, member in reversed(list(enumerate(members))):
                stack.append((member, f"{path}.{operator}[{i}]", depth + 1))


def json_path(loc: Sequence[int | str]) -> str:
    """A pydantic error location as a JSON path. A tagged union repeats the operator
    (its tag, then the field of that name); the repeat is dropped."""
    out = "$"
    previous: int | str | None = None
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not (part == previous and part in _OPERATORS):
            out += f".{part}"
        previous = part
    return out


# --------------------------------------------------------------------------- reading the tree


def operator_of(node: RetrievalFilter) -> str:
    """The operator name of a parsed node (``"in"`` for `In`)."""
    for name, cls in _OPERATORS.items():
        if type(node) is cls:
            return name
    raise TypeError(f"not a filter node: {type(node).__name__}")  # pragma: no cover


def operand(node: Leaf) -> ScalarAttribute | RangeAttribute | ListAttribute | StringAttribute:
    """The key/value object of a leaf."""
    return node.attribute


def members(node: AndAll | OrAll) -> tuple[RetrievalFilter, ...]:
    return node.members

