"""Index generations, aliases, documents and index request bodies (pure; no I/O).

samdocs/architecture.md, "The revision protocol". Everything here builds request
bodies or decides what to do; `chunkwise.adapters.opensearch.index` sends them.
Names:

- physical index per generation: ``<prefix>-<generation>`` (default prefix ``chunks``)
- read alias ``<prefix>`` (filtered: only ``state == live`` chunks are visible)
- write alias ``<prefix>-write`` (unfiltered, ``is_write_index``)

Chunk lifecycle (the ``state`` keyword of every indexed chunk)::

    pending ──finish──▶ live ──finish of a newer head──▶ superseded ──retention──▶ (erased)
       │                   └──finish of a tombstone (S3 key gone)──▶ deleted ──retention──▶
       └─ never named by a head: invisible to every reader

Which revision of a document is current is decided by its head record (state
``head``, next to the chunks), not by the chunks' states: the revision switch,
its commit point and the reader's rule are in `chunkwise.ingest.revisions` and
samdocs/architecture.md. The ``live`` state is the same decision made visible,
a little later, to clients that read the filtered alias.
"""

from __future__ import annotations

import copy
import hashlib
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

from chunkwise.chunking.rows import table_rows
from chunkwise.embedding.embed import own_token_counter
from chunkwise.errors import ConfigError, PermanentError
from chunkwise.schema import CHUNK_SCHEMA_VERSION, Chunk

DEFAULT_PREFIX = "chunks"
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.]{0,99}$")
_PREFIX_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,99}$")
#: What a generation id may look like (also checked on queue messages that name one).
GENERATION_RE = _NAME_RE

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
# 5: `cleanup` of the per-document head records (chunkwise.ingest.revisions).
MAPPING_REVISION = 5
#: Longest value (characters) of an outside-supplied keyword field that is indexed.
#: Lucene rejects a term over 32,766 UTF-8 bytes and with it the whole document; a
#: longer value stays in _source, only unsearchable as a term.
KEYWORD_IGNORE_ABOVE = 2048


class State(StrEnum):
    PENDING = "pending"
    LIVE = "live"
    SUPERSEDED = "superseded"
    DELETED = "deleted"
    # Not a chunk: the marker of a revision that can never be indexed (see failure_marker).
    FAILED = "failed"
    # Not a chunk: a document's head record (chunkwise.ingest.revisions).
    HEAD = "head"


FAILURE_REASON_FIELD = "failure_reason"


def utcnow_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --------------------------------------------------------------------------- names


@dataclass(frozen=True)
class IndexNames:
    """Index and alias names of one deployment (tests use a unique prefix)."""

    prefix: str = DEFAULT_PREFIX

    def __post_init__(self) -> None:
        if not _PREFIX_RE.match(self.prefix):
            raise ConfigError(
                f"prefix: must be lowercase [a-z0-9_.-], start alphanumeric; got {self.prefix!r}"
            )

    @property
    def read_alias(self) -> str:
        return self.prefix

    @property
    def write_alias(self) -> str:
        return f"{self.prefix}-write"

    def index(self, generation: str) -> str:
        if not _NAME_RE.match(generation) or generation in ("write", "read"):
            raise ConfigError(
                "generation: must be lowercase [a-z0-9_.], start alphanumeric, and not "
                f"'write'/'read'; got {generation!r}"
            )
        return f"{self.prefix}-{generation}"

    def generation_of(self, index: str) -> str | None:
        head = f"{self.prefix}-"
        if not index.startswith(head):
            return None
        gen = index[len(head) :]
        return gen if _NAME_RE.match(gen) and gen not in ("write", "read") else None


def new_generation_id(now: datetime | None = None) -> str:
    """Sortable generation id from the clock, e.g. ``g20250101t120000``."""
    t = now or datetime.now(UTC)
    return t.strftime("g%Y%m%dt%H%M%S")


def make_doc_id(bucket: str, key: str) -> str:
    """Stable document id of an S3 object (bucket + key), safe in ``_id`` and routing."""
    return hashlib.sha256(f"{bucket}\x00{key}".encode()).hexdigest()[:32]


# --------------------------------------------------------------------------- mapping


