"""Settings: the one module that reads (and, for the local stack, writes) the environment.

Every function has its own model, built from mixins that each own one concern, and
validates it once at cold start (`load_settings`); a bad value fails there with a
message naming the variable. Env names are ``CHUNKWISE_<FIELD>`` unless a field
says otherwise (the OpenSearch URL is also read as ``OPENSEARCH_URL``, the region
as ``AWS_REGION`` / ``AWS_DEFAULT_REGION``).

    function    model               mixins
    ingest      IngestSettings      Source + OpenSearch + Embedder
    query       QuerySettings       OpenSearch + Embedder + Access + Rerank (+ query_embedding)
    reconcile   ReconcileSettings   Ingest + Queue (+ retention)
    admin       AdminSettings       OpenSearch + Embedder + Rerank (+ connector roles)
    local, CLI  Settings            all of them (the local runner plays every function)

The command line reads its defaults through `CliSettings` and `LocalPorts`; the
local stack points the process (and its children) at the services through
`export_env` / `child_env`, so no other module touches ``os.environ``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from chunkwise.errors import ConfigError
from chunkwise.index.names import IndexNames
from chunkwise.metadata.model import DEFAULT_READERS_KEY, group_refusal, key_refusal

if TYPE_CHECKING:
    from chunkwise.search.fusion import FusionSpec

_CONFIG = SettingsConfigDict(env_prefix="CHUNKWISE_", extra="ignore", frozen=True)


class _Base(BaseSettings):
    model_config = _CONFIG


class OpenSearchSettings(_Base):
    """Where the index lives and how to reach it."""

    opensearch_url: str = Field(
        "http://127.0.0.1:9200",
        validation_alias=AliasChoices("CHUNKWISE_OPENSEARCH_URL", "OPENSEARCH_URL"),
    )
    opensearch_auth: Literal["none", "sigv4-es", "sigv4-aoss"] = "none"
    opensearch_timeout: float = Field(30.0, gt=0)
    index_prefix: str = "chunks"
    # Primary shards and replicas of a new generation (the template's IndexShards /
    # IndexReplicas; samdocs/operations.md). The defaults fit one local node; a
    # production domain gets the template's (2 shards, 1 replica), the local 3-node
    # cluster 3/1 (`chunkwise local up --nodes 3`). Shards are fixed per generation
    # (a change takes a re-chunk); replicas could be changed on a live index.
    index_shards: int = Field(1, ge=1, le=1024)
    index_replicas: int = Field(0, ge=0, le=15)
    region: str = Field(
        "", validation_alias=AliasChoices("CHUNKWISE_REGION", "AWS_REGION", "AWS_DEFAULT_REGION")
    )
    # How hybrid search fuses its legs, in both paths (chunkwise.search.fusion): the
    # search pipeline the admin step writes and the client-side fallback. minmax:W, l2:W
    # (W the BM25 weight) or rrf:K; minmax:0.7 chosen by the sweep of #29.
    fusion: str = "minmax:0.7"

    @field_validator("fusion")
    @classmethod
    def _fusion(cls, v: str) -> str:
        from chunkwise.search.fusion import parse_fusion

        try:
            return parse_fusion(v).name
        except ConfigError as exc:
            raise ValueError(str(exc)) from exc

    @property
    def names(self) -> IndexNames:
        return IndexNames(self.index_prefix)

    @property
    def fusion_spec(self) -> FusionSpec:
        from chunkwise.search.fusion import parse_fusion

        return parse_fusion(self.fusion)


class EmbedderSettings(_Base):
    """Which embedder sizes and embeds, and the tokenizer file its sizer may need."""

    embedder: str = "local"
    # The tokenizer file (tokenizer.json, or a model zip holding one) that sizes
    # chunks for a model whose own tokenizer is not installed (Bedrock's): in
    # Lambda the tokenizer layer. None = the installed package. The composition
    # root passes it to the embedder it builds (chunkwise.wiring.embedders).
    model_path: Path | None = None


class SourceSettings(_Base):
    """The source bucket, the artifacts location and the per-document limits, as plain
    values: `chunkwise.wiring.pipeline_config` makes the pipeline's configuration of
    them and checks how they combine (the functions call it at cold start)."""

    bucket: str = Field("", description="source bucket (required where a bucket is read)")
    input_prefix: str = "incoming/"
    artifacts_bucket: str = ""
    artifacts_prefix: str = "extracted/"
    max_object_bytes: int = Field(100 * 1024 * 1024, gt=0)
    # None: the pipeline's own default types (the format registry's, extract/formats.py).
    allowed_suffixes: tuple[str, ...] | None = None
    max_chunks_per_document: int = Field(5000, gt=0)
    max_tokens_per_document: int = Field(1_500_000, gt=0)
    ocr: Literal["none", "textract"] = "none"
    # The sidecar attribute that names a document's readers (checked by the pipeline's
    # configuration: chunkwise.metadata.model.check_readers_key).
    readers_key: str = DEFAULT_READERS_KEY


class QueueSettings(_Base):
    """The ingest queue (reconcile messages, the re-chunk fan-out)."""

    queue_url: str = ""


class RerankSettings(_Base):
    """The rerank stage after fusion (chunkwise.search.rerank): off without a model id."""

    rerank_model_id: str = ""  # the ML Commons model (the admin step's RerankModelId)
    rerank_depth: int = Field(30, ge=20, le=50)  # fused candidates the reranker reads
    rerank_timeout_ms: int = Field(2000, gt=0, le=30_000)  # past it: fused results, flagged


class IngestSettings(SourceSettings, OpenSearchSettings, EmbedderSettings):
    """The ingest function: S3 events -> the index."""


class AccessSettings(_Base):
    """Access control of the query path (samdocs/metadata-and-access.md): the mode, the
    admin group, and how a caller's bearer token is verified in mode ``groups``.
    `load_settings` checks that mode ``groups`` has what it needs."""

    access_control: Literal["none", "groups"] = "none"
    admin_group: str | None = Field(None, min_length=1, max_length=256)
    #: The sidecar key that holds a document's readers (never a filter key).
    readers_key: str = DEFAULT_READERS_KEY
    jwt_issuer: str = Field("", max_length=1024)
    jwt_audience: str = Field("", max_length=1024)
    #: ``aud`` (ID tokens, most OIDC providers) or ``client_id`` (Cognito access tokens).
    jwt_audience_claim: Literal["aud", "client_id"] = "aud"
    jwt_groups_claim: str = Field("cognito:groups", min_length=1, max_length=256)
    #: The issuer's JWKS: an https URL, or a file (the local test issuer's ``jwks.json``).
    jwt_jwks_url: str = ""
    jwt_jwks_file: Path | None = None
    #: The bucket the filter key ``x-amz-bedrock-kb-source-uri`` refers to.
    source_bucket: str = Field(
        "", validation_alias=AliasChoices("CHUNKWISE_SOURCE_BUCKET", "CHUNKWISE_BUCKET")
    )

    @field_validator("admin_group")
    @classmethod
    def _admin_group(cls, v: str | None) -> str | None:
        reason = group_refusal(v) if v is not None else None
        if reason:
            raise ValueError(reason)
        return v

    @field_validator("readers_key")
    @classmethod
    def _readers_key(cls, v: str) -> str:
        reason = key_refusal(v, v)
        if reason:
            raise ValueError(reason)
        return v

    def access_problems(self) -> list[str]:
        """What keeps this configuration from working, each naming its variable."""
        if self.access_control == "none":
            return []
        problems = [
            f"CHUNKWISE_{name.upper()}: required with CHUNKWISE_ACCESS_CONTROL=groups"
            for name in ("jwt_issuer", "jwt_audience")
            if not getattr(self, name)
        ]
        if bool(self.jwt_jwks_url) == (self.jwt_jwks_file is not None):
            problems.append(
                "CHUNKWISE_JWT_JWKS_URL / CHUNKWISE_JWT_JWKS_FILE: exactly one with "
                "CHUNKWISE_ACCESS_CONTROL=groups"
            )
        if self.jwt_jwks_url and not self.jwt_jwks_url.startswith(("https://", "http://")):
            problems.append("CHUNKWISE_JWT_JWKS_URL: must be an https:// URL")
        if self.jwt_jwks_file is not None and not self.jwt_jwks_file.is_file():
            problems.append(f"CHUNKWISE_JWT_JWKS_FILE: {self.jwt_jwks_file} does not exist")
        return problems


class QuerySettings(OpenSearchSettings, EmbedderSettings, AccessSettings, RerankSettings):
    """The query function: hybrid search over the read alias, access control, rerank."""

    # "client" embeds the query and sends the vector; "cluster" sends the text and
    # the generation's query model embeds it (chunkwise.search.query_model).
    query_embedding: Literal["client", "cluster"] = "client"


class ReconcileSettings(IngestSettings, QueueSettings):
    """The reconcile function: sweep, retention, re-chunk (it ingests what it repairs)."""

    # How long deleted and superseded revisions stay (chunks and artifacts) before the
    # scheduled retention step erases them: <n>[s|m|h|d|w].
    retention: str = Field("7d", pattern=r"^\d+[smhdw]$")


class AdminSettings(OpenSearchSettings, EmbedderSettings, RerankSettings):
    """The admin custom resource: index setup, the cluster's query and rerank models."""

    # The IAM role OpenSearch assumes to call Bedrock for query embeddings.
    query_connector_role_arn: str = ""
    # The Bedrock rerank model ("" = no reranker), its region ("" = the stack's) and the
    # role OpenSearch assumes to call it.
    rerank_model: str = ""
    rerank_region: str = ""
    rerank_connector_role_arn: str = ""


