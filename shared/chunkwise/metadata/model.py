"""Per-document metadata: typed values, their bounds, and the names chunkwise reserves (pure).

samdocs/metadata-and-access.md. A document's metadata is what its Bedrock-format sidecar
``<key>.metadata.json`` says (optionally plus S3 object tags and user metadata,
`chunkwise.metadata.sidecar.merge_sources`): attributes typed STRING, NUMBER, BOOLEAN
or STRING_LIST, and the document's readers (group names, access control).

Everything here is a value or a check; nothing reads S3 or writes the index.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from chunkwise.errors import PermanentError

# Bedrock Knowledge Bases' own limits on a sidecar (metadata file at most 10 KB; at most
# 50 attributes; string values 1..2,048 characters; string lists 1..10 members), so a
# sidecar Bedrock accepts is one chunkwise accepts, bar the key rules below.
MAX_SIDECAR_BYTES = 10 * 1024
MAX_ATTRIBUTES = 50
MAX_STRING_CHARS = 2048
MAX_LIST_ITEMS = 10
#: A document's readers may name more groups than a STRING_LIST attribute has values.
MAX_READERS = 100
MAX_GROUP_CHARS = 256
#: Attribute names. No dots: a key becomes part of an object path in the index
#: (``meta.s.<key>``), and a dot there would make a nested object out of it.
KEY_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$")
#: The key of the sidecar attribute that holds the document's readers (configurable).
DEFAULT_READERS_KEY = "chunkwise_readers"
#: Names Bedrock itself gives to attributes (``x-amz-bedrock-kb-source-uri``, ...).
BEDROCK_PREFIX = "x-amz-bedrock-kb-"
CHUNKWISE_PREFIX = "chunkwise_"


class MetadataError(PermanentError):
    """A sidecar (or tag, or user metadata entry) that can never be indexed as it is.

    ``field`` names what is wrong (``metadataAttributes.year``, ``tag:owner``, ...), so the
    log line tells the author what to fix; the value itself is never repeated."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class AttributeType(StrEnum):
    STRING = "STRING"
    NUMBER = "NUMBER"
    BOOLEAN = "BOOLEAN"
    STRING_LIST = "STRING_LIST"


Value = str | float | bool | tuple[str, ...]


@dataclass(frozen=True)
class AttributeValue:
    """One typed attribute. NUMBER values are floats (Bedrock's numbers are doubles)."""

    type: AttributeType
    value: Value
    include_for_embedding: bool = False

    def canonical(self) -> list[object]:
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return [self.type.value, value, self.include_for_embedding]


@dataclass(frozen=True)
class DocumentMetadata:
    """A document's metadata: typed attributes, its readers, and a version for change
    detection (the hash of the canonical content, so reformatting a sidecar is no change).

    ``readers`` is None when no source named any (the document is then readable by the
    admin group only, in access mode ``groups``); ``()`` when the sidecar lists none
    explicitly, which means the same. ``notes`` say what was read but not used (an
    ignored top-level field, an overridden tag), for the ingest log."""

    attributes: Mapping[str, AttributeValue] = field(default_factory=dict)
    readers: tuple[str, ...] | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        frozen = MappingProxyType(dict(sorted(self.attributes.items())))
        object.__setattr__(self, "attributes", frozen)

    @property
    def version(self) -> str:
        canonical = {
            "attributes": {k: v.canonical() for k, v in self.attributes.items()},
            "readers": list(self.readers) if self.readers is not None else None,
        }
        raw = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


# --------------------------------------------------------------------------- checks


def key_refusal(key: str, readers_key: str = DEFAULT_READERS_KEY) -> str | None:
    """Why ``key`` cannot name an attribute (None: it can): not a legal name, Bedrock's
    own ``x-amz-bedrock-kb-*``, or chunkwise's ``chunkwise_*``. The readers key is
    allowed here; the caller decides where it may appear."""
    if not KEY_RE.match(key):
        return "a key is 1-100 characters of A-Z, a-z, 0-9, '_' and '-', not starting with '-'"
    if key.startswith(BEDROCK_PREFIX):
        return f"keys starting with {BEDROCK_PREFIX!r} are Bedrock's own and cannot be set"
    if key == readers_key:
        return None
    if key.startswith(CHUNKWISE_PREFIX):
        return f"keys starting with {CHUNKWISE_PREFIX!r} are reserved for chunkwise"
    # Keys named like chunkwise's own chunk fields (``lang``, ``kind``, ``state``...) are
    # fine: a metadata key only ever becomes a path under ``meta.<type>.``, never a
    # top-level field, so it cannot shadow one (and Bedrock sidecars use such names).
    return None


def check_readers_key(readers_key: str) -> None:
    """A configured readers key must itself be a legal attribute name."""
    reason = key_refusal(readers_key, readers_key)
    if reason:
        raise MetadataError("readers_key", reason)


def string_refusal(value: str) -> str | None:
    """Why ``value`` cannot be a STRING (member); None if it can."""
    if not value:
        return "an empty string is not a value (leave the attribute out)"
    if len(value) > MAX_STRING_CHARS:
        return f"longer than {MAX_STRING_CHARS} characters"
    if not _encodable(value):
        return "not valid Unicode (a lone surrogate)"
    return None


def group_refusal(name: str) -> str | None:
    """Why ``name`` cannot be a group name (in a document's readers or an identity's
    groups); None if it can. Control characters are refused, which is what keeps every
    group name apart from the index's no-readers marker (`fields.NO_READERS`)."""
    if not name or len(name) > MAX_GROUP_CHARS:
        return f"a group name is 1-{MAX_GROUP_CHARS} characters"
    if any(unicodedata.category(ch) == "Cc" for ch in name):
        return "a group name must not contain control characters"
    if not _encodable(name):
        return "not valid Unicode (a lone surrogate)"
    return None


def number_value(raw: int | float) -> float | None:
    """A JSON number as the double it is indexed as; None if it has none (too large,
    infinite, NaN). -0.0 becomes 0.0: the index tells the two apart, a reader does not."""
    try:
        value = float(raw)
    except OverflowError:
        return None
    if not math.isfinite(value):
        return None
    return value + 0.0


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