def missing_properties(current: Mapping[str, Any], wanted: Mapping[str, Any]) -> dict[str, Any]:
    """Top-level mapping properties that ``wanted`` has and ``current`` lacks.

    An index created by an older release keeps its (strict) mapping; fields
    that a newer release writes (e.g. ``rows``) must be added to it before the
    first write, or every chunk carrying them is rejected. OpenSearch accepts
    new fields on a live index, never changes to existing ones, so only the
    missing ones are returned.
    """
    return {name: spec for name, spec in wanted.items() if name not in current}


class ModelMismatchError(PermanentError):
    """Vectors of one model offered to (or asked of) a generation built with another.

    A deployment problem, not the document's: the write is refused before
    anything is sent, and, unlike a document that can never be indexed, older
    revisions stay live (moving over is a new generation and a swap)."""


@dataclass(frozen=True)
class GenerationModel:
    """The embedding model a generation's vectors come from, as its metadata records it."""

    name: str
    dimension: int
    tokenizer: str = ""

    @classmethod
    def of(cls, embedder: Any) -> GenerationModel:
        """From an embedder (its name, dimension and, if it has one, its sizer's id)."""
        counter = own_token_counter(embedder)
        tokenizer = counter.tokenizer_id if counter is not None else ""
        return cls(str(embedder.name), int(embedder.dimension), tokenizer)


def model_mismatch(meta: Mapping[str, Any], index: str, model: GenerationModel) -> str | None:
    """Why vectors of ``model`` must not meet the generation ``index`` (None: they may).

    A generation records its model in the mapping's ``_meta``; a generation
    without a record (created by hand without a model) is judged by dimension only.
    """
    built_with = str(meta.get("embedder") or "")
    dimension = int(meta.get("dimension") or 0)
    tokenizer = str(meta.get("tokenizer") or "")
    differs = (
        (built_with and built_with != model.name)
        or (dimension and dimension != model.dimension)
        or (tokenizer and model.tokenizer and tokenizer != model.tokenizer)
    )
    if not differs:
        return None
    return (
        f"generation {index} was built with the model {built_with or '?'} "
        f"({dimension or '?'} dims, tokenizer {tokenizer or '?'}), but this deployment embeds "
        f"with {model.name} ({model.dimension} dims, tokenizer {model.tokenizer or '?'}): "
        f"vectors of two models cannot be compared. Build a generation for the new model "
        f"(chunkwise index create, re-chunk into it, chunkwise index swap) or configure "
        f"the generation's model"
    )


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
        # head records only: "<chunks>:<revision>" still to supersede
        "cleanup": {"type": "keyword", "index": False, "doc_values": False},
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


def template_name(names: IndexNames) -> str:
    return f"{names.prefix}-chunks"


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


def read_alias_filter() -> dict[str, Any]:
    return {"term": {"state": State.LIVE.value}}


def swap_actions(
    names: IndexNames,
    new_index: str,
    *,
    current_write: Sequence[str] = (),
    current_read: Sequence[str] = (),
) -> dict[str, Any]:
    """Body of one atomic ``POST _aliases`` moving both aliases to ``new_index``."""
    actions: list[dict[str, Any]] = []
    for idx in current_write:
        if idx != new_index:
            actions.append({"remove": {"index": idx, "alias": names.write_alias}})
    for idx in current_read:
        if idx != new_index:
            actions.append({"remove": {"index": idx, "alias": names.read_alias}})
    actions.append(
        {"add": {"index": new_index, "alias": names.write_alias, "is_write_index": True}}
    )
    actions.append(
        {"add": {"index": new_index, "alias": names.read_alias, "filter": read_alias_filter()}}
    )
    return {"actions": actions}


# --------------------------------------------------------------------------- documents


def lang_fields(lang: str) -> list[str]:
    """Analysed BM25 fields a chunk of language ``lang`` fills (all of them if unknown)."""
    base = lang.lower().split("-")[0].split("_")[0]
    if base in LANG_FIELDS:
        return [LANG_FIELDS[base]]
    return list(LANG_FIELDS.values())