class BackfillSettings(OpenSearchSettings, QueueSettings):
    """`chunkwise backfill`: the generation it tunes and the queue it waits on."""


class Settings(ReconcileSettings, QuerySettings, AdminSettings):
    """Everything: the local runner and the command line play every function."""


S = TypeVar("S", bound=_Base)


@overload
def load_settings(**overrides: Any) -> Settings: ...
@overload
def load_settings(model: type[S], **overrides: Any) -> S: ...
def load_settings(model: type[_Base] = Settings, **overrides: Any) -> _Base:
    """``model`` from the environment, validated once; ConfigError names the bad variables.

    A model with a source bucket requires one; a configured model path must exist.
    How the source values combine is the
    pipeline's to check (`chunkwise.wiring.pipeline_config`).
    """
    try:
        s = model(**overrides)
    except ValidationError as exc:
        parts = [
            f"CHUNKWISE_{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in exc.errors()
        ]
        raise ConfigError("invalid settings: " + "; ".join(parts)) from exc
    if isinstance(s, SourceSettings) and not s.bucket:
        raise ConfigError("CHUNKWISE_BUCKET: required (the source bucket)")
    if isinstance(s, OpenSearchSettings):
        s.names  # noqa: B018 - validates the index prefix
    if isinstance(s, EmbedderSettings) and s.model_path and not s.model_path.exists():
        raise ConfigError(f"CHUNKWISE_MODEL_PATH: {s.model_path} does not exist")
    if isinstance(s, AccessSettings) and s.access_problems():
        raise ConfigError("invalid settings: " + "; ".join(s.access_problems()))
    return s


