"""Read a Bedrock-format sidecar ``<key>.metadata.json``, and merge it with S3's tags and
user metadata (pure: bytes and mappings in, `DocumentMetadata` out).

The format is Amazon Bedrock Knowledge Bases' (user guide, "Include metadata in a data
source"; API reference, MetadataAttributeValue)::

    {"metadataAttributes": {
        "department": "legal",                                  # STRING
        "year": 2024,                                           # NUMBER
        "draft": false,                                         # BOOLEAN
        "tags": ["contract", "de"],                             # STRING_LIST
        "owner": {"value": {"type": "STRING", "stringValue": "ops"},
                  "includeForEmbedding": true},                 # the typed form
        "chunkwise_readers": ["legal-team", "auditors"]}}       # the readers (reserved key)

Bounds (each refusal a `MetadataError` naming the field): at most 10 KB, 50 attributes,
keys `model.KEY_RE`, strings 1-2,048 characters, lists 1-10 strings, numbers finite, no
nested objects, no ``null``. Refused outright: keys starting ``x-amz-bedrock-kb-``
(Bedrock's own attributes, which it sets itself and a sidecar cannot) and keys starting
``chunkwise_``, except the readers key. Keys named like chunkwise's own chunk fields
(``lang``, ``kind``...) are ordinary keys: metadata lives under ``meta.*``. Other
top-level fields (Bedrock's ``documentStructureConfiguration`` for CSV files) are
accepted and ignored, with a note.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from chunkwise.metadata.model import (
    DEFAULT_READERS_KEY,
    KEY_RE,
    MAX_ATTRIBUTES,
    MAX_LIST_ITEMS,
    MAX_READERS,
    MAX_SIDECAR_BYTES,
    AttributeType,
    AttributeValue,
    DocumentMetadata,
    MetadataError,
    Value,
    check_readers_key,
    group_refusal,
    key_refusal,
    number_value,
    string_refusal,
)

SIDECAR_SUFFIX = ".metadata.json"
ATTRIBUTES = "metadataAttributes"
_WHOLE = "sidecar"
#: The member of a typed value that holds each type's value: (JSON name, field name).
_VALUE_MEMBERS = {
    AttributeType.STRING: ("stringValue", "string"),
    AttributeType.NUMBER: ("numberValue", "number"),
    AttributeType.BOOLEAN: ("booleanValue", "boolean"),
    AttributeType.STRING_LIST: ("stringListValue", "string_list"),
}


def is_sidecar_key(key: str) -> bool:
    """True for the key of a sidecar, which is never indexed as a document itself."""
    return key.endswith(SIDECAR_SUFFIX) and len(key) > len(SIDECAR_SUFFIX)


def sidecar_key(document_key: str) -> str:
    return document_key + SIDECAR_SUFFIX


class _TypedValue(BaseModel):
    """Bedrock's MetadataAttributeValue: a type and the one member that holds its value."""

    model_config = ConfigDict(extra="forbid", strict=True)

    type: Literal["STRING", "NUMBER", "BOOLEAN", "STRING_LIST"]
    string: str | None = Field(None, alias="stringValue")
    number: float | None = Field(None, alias="numberValue")
    boolean: bool | None = Field(None, alias="booleanValue")
    string_list: list[str] | None = Field(None, alias="stringListValue")


