"""The generation mapping and the index template: which fields a chunk has and how
they are analysed (pure; `chunkwise.adapters.opensearch.generations` sends them).

Index-only fields beside the Chunk contract: the language-analysed texts, the
nested table rows, the embedding, the state and its timestamps, the head records'
fields, the document's metadata (`chunkwise.metadata.fields.metadata_mapping`: typed
``meta.*`` sub-objects filled through dynamic templates, ``readers``,
``metadata_version``). A live generation of an older release gets the fields it lacks
(`missing_properties`, `keyword_bound_changes`) and the metadata's dynamic templates
(`dynamic_templates_change`); nothing else of a mapping changes.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from chunkwise.errors import ConfigError
from chunkwise.index.names import IndexNames
from chunkwise.metadata.fields import metadata_mapping
from chunkwise.schema import CHUNK_SCHEMA_VERSION

#: Languages with their own analysed BM25 field; anything else is "unknown".
LANG_FIELDS: Mapping[str, str] = {"en": "text_en", "de": "text_de"}
LANG_ANALYZERS: Mapping[str, str] = {"en": "english", "de": "german"}
TEXT_FIELD = "text"  # standard analyzer, always filled (language-neutral fallback)
#: Index-only nested field: one object per table row of the chunk, each row's cells
#: named by their column (`chunkwise.chunking.rows`), analysed like the chunk's text
#: (``rows.text`` plus ``rows.text_<lang>``). BM25 adds the best row's score.
ROWS_FIELD = "rows"
# Bumped whenever the generation mapping gains a field. The deploy-time index
# setup (the admin function's custom resource in template.yaml, property
# MappingRevision) re-runs when it changes and adds the new fields to the live
# generation (OpenSearchIndex.add_missing_fields). 2: the nested `rows` field.
# 3: `sized_by_model` / `sized_by_tokenizer` (chunk schema 2).
# 4: `ignore_above` on the keyword fields that carry values from outside.
# 5: `cleanup` of the per-document head records (chunkwise.index.heads).
# 6: document metadata (`meta.*` with its dynamic templates, `readers`,
#    `metadata_version`; chunkwise.metadata.fields).
MAPPING_REVISION = 6
#: Longest value (characters) of an outside-supplied keyword field that is indexed.
#: Lucene rejects a term over 32,766 UTF-8 bytes and with it the whole document; a
#: longer value stays in _source, only unsearchable as a term.
KEYWORD_IGNORE_ABOVE = 2048

#: The reason a revision can never be indexed (heads and failure markers).
FAILURE_REASON_FIELD = "failure_reason"


def missing_properties(current: Mapping[str, Any], wanted: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level mapping properties that ``wanted`` has and ``current`` lacks.

    An index created by an older release keeps its (strict) mapping; fields
    that a newer release writes (e.g. ``rows``) must be added to it before the
    first write, or every chunk carrying them is rejected. OpenSearch accepts
    new fields on a live index, never changes to existing ones, so only the
    missing ones are returned.
    """
    return {name: spec for name, spec in wanted.items() if name not in current}