# --------------------------------------------------------------------------- command line


class CliSettings(_Base):
    """Defaults of the `chunkwise index|search|eval` options (flags override them)."""

    opensearch_url: str = Field(
        "http://127.0.0.1:9200",
        validation_alias=AliasChoices("OPENSEARCH_URL", "CHUNKWISE_OPENSEARCH_URL"),
    )
    index_prefix: str = "chunks"
    # `chunkwise index create --shards/--replicas`: the same settings as the functions'
    # (OpenSearchSettings.index_shards / index_replicas), so a generation made by hand
    # has the layout the stack's own would have.
    index_shards: int = Field(1, ge=1, le=1024)
    index_replicas: int = Field(0, ge=0, le=15)


class LocalPorts(BaseSettings):
    """The ports this checkout's local services listen on (scripts read the same names)."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True, env_ignore_empty=True)

    opensearch_port: int | None = None
    # Nodes of the local OpenSearch (tools/opensearch/opensearch.sh): 1, or a cluster.
    opensearch_nodes: int = Field(1, ge=1, le=9)
    localstack_port: int | None = None
    chunkwise_embed_port: int | None = None


class LocalStackEnv(BaseSettings):
    """What the local stack reads from the environment (services named from outside)."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True, env_ignore_empty=True)

    opensearch_url: str = ""
    aws_endpoint_url: str = ""
    aws_default_region: str = ""
    aws_access_key_id: str = ""
    aws_secret_access_key: str = ""
    chunkwise_bucket: str = ""
    chunkwise_index_prefix: str = ""
    chunkwise_repo: Path | None = None


def cli_settings() -> CliSettings:
    return CliSettings()


def local_ports() -> LocalPorts:
    return LocalPorts()


def local_stack_env() -> LocalStackEnv:
    return LocalStackEnv()


def export_env(values: Mapping[str, str], *, only_unset: bool = False) -> None:
    """Point this process (the in-process handlers, boto3) at a stack: the local
    runner plays the functions, which read their settings from the environment."""
    for key, value in values.items():
        if not value:
            continue
        if only_unset:
            os.environ.setdefault(key, value)
        else:
            os.environ[key] = value


def replace_env(values: Mapping[str, str]) -> None:
    """Set each of ``values`` in this process's environment; an empty value removes
    the variable (a deployed function's setting that has no local counterpart)."""
    for key, value in values.items():
        if value:
            os.environ[key] = value
        else:
            os.environ.pop(key, None)


def child_env(extra: Mapping[str, str]) -> dict[str, str]:
    """This process's environment plus ``extra``, for a child process."""
    return {**os.environ, **extra}


@contextmanager
def preserved_environment() -> Iterator[None]:
    """The process environment as it was before the block (a throwaway local stack
    points the process at itself for its lifetime only)."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