def chunk_document(
    chunk: Chunk,
    embedding: Sequence[float],
    *,
    state: State = State.PENDING,
    revision_chunks: int,
    now: str | None = None,
) -> dict[str, Any]:
    """The OpenSearch ``_source`` of a chunk: the Chunk fields plus index fields."""
    doc = chunk.model_dump(mode="json")
    for name in ("last_modified",):
        if not doc[name]:
            doc[name] = None  # "" is not a date
    for f in lang_fields(chunk.lang):
        doc[f] = chunk.text
    rows = table_rows(chunk.body, chunk.table_header)
    if rows:
        fields = [TEXT_FIELD, *lang_fields(chunk.lang)]
        doc[ROWS_FIELD] = [dict.fromkeys(fields, row) for row in rows]
    doc["embedding"] = [float(x) for x in embedding]
    doc["state"] = state.value
    doc["revision_chunks"] = revision_chunks
    doc["indexed_at"] = now or utcnow_iso()
    return doc


def bulk_actions(
    chunks: Sequence[Chunk],
    embeddings: Sequence[Sequence[float]],
    *,
    index: str,
    state: State = State.PENDING,
    now: str | None = None,
) -> Iterator[dict[str, Any]]:
    """opensearch-py ``helpers.bulk`` actions: ``_id`` = chunk_id, routing = doc_id."""
    if len(chunks) != len(embeddings):
        raise ValueError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
    counts: dict[tuple[str, str], int] = {}
    for c in chunks:
        counts[(c.doc_id, c.revision)] = counts.get((c.doc_id, c.revision), 0) + 1
    stamp = now or utcnow_iso()
    for c, e in zip(chunks, embeddings, strict=True):
        if not c.doc_id or not c.revision:
            raise ValueError(f"chunk {c.chunk_index} has no doc_id/revision")
        yield {
            "_op_type": "index",
            "_index": index,
            "_id": c.chunk_id,
            "_routing": c.doc_id,
            "_source": chunk_document(
                c,
                e,
                state=state,
                revision_chunks=counts[(c.doc_id, c.revision)],
                now=stamp,
            ),
        }


# --------------------------------------------------------------------------- revision queries


def _doc_filter(doc_id: str) -> dict[str, Any]:
    return {"term": {"doc_id": doc_id}}


def revision_states_query(doc_id: str, max_revisions: int = 1000) -> dict[str, Any]:
    """Aggregation listing every revision of a document with per-state chunk counts."""
    return {
        "size": 0,
        "query": {
            "bool": {
                "filter": [_doc_filter(doc_id)],
                "must_not": [{"term": {"state": State.HEAD.value}}],
            }
        },
        "aggs": {
            "revisions": {
                "terms": {"field": "revision", "size": max_revisions},
                "aggs": {
                    "states": {"terms": {"field": "state", "size": 10}},
                    "expected": {"max": {"field": "revision_chunks"}},
                },
            }
        },
    }


@dataclass(frozen=True)
class RevisionState:
    """Chunk counts of one revision of one document, by state."""

    revision: str
    counts: Mapping[str, int]
    expected: int

    def n(self, state: State) -> int:
        return int(self.counts.get(state.value, 0))

    @property
    def complete_live(self) -> bool:
        """Every chunk of the revision is live (and there is at least one)."""
        return self.expected > 0 and self.n(State.LIVE) == self.expected

    @property
    def visible(self) -> bool:
        return self.n(State.LIVE) > 0


def parse_revision_states(response: Mapping[str, Any]) -> dict[str, RevisionState]:
    out: dict[str, RevisionState] = {}
    for b in response.get("aggregations", {}).get("revisions", {}).get("buckets", []):
        counts = {s["key"]: int(s["doc_count"]) for s in b["states"]["buckets"]}
        exp = b["expected"].get("value")
        out[str(b["key"])] = RevisionState(str(b["key"]), counts, int(exp or 0))
    return out