def keyword_bound_changes(current: Mapping[str, Any], wanted: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword fields of ``current`` whose ``ignore_above`` differs from ``wanted``: the
    one change to an existing field that OpenSearch accepts in place."""
    return {
        name: spec
        for name, spec in wanted.items()
        if spec.get("type") == "keyword"
        and isinstance(current.get(name), Mapping)
        and current[name].get("type") == "keyword"
        and current[name].get("ignore_above") != spec.get("ignore_above")
        and "ignore_above" in spec
    }


def dynamic_templates_change(
    current: Sequence[Mapping[str, Any]], wanted: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]] | None:
    """The dynamic templates to put on a live generation, or None if it has them all.

    A put-mapping request replaces the whole list, so the answer is ``wanted`` followed
    by any template of ``current`` that ``wanted`` does not name (none of chunkwise's
    generations has others, but an operator may have added one)."""
    names = {name for t in wanted for name in t}
    missing = [t for t in wanted if t not in current]
    if not missing:
        return None
    kept = [dict(t) for t in current if not names & set(t)]
    return [dict(t) for t in wanted] + kept


def index_body(
    dimension: int,
    *,
    embedder_name: str = "",
    tokenizer_id: str = "",
    generation: str = "",
    shards: int = 1,
    replicas: int = 0,
    ef_construction: int = 128,
    m: int = 16,
    chunker_config: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Settings + mapping of one generation. Mapping is strict: unknown fields fail."""
    if dimension < 1 or dimension > 16000:
        raise ConfigError(f"dimension: must be in 1..16000, got {dimension}")
    return {
        "settings": {"index": _index_settings(shards, replicas)},
        "mappings": {
            "dynamic": "strict",
            # Only the metadata sub-objects map new keys, each to its one type.
            "dynamic_templates": metadata_mapping()["dynamic_templates"],
            "_meta": {
                "generation": generation,
                "embedder": embedder_name,
                "dimension": dimension,
                "tokenizer": tokenizer_id,
                "chunk_schema_version": CHUNK_SCHEMA_VERSION,
                "chunker_config": dict(chunker_config or {}),
            },
            # A copy: callers may edit the body, and the field types are shared constants.
            "properties": copy.deepcopy(
                _properties(dimension, m=m, ef_construction=ef_construction)
            ),
        },
    }


def _index_settings(shards: int, replicas: int) -> dict[str, Any]:
    return {
        "number_of_shards": shards,
        "number_of_replicas": replicas,
        "knn": True,
        # What the domain's slow logs record (published to CloudWatch by the
        # stack): a query or a bulk write that is slow enough to look into.
        "search.slowlog.threshold.query.warn": "5s",
        "search.slowlog.threshold.fetch.warn": "1s",
        "indexing.slowlog.threshold.index.warn": "10s",
    }


_KEYWORD = {"type": "keyword"}
# Values that come from the document or from S3 (heading text, keys, versions).
_OUTSIDE_KEYWORD = {"type": "keyword", "ignore_above": KEYWORD_IGNORE_ABOVE}
_INTEGER = {"type": "integer"}
_DATE = {"type": "date", "format": "strict_date_optional_time||epoch_millis"}
_STORED_ONLY = {"type": "text", "index": False}
# The chunk's text and its table rows are analysed alike.
_STANDARD_TEXT = {"type": "text", "analyzer": "standard"}


def _properties(dimension: int, *, m: int, ef_construction: int) -> dict[str, Any]:
    language_texts = {
        LANG_FIELDS[lang]: {"type": "text", "analyzer": analyzer}
        for lang, analyzer in LANG_ANALYZERS.items()
    }
    return {
        **_chunk_contract_properties(),
        # index-only fields
        **language_texts,
        ROWS_FIELD: {
            "type": "nested",
            "dynamic": "strict",
            "properties": {TEXT_FIELD: _STANDARD_TEXT, **language_texts},
        },
        "embedding": {
            "type": "knn_vector",
            "dimension": dimension,
            "method": {
                "name": "hnsw",
                "engine": "lucene",
                "space_type": "cosinesimil",
                "parameters": {"m": m, "ef_construction": ef_construction},
            },
        },
        "state": _KEYWORD,
        "revision_chunks": _INTEGER,
        "indexed_at": _DATE,
        "live_at": _DATE,
        "superseded_at": _DATE,
        FAILURE_REASON_FIELD: _STORED_ONLY,
        # head records only: "<chunks>:<revision key>" still to supersede
        "cleanup": {"type": "keyword", "index": False, "doc_values": False},
        # the document's metadata, on every chunk of a revision state (and the head's
        # metadata_version): chunkwise.metadata.fields
        **metadata_mapping()["properties"],
    }


def _chunk_contract_properties() -> dict[str, Any]:
    """The fields of the Chunk contract (schema.Chunk) as the index stores them."""
    return {
        "schema_version": _INTEGER,
        "doc_id": _KEYWORD,
        "source_key": _OUTSIDE_KEYWORD,
        "revision": _OUTSIDE_KEYWORD,
        "source_etag": _OUTSIDE_KEYWORD,
        "last_modified": _DATE,
        "chunk_index": _INTEGER,
        "start": _INTEGER,
        "end": _INTEGER,
        "byte_start": _INTEGER,
        "byte_end": _INTEGER,
        "body": _STORED_ONLY,
        "heading_path": _OUTSIDE_KEYWORD,
        "overlap_prefix": _STORED_ONLY,
        "table_header": _STORED_ONLY,
        TEXT_FIELD: _STANDARD_TEXT,
        "token_count": _INTEGER,
        "sized_by_model": _KEYWORD,
        "sized_by_tokenizer": _KEYWORD,
        "kind": _KEYWORD,
        "lang": _KEYWORD,
        "page_start": _INTEGER,
        "page_end": _INTEGER,
        "content_sha256": _KEYWORD,
    }


def index_template_body(names: IndexNames, *, shards: int = 1, replicas: int = 0) -> dict[str, Any]:
    """Composable index template for every generation index of this deployment.

    It carries everything that does not depend on the embedding model (settings,
    strict mapping of the chunk fields, analyzers), so even an index created by
    mistake under the prefix (e.g. an auto-create from a write to a missing
    generation) gets the real mapping, never a dynamic guess. The vector field's
    dimension comes with each generation's own create request.
    """
    body = index_body(1, shards=shards, replicas=replicas)
    mappings = body["mappings"]
    del mappings["properties"]["embedding"]
    mappings["_meta"] = {"chunk_schema_version": CHUNK_SCHEMA_VERSION}
    return {
        "index_patterns": [f"{names.prefix}-*"],
        "priority": 100,
        "template": {"settings": body["settings"], "mappings": mappings},
        "_meta": {"managed_by": "chunkwise", "chunk_schema_version": CHUNK_SCHEMA_VERSION},
    }
