"""Per-document metadata: the Bedrock-format sidecar and its index layout (pure; no I/O).
samdocs/metadata-and-access.md."""

from chunkwise.metadata.fields import (
    NO_READERS,
    READERS_FIELD,
    document_fields,
    metadata_mapping,
)
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
    "MetadataError",
    "document_fields",
    "is_sidecar_key",
    "merge_sources",
    "metadata_mapping",
    "parse_sidecar",
    "sidecar_key",
]