def failure_marker(
    doc_id: str, key: str, revision: str, reason: str, now: str | None = None
) -> tuple[str, dict[str, Any]]:
    """``_id`` and ``_source`` of the record that a revision failed permanently.

    It lives next to the document's chunks (same routing) in state ``failed``, which
    no search, live set or retention query matches: the sweep reads these markers
    to tell "known to fail" from drift, so it does not re-enqueue the same broken
    version on every run. The reason is the error's own message (never document text).
    """
    source = {
        "doc_id": doc_id,
        "source_key": key,
        "revision": revision,
        "state": State.FAILED.value,
        FAILURE_REASON_FIELD: reason[:1000],
        "indexed_at": now or utcnow_iso(),
    }
    return f"{doc_id}:failed:{revision}", source


def known_failures_query(after: Sequence[Any] | None = None, page: int = 1000) -> dict[str, Any]:
    """One page of failure markers, sorted for search_after paging."""
    body: dict[str, Any] = {
        "size": page,
        "query": {"term": {"state": State.FAILED.value}},
        "_source": ["source_key", "doc_id", "revision", FAILURE_REASON_FIELD],
        "sort": [{"doc_id": "asc"}, {"revision": "asc"}],
    }
    if after:
        body["search_after"] = list(after)
    return body


def sweep_body(older_than: str) -> dict[str, Any]:
    """delete-by-query body of the retention sweep (superseded/deleted before a date)."""
    return {
        "query": {
            "bool": {
                "filter": [
                    {"terms": {"state": [State.SUPERSEDED.value, State.DELETED.value]}},
                    {"range": {"superseded_at": {"lt": older_than}}},
                ]
            }
        }
    }


def tombstones_body(older_than: str) -> dict[str, Any]:
    """delete-by-query body of the head records of deleted keys older than a date (a
    key without a head and without an S3 version needs nothing; a new upload writes
    a new head)."""
    return {
        "query": {
            "bool": {
                "filter": [
                    {"term": {"state": State.HEAD.value}},
                    {"term": {"revision": ""}},
                    {"range": {"indexed_at": {"lt": older_than}}},
                ]
            }
        }
    }


def expired_revisions_query(
    older_than: str, after: Mapping[str, Any] | None = None, page: int = 1000
) -> dict[str, Any]:
    """Composite aggregation over (doc_id, revision) of the chunks retention deletes."""
    comp: dict[str, Any] = {
        "size": page,
        "sources": [
            {"doc": {"terms": {"field": "doc_id"}}},
            {"revision": {"terms": {"field": "revision"}}},
        ],
    }
    if after:
        comp["after"] = dict(after)
    return {
        "size": 0,
        "query": sweep_body(older_than)["query"],
        "aggs": {"revs": {"composite": comp}},
    }


_DURATION_RE = re.compile(r"^(\d+)([smhdw])$")


def parse_duration_seconds(text: str) -> int:
    """``30d``, ``12h``, ``90m``, ``45s``, ``2w`` -> seconds."""
    m = _DURATION_RE.match(text.strip())
    if not m:
        raise ConfigError(f"older-than: expected <n>[s|m|h|d|w], got {text!r}")
    mult = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]
    return int(m.group(1)) * mult


# --------------------------------------------------------------------------- revision protocol


@dataclass(frozen=True, order=True)
class ObjectVersion:
    """S3's answer to HEAD: the current version of a key."""

    last_modified: str  # ISO 8601, UTC
    version_id: str
    key: str = field(compare=False)
    bucket: str = field(default="", compare=False)
    etag: str = field(default="", compare=False)
    size: int = field(default=0, compare=False)

    @property
    def revision(self) -> str:
        """The revision id: S3 versionId, or the ETag when the bucket is unversioned."""
        if self.version_id and self.version_id != "null":
            return self.version_id
        return "etag-" + self.etag.strip('"')


class S3Port(Protocol):
    def head_current(self, key: str) -> ObjectVersion | None:
        """The key's current version, or None if it does not exist (deleted)."""
        ...


# --------------------------------------------------------------------------- newest revision


def revision_sort_key(last_modified: str | None, revision: str) -> tuple[str, str]:
    """Order of revisions of one document: S3 last-modified, then version id."""
    return (normalise_timestamp(last_modified or ""), revision)


def normalise_timestamp(ts: str) -> str:
    """ISO 8601 -> comparable UTC string (``...Z`` and ``+00:00`` forms compare equal)."""
    if not ts:
        return ""
    try:
        dt = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return ts
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