class _TypedAttribute(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    value: _TypedValue
    include_for_embedding: StrictBool = Field(False, alias="includeForEmbedding")


def parse_sidecar(data: bytes, *, readers_key: str = DEFAULT_READERS_KEY) -> DocumentMetadata:
    """The metadata a sidecar's bytes declare; `MetadataError` naming the field if any
    part of it is outside the format or its bounds (the whole sidecar is then refused:
    indexing half of a document's metadata, or its readers without the rest, would be
    a silent drop)."""
    check_readers_key(readers_key)
    document = _json_object(data)
    ignored = sorted(name for name in document if name != ATTRIBUTES)
    notes = tuple(f"{name}: ignored (not used by chunkwise)" for name in ignored)
    if ATTRIBUTES not in document:
        raise MetadataError(ATTRIBUTES, "required (the object that holds the attributes)")
    raw = document[ATTRIBUTES]
    if not isinstance(raw, dict):
        raise MetadataError(ATTRIBUTES, "must be an object of key: value")
    if len(raw) > MAX_ATTRIBUTES:
        raise MetadataError(ATTRIBUTES, f"at most {MAX_ATTRIBUTES} attributes")
    attributes: dict[str, AttributeValue] = {}
    readers: tuple[str, ...] | None = None
    for key, value in raw.items():
        where = f"{ATTRIBUTES}.{shown_key(key)}"
        reason = key_refusal(key, readers_key)
        if reason:
            raise MetadataError(where, f"key refused: {reason}")
        attribute = _attribute(where, value, readers=key == readers_key)
        if key == readers_key:
            readers = _readers(where, attribute)
        else:
            attributes[key] = attribute
    return DocumentMetadata(attributes=attributes, readers=readers, notes=notes)


def shown_key(key: str) -> str:
    """A key as an error message may show it: as it is if it is a legal name, else
    quoted and cut (it may be long, or hold control characters)."""
    if KEY_RE.match(key):
        return key
    return repr(key[:40]) + ("..." if len(key) > 40 else "")


def _json_object(data: bytes) -> dict[str, Any]:
    if len(data) > MAX_SIDECAR_BYTES:
        raise MetadataError(_WHOLE, f"larger than {MAX_SIDECAR_BYTES} bytes (Bedrock's limit)")
    try:
        text = data.decode("utf-8-sig")
        document = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except UnicodeDecodeError:
        raise MetadataError(_WHOLE, "not UTF-8") from None
    except (ValueError, RecursionError) as err:
        raise MetadataError(_WHOLE, f"not valid JSON ({_json_reason(err)})") from None
    if not isinstance(document, dict):
        raise MetadataError(_WHOLE, "must be a JSON object")
    return document


def _json_reason(err: Exception) -> str:
    if isinstance(err, json.JSONDecodeError):
        return f"{err.msg} at line {err.lineno} column {err.colno}"
    return str(err) or type(err).__name__


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            # JSON leaves duplicates undefined and Python keeps the last one silently:
            # which of two readers lists would win is not a question to leave open.
            raise ValueError("a key appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _attribute(where: str, value: Any, *, readers: bool = False) -> AttributeValue:
    if isinstance(value, dict):
        return _typed(where, value, readers=readers)
    return AttributeValue(*_plain(where, value, readers=readers))


def _plain(where: str, value: Any, *, readers: bool) -> tuple[AttributeType, Value]:
    if value is None:
        raise MetadataError(where, "null is not a value (leave the attribute out)")
    if isinstance(value, bool):
        return AttributeType.BOOLEAN, value
    if isinstance(value, int | float):
        number = number_value(value)
        if number is None:
            raise MetadataError(where, "a NUMBER must be a finite double")
        return AttributeType.NUMBER, number
    if isinstance(value, str):
        _check_string(where, value)
        return AttributeType.STRING, value
    if isinstance(value, list):
        return AttributeType.STRING_LIST, _string_list(where, value, readers=readers)
    raise MetadataError(where, "unsupported value")  # pragma: no cover - JSON has no other


def _typed(where: str, value: dict[str, Any], *, readers: bool) -> AttributeValue:
    if "value" not in value:
        raise MetadataError(where, "nested objects are not supported (or typed form lacks 'value')")
    try:
        typed = _TypedAttribute.model_validate(value)
    except ValidationError as err:
        first = err.errors()[0]
        path = ".".join(str(p) for p in first["loc"])
        raise MetadataError(f"{where}.{path}" if path else where, first["msg"]) from None
    kind = AttributeType(typed.value.type)
    member, name = _VALUE_MEMBERS[kind]
    given = [n for _, n in _VALUE_MEMBERS.values() if getattr(typed.value, n) is not None]
    if given != [name]:
        raise MetadataError(f"{where}.value", f"type {kind.value} takes exactly one {member}")
    raw = getattr(typed.value, name)
    parsed: Value
    if kind is AttributeType.STRING_LIST:
        parsed = _string_list(f"{where}.value.{member}", raw, readers=readers)
    else:
        parsed = _plain(f"{where}.value.{member}", raw, readers=readers)[1]
    return AttributeValue(kind, parsed, typed.include_for_embedding)


def _string_list(where: str, value: list[Any], *, readers: bool) -> tuple[str, ...]:
    limit = MAX_READERS if readers else MAX_LIST_ITEMS
    if not value and not readers:
        raise MetadataError(where, "a STRING_LIST has 1 to 10 members")
    if len(value) > limit:
        raise MetadataError(where, f"at most {limit} members")
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise MetadataError(f"{where}[{i}]", "a list may hold strings only")
        if readers:
            reason = group_refusal(item)
            if reason:
                raise MetadataError(f"{where}[{i}]", reason)
        else:
            _check_string(f"{where}[{i}]", item)
    return tuple(value)


def _check_string(where: str, value: str) -> None:
    reason = string_refusal(value)
    if reason:
        raise MetadataError(where, reason)


def _readers(where: str, attribute: AttributeValue) -> tuple[str, ...]:
    if attribute.type is not AttributeType.STRING_LIST:
        raise MetadataError(where, "the readers are a list of group names (STRING_LIST)")
    assert isinstance(attribute.value, tuple)
    # Order and repeats carry no meaning; one form keeps the version stable.
    return tuple(sorted(set(attribute.value)))


# --------------------------------------------------------------------------- sources


def merge_sources(
    sidecar: DocumentMetadata | None,
    tags: Mapping[str, str] | None = None,
    user_metadata: Mapping[str, str] | None = None,
    *,
    readers_key: str = DEFAULT_READERS_KEY,
) -> DocumentMetadata:
    """One document's metadata from its three possible sources, key by key.

    Precedence: the sidecar wins over S3 object tags, tags win over user metadata
    (``x-amz-meta-*``; pass the keys as boto3 returns them, without the prefix). Tags and
    user metadata are STRING values under the same key rules as the sidecar's. Readers
    come from the sidecar only: a tag or user metadata entry under the readers key is
    refused, because whoever may tag an object (``s3:PutObjectTagging``) or upload it is
    not thereby someone who may decide who reads it. Tags whose key starts ``aws:`` are
    AWS's own and are skipped with a note; so are empty values (S3 allows them, a STRING
    cannot be empty)."""
    check_readers_key(readers_key)
    base = sidecar or DocumentMetadata()
    merged: dict[str, AttributeValue] = {}
    notes = list(base.notes)
    for label, source in (("user-metadata", user_metadata or {}), ("tag", tags or {})):
        for raw_key, value in sorted(source.items()):
            key = _source_key(label, raw_key)
            added = _source_value(label, key, value, readers_key, notes)
            if added is None:
                continue
            if key in merged:
                notes.append(f"{label}:{key}: overrides user-metadata:{key}")
            merged[key] = added
    for key in sorted(set(merged) & set(base.attributes)):
        notes.append(f"{ATTRIBUTES}.{key}: overrides the tag/user metadata of the same key")
    merged.update(base.attributes)
    if len(merged) > MAX_ATTRIBUTES:
        raise MetadataError("metadata", f"at most {MAX_ATTRIBUTES} attributes from all sources")
    return DocumentMetadata(attributes=merged, readers=base.readers, notes=tuple(notes))


def _source_key(label: str, raw_key: str) -> str:
    if label == "user-metadata" and raw_key.lower().startswith("x-amz-meta-"):
        return raw_key[len("x-amz-meta-") :]
    return raw_key


def _source_value(
    label: str, key: str, value: str, readers_key: str, notes: list[str]
) -> AttributeValue | None:
    where = f"{label}:{shown_key(key)}"
    if label == "tag" and key.startswith("aws:"):
        notes.append(f"{where}: skipped (an AWS-reserved tag)")
        return None
    if key == readers_key:
        raise MetadataError(where, "readers come from the sidecar only")
    reason = key_refusal(key, readers_key)
    if reason:
        raise MetadataError(where, f"key refused: {reason}")
    if not isinstance(value, str):
        raise MetadataError(where, "must be a string")
    if value == "":
        notes.append(f"{where}: skipped (empty value)")
        return None
    _check_string(where, value)
    return AttributeValue(AttributeType.STRING, value)
