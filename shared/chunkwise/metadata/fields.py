"""How metadata is laid out in the index: typed sub-objects, the readers field (pure).

Every chunk of a revision carries its document's metadata. Each value type has its own
sub-object, so a key has one explicit type per generation whatever the first document
to use it happened to hold (a ``year`` that is a NUMBER in one sidecar and a STRING in
another lands in ``meta.n.year`` and ``meta.s.year``, never in a mapping conflict)::

    meta.s.<key>   keyword   STRING
    meta.n.<key>   double    NUMBER
    meta.b.<key>   boolean   BOOLEAN
    meta.l.<key>   keyword   STRING_LIST (multi-valued)
    meta.d.<key>   date      a STRING that is a strict ISO-8601 date or date-time
                             (`chunkwise.metadata.dates`), also in meta.s
    readers        keyword   the document's readers; `NO_READERS` if it has none
    metadata_version keyword the metadata half of the document's revision state (the
                             sidecar's S3 version, `chunkwise.index.versions`), on chunks
                             and head records alike; written by the index documents

The five sub-objects map new keys only through the dynamic templates below
(``dynamic: strict_allow_templates``, OpenSearch 2.16 and later): a key under ``meta.s``
becomes a keyword and nothing else, a value of another shape is refused with its
document. Nothing else in the mapping is dynamic.

A metadata change must *replace* ``meta`` (a script assignment ``ctx._source.meta =
params.meta``, or the whole chunk), never merge it with a partial-document update:
a merge would keep keys the new sidecar no longer has.
"""

from __future__ import annotations

from typing import Any

from chunkwise.metadata.dates import canonical_date
from chunkwise.metadata.model import (
    MAX_GROUP_CHARS,
    MAX_STRING_CHARS,
    AttributeType,
    DocumentMetadata,
)

META_FIELD = "meta"
READERS_FIELD = "readers"
VERSION_FIELD = "metadata_version"
STRING_PATH = "s"
NUMBER_PATH = "n"
BOOLEAN_PATH = "b"
LIST_PATH = "l"
DATE_PATH = "d"
#: The readers value of a document that names none. It holds a control character,
#: which no group name may (`model.group_refusal`), so no caller's group can be it:
#: deny-by-default is a term query away (``{"term": {"readers": NO_READERS}}`` finds
#: the documents only the admin group reads) and can never be granted by a group.
NO_READERS = "\x00none"
DATE_FORMAT = "strict_date_optional_time||epoch_millis"

_SUB_OBJECTS: dict[str, dict[str, Any]] = {
    STRING_PATH: {"type": "keyword", "ignore_above": MAX_STRING_CHARS},
    NUMBER_PATH: {"type": "double"},
    BOOLEAN_PATH: {"type": "boolean"},
    LIST_PATH: {"type": "keyword", "ignore_above": MAX_STRING_CHARS},
    DATE_PATH: {"type": "date", "format": DATE_FORMAT},
}
_BY_TYPE = {
    AttributeType.STRING: STRING_PATH,
    AttributeType.NUMBER: NUMBER_PATH,
    AttributeType.BOOLEAN: BOOLEAN_PATH,
    AttributeType.STRING_LIST: LIST_PATH,
}


def field_path(sub: str, key: str) -> str:
    """The index path of one attribute, e.g. ``field_path("n", "year") == "meta.n.year"``."""
    return f"{META_FIELD}.{sub}.{key}"


def metadata_dynamic_templates() -> list[dict[str, Any]]:
    """The dynamic templates of the metadata sub-objects, to be appended to the
    generation's (and the index template's) root ``dynamic_templates``. No
    ``match_mapping_type``: the template's type is applied whatever the JSON value
    looks like (so date detection never turns a STRING into a date)."""
    return [
        {
            f"chunkwise_meta_{sub}": {
                "path_match": f"{META_FIELD}.{sub}.*",
                "mapping": dict(mapping),
            }
        }
        for sub, mapping in _SUB_OBJECTS.items()
    ]


def metadata_properties() -> dict[str, Any]:
    """The top-level properties metadata adds to a generation's mapping."""
    subs = {
        sub: {"type": "object", "dynamic": "strict_allow_templates", "properties": {}}
        for sub in _SUB_OBJECTS
    }
    return {
        META_FIELD: {"type": "object", "dynamic": "strict", "properties": subs},
        READERS_FIELD: {"type": "keyword", "ignore_above": MAX_GROUP_CHARS},
        VERSION_FIELD: {"type": "keyword"},
    }


def metadata_mapping() -> dict[str, Any]:
    """The mapping fragment: ``{"dynamic_templates": [...], "properties": {...}}``."""
    return {
        "dynamic_templates": metadata_dynamic_templates(),
        "properties": metadata_properties(),
    }


def document_fields(metadata: DocumentMetadata) -> dict[str, Any]:
    """What goes into every chunk's ``_source`` for this metadata (``meta`` and
    ``readers``; the revision state's ``metadata_version`` is the index documents' to
    write). All five sub-objects are always present, so replacing ``meta`` always
    removes what is gone."""
    meta: dict[str, dict[str, Any]] = {sub: {} for sub in _SUB_OBJECTS}
    for key, attribute in metadata.attributes.items():
        value = attribute.value
        meta[_BY_TYPE[attribute.type]][key] = list(value) if isinstance(value, tuple) else value
        if attribute.type is AttributeType.STRING and isinstance(value, str):
            date = canonical_date(value)
            if date is not None:
                meta[DATE_PATH][key] = date
    readers = list(metadata.readers) if metadata.readers else [NO_READERS]
    return {META_FIELD: meta, READERS_FIELD: readers}
