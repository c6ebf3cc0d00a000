"""Sidecars in the ingest path: a document's revision state, and its metadata.

A document ``K`` may have a sidecar ``K.metadata.json`` (Bedrock's format,
`chunkwise.metadata.sidecar`). The sidecar is never a document itself: an event for it
is a change of ``K`` (`document_key`), a listing folds it into ``K``'s entry
(`fold_sidecars`), and a sidecar whose document does not exist is nothing to index.

What S3 holds for ``K`` is a pair, its revision state (`current_state`): the object's
current version and the current version of its sidecar (`ObjectVersion.with_sidecar`),
each asked with its own HEAD. `read_metadata` reads exactly the sidecar version the
state names and merges it with the object's user metadata (``x-amz-meta-*``; the
sidecar wins, readers come from the sidecar only: `merge_sources`).

Pure over the `ObjectStore` port.
"""

from __future__ import annotations

from collections.abc import Iterable

from chunkwise.index.versions import ObjectVersion
from chunkwise.ingest.ports import ObjectStore
from chunkwise.metadata.model import (
    DEFAULT_READERS_KEY,
    MAX_SIDECAR_BYTES,
    DocumentMetadata,
    MetadataError,
)
from chunkwise.metadata.sidecar import (
    SIDECAR_SUFFIX,
    is_sidecar_key,
    merge_sources,
    parse_sidecar,
    sidecar_key,
)


def document_key(key: str) -> str | None:
    """The document a change of ``key`` is about: ``key`` itself, or for a sidecar its
    document's key; None for the sidecar of a sidecar (never a document)."""
    if not is_sidecar_key(key):
        return key
    document = key[: -len(SIDECAR_SUFFIX)]
    return None if is_sidecar_key(document) else document


def current_state(store: ObjectStore, key: str) -> ObjectVersion | None:
    """S3's current revision state of document ``key`` (None: the document is gone,
    whatever its sidecar says). The sidecar is asked after the object, and both after
    whatever the caller read before (the revision protocol's ordering holds for each)."""
    version = store.head_current(key)
    if version is None:
        return None
    return version.with_sidecar(store.head_current(sidecar_key(key)))


def fold_sidecars(versions: Iterable[ObjectVersion]) -> list[ObjectVersion]:
    """A listing's documents, each with its sidecar as its metadata (`current_state`,
    from one listing instead of two HEADs per key); sidecars without their document are
    left out, and so are sidecars of sidecars."""
    documents: dict[str, ObjectVersion] = {}
    sidecars: dict[str, ObjectVersion] = {}
    for v in versions:
        if not is_sidecar_key(v.key):
            documents[v.key] = v
        else:
            document = document_key(v.key)
            if document is not None:
                sidecars[document] = v
    return [v.with_sidecar(sidecars.get(key)) for key, v in sorted(documents.items())]


def read_metadata(
    store: ObjectStore, version: ObjectVersion, *, readers_key: str = DEFAULT_READERS_KEY
) -> DocumentMetadata:
    """The metadata of the revision state ``version``: its sidecar version (if any) and
    the object's user metadata; `MetadataError` naming the field if either is refused."""
    sidecar = None
    if version.metadata_version:
        if version.sidecar_size > MAX_SIDECAR_BYTES:  # refused before it is read
            raise MetadataError(
                "sidecar", f"larger than {MAX_SIDECAR_BYTES} bytes (Bedrock's limit)"
            )
        data = store.get_version(sidecar_key(version.key), version.sidecar_version_id or "null")
        sidecar = parse_sidecar(data, readers_key=readers_key)
    return merge_sources(
        sidecar, user_metadata=dict(version.user_metadata), readers_key=readers_key
    )
