"""Per-document metadata: the Bedrock-format sidecar, its index layout and the Retrieve
filter grammar (pure; no I/O). samdocs/metadata-and-access.md."""

from chunkwise.metadata.fields import (
    NO_READERS,
    READERS_FIELD,
    document_fields,
    metadata_mapping,
)
from chunkwise.metadata.filter_query import filter_clause, translate
from chunkwise.metadata.filters import FilterError, RetrievalFilter, parse_filter
from chunkwise.metadata.model import (
    DEFAULT_READERS_KEY,
    AttributeType,
    AttributeValue,
    DocumentMetadata,
    MetadataError,
)
from chunkwise.metadata.sidecar import is_sidecar_key, merge_sources, parse_sidecar, sidecar_key

__all__ = [
    "DEFAULT_READERS_KEY",
    "NO_READERS",
    "READERS_FIELD",
    "AttributeType",
    "AttributeValue",
    "DocumentMetadata",
    "FilterError",
    "MetadataError",
    "RetrievalFilter",
    "document_fields",
    "filter_clause",
    "is_sidecar_key",
    "merge_sources",
    "metadata_mapping",
    "parse_filter",
    "parse_sidecar",
    "sidecar_key",
    "translate",
]
