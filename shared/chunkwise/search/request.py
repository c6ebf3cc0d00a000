"""A search request, from a Function URL event's query string or JSON body (pure).

Every parameter is bounded, so a request outside the bounds is the caller's mistake
(400, the detail naming the field and never echoing its value) and never a query
OpenSearch has to reject or a 503 the caller would retry.

    GET  /?q=Wartungsintervall&k=5&key_prefix=incoming/&lang=de&kind=table
         &rerank=false
         &filter={"equals":{"key":"department","value":"legal"}}     (URL-encoded JSON)
    POST /  {"query": "...", "k": 5, "key_prefix": "...", "lang": ["de"], "kind": ["table"],
             "doc_id": ["..."], "filter": {"andAll": [...]},
             "rerank": true, "collapse": false}

``filter`` is a metadata filter in the grammar of Bedrock's Retrieve ``RetrievalFilter``
(`chunkwise.metadata.filters`; a bad one is a 400 naming its JSON path). Who is asking
comes from the verified bearer token only: a request whose parameters name groups,
readers or an identity (`IDENTITY_PARAMS`) is refused with 403, never read.

``rerank``: run the rerank stage (default: the function's configuration; off where no
rerank model is deployed). ``collapse``: one hit per text (default true; false keeps
every copy of a passage found in several documents).
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    field_validator,
)

from chunkwise.metadata import DEFAULT_READERS_KEY, translate
from chunkwise.schema import ChunkKind
from chunkwise.search.hybrid import SearchFilters

# Bounds on every parameter: a request outside them is the caller's mistake (400),
# never a query OpenSearch has to reject (500) or a 503 the caller would retry.
MAX_QUERY_CHARS = 2000
# Lucene's clause limit (1024) applies to the whole lexical query: each term is a clause
# per analysed field, so the number of terms is bounded well below 1024 / fields.
MAX_QUERY_TERMS = 128
MAX_KEY_PREFIX_CHARS = 1024  # an S3 key is at most 1,024 bytes
MAX_FILTER_VALUES = 20
MAX_DOC_IDS = 100
#: The metadata filter as JSON, at most this long (the grammar bounds its shape:
#: depth 5, 50 operators, 100 values per list).
MAX_FILTER_CHARS = 65_536
#: Parameters that would say who the caller is or what it may read. They are refused
#: (403) rather than ignored, so a client that believes it can choose its groups learns
#: at once that it cannot. The configured readers key and groups claim are added.
IDENTITY_PARAMS = frozenset(
    {
        "group", "groups", "reader", "readers", "role", "roles", "identity", "subject",
        "sub", "user", "username", "principal", "claims", "token", "as", "admin",
        "access", "access_control", "acl", "cognito:groups", "chunkwise_readers",
    }
)  # fmt: skip
_TERM = re.compile(r"\w+")
_LANG = re.compile(r"^[a-z]{2,3}$")
_DOC_ID = re.compile(r"^[0-9a-f]{32}$")
_KINDS = frozenset(k.value for k in ChunkKind)


class BadRequest(ValueError):
    """A request parameter is invalid; the message names the field, never echoes it."""


class IdentityInRequest(ValueError):
    """The request names groups, readers or an identity of its own (answered 403)."""


class QueryRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: StrictInt = Field(5, ge=1, le=50)
    key_prefix: str | None = Field(None, max_length=MAX_KEY_PREFIX_CHARS)
    lang: tuple[str, ...] = Field((), max_length=MAX_FILTER_VALUES)
    kind: tuple[str, ...] = Field((), max_length=MAX_FILTER_VALUES)
    doc_id: tuple[str, ...] = Field((), max_length=MAX_DOC_IDS)
    #: The Retrieve filter as decoded JSON; its grammar is checked when it is
    #: translated (`metadata_clause`), where the deployment's readers key is known.
    filter: dict[str, Any] | None = None

    @field_validator("filter")
    @classmethod
    def _filter_size(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is not None and len(json.dumps(v, ensure_ascii=False)) > MAX_FILTER_CHARS:
            raise ValueError(f"at most {MAX_FILTER_CHARS} characters as JSON")
        return v
    rerank: StrictBool | None = None
    collapse: StrictBool = True

    @field_validator("query")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        if len(_TERM.findall(v)) > MAX_QUERY_TERMS:
            raise ValueError(f"at most {MAX_QUERY_TERMS} terms")
        return v

    @field_validator("lang")
    @classmethod
    def _langs(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if any(not _LANG.match(x) for x in v):
            raise ValueError("each value must be a 2-3 letter lowercase language code")
        return v

    @field_validator("kind")
    @classmethod
    def _kinds(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if any(x not in _KINDS for x in v):
            raise ValueError(f"each value must be one of {', '.join(sorted(_KINDS))}")
        return v

    @field_validator("doc_id")
    @classmethod
    def _doc_ids(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if any(not _DOC_ID.match(x) for x in v):
            raise ValueError("each value must be a 32-digit lowercase hex document id")
        return v


def _validated(data: dict[str, Any]) -> QueryRequest:
    """QueryRequest, or BadRequest naming each bad field (pydantic's own text would
    repeat the input, which may be a megabyte)."""
    try:
        return QueryRequest.model_validate(data)
    except ValidationError as exc:
        parts = [
            f"{'.'.join(str(x) for x in e['loc'][:1]) or 'body'}: {e['msg']}"
            for e in exc.errors(include_input=False, include_url=False)
        ]
        raise BadRequest("; ".join(parts)) from None


def _k_param(raw: object) -> object:
    """``k`` from a query string: digits only (``true`` or ``1.5`` is not a count)."""
    if raw is None:
        return 5
    text = str(raw)
    if not text.isascii() or not text.isdigit() or len(text) > 3:
        raise BadRequest("k: must be an integer from 1 to 50")
    return int(text)


def _flag(name: str, raw: object) -> bool | None:
    """A true/false query-string flag (absent: None)."""
    if raw is None:
        return None
    text = str(raw).lower()
    if text not in ("true", "false", "1", "0"):
        raise BadRequest(f"{name}: must be true or false")
    return text in ("true", "1")



def _filter_param(raw: object) -> object:
    """``filter`` from a query string: URL-decoded JSON (API Gateway and Function URLs
    decode the query string)."""
    if raw is None:
        return None
    text = str(raw)
    if len(text) > MAX_FILTER_CHARS:
        raise BadRequest(f"filter: at most {MAX_FILTER_CHARS} characters as JSON")
    try:
        return json.loads(text)
    except ValueError:
        raise BadRequest("filter: must be JSON (a Retrieve filter object)") from None


def refuse_identity_params(names: Iterable[str], reserved: Iterable[str] = ()) -> None:
    """IdentityInRequest if a parameter name claims an identity or groups."""
    refused = IDENTITY_PARAMS | {r.lower() for r in reserved}
    named = sorted({str(n) for n in names if str(n).lower() in refused})
    if named:
        raise IdentityInRequest(
            f"{named[0]}: the caller's identity and groups come from its token only"
        )


def _body(event: dict[str, Any]) -> dict[str, Any]:
    raw = event.get("body") or "{}"
    try:
        if event.get("isBase64Encoded"):
            raw = base64.b64decode(raw).decode("utf-8")
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("body: must be a UTF-8 JSON object") from None
    if not isinstance(data, dict):
        raise BadRequest("body: must be a JSON object")
    return data


def parse_request(event: dict[str, Any], *, reserved: Iterable[str] = ()) -> QueryRequest:
    """The request of a Function URL or HTTP API event (payload format 2.0); BadRequest
    if invalid, IdentityInRequest if it names an identity (``reserved``: names refused
    besides `IDENTITY_PARAMS`, e.g. the configured groups claim)."""
    method = str(event.get("requestContext", {}).get("http", {}).get("method", "GET")).upper()
    if method == "POST":
        data = _body(event)
        refuse_identity_params(data, reserved)
        return _validated(data)
    qs = event.get("queryStringParameters") or {}
    refuse_identity_params(qs, reserved)

    def listed(name: str) -> tuple[str, ...]:
        v = qs.get(name)
        return tuple(x for x in str(v).split(",") if x) if v else ()

    return _validated(
        {
            "query": str(qs.get("q", qs.get("query", ""))),
            "k": _k_param(qs.get("k")),
            "key_prefix": qs.get("key_prefix"),
            "lang": listed("lang"),
            "kind": listed("kind"),
            "doc_id": listed("doc_id"),
            "filter": _filter_param(qs.get("filter")),
            "rerank": _flag("rerank", qs.get("rerank")),
            "collapse": _flag("collapse", qs.get("collapse")) is not False,
        }
    )


def metadata_clause(
    req: QueryRequest, *, readers_key: str = DEFAULT_READERS_KEY, source_bucket: str | None = None
) -> dict[str, Any] | None:
    """The request's metadata filter as a query clause (None without one); FilterError
    (with the JSON path of the bad node) if it is outside the grammar."""
    if req.filter is None:
        return None
    return translate(req.filter, readers_key=readers_key, source_bucket=source_bucket)


def filters(req: QueryRequest, metadata_filter: dict[str, Any] | None = None) -> SearchFilters:
    return SearchFilters(
        doc_ids=req.doc_id,
        key_prefix=req.key_prefix,
        langs=req.lang,
        kinds=req.kind,
        metadata_filter=metadata_filter,
    )
