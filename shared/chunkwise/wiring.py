"""boto3 adapters of the pipeline ports, the settings model, and the wiring.

- `BotoObjectStore`: the source bucket (HEAD current, GET exact version, list current)
- `BotoArtifactStore`: the artifacts location (bucket + prefix)
- `SqsQueue`: the ingest queue (send in batches of 10)
- `Settings`: one pydantic-settings model read from the environment, validated
  once per process (cold start)
- `build_pipeline` / `opensearch_client`: wire them with the index and embedder

boto3 is imported lazily; every client honours ``AWS_ENDPOINT_URL`` (LocalStack,
moto) through botocore's own configuration.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from chunkwise.adapters.s3 import (
    OBJECT_MISSING,
    TRANSIENT_CODES,
    BotoS3,
    boto_client,
    object_version,
)
from chunkwise.errors import PermanentError, TransientError
from chunkwise.index.bodies import GenerationModel, IndexNames, IndexPort, ObjectVersion
from chunkwise.ingest.pipeline import (
    DEFAULT_SUFFIXES,
    GenerationCheck,
    OpenSearchLiveSet,
    Pipeline,
    PipelineConfig,
    RetentionResult,
    SweepResult,
    build_config,
    iter_batches,
)

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.embedding.embed import Embedder
    from chunkwise.search.query_model import QueryModelSpec

log = logging.getLogger("chunkwise.aws")

# A missing bucket is an error here; for a HEAD it would read as "object absent".
_MISSING = OBJECT_MISSING | {"NoSuchBucket"}


def _classify(what: str, exc: Exception) -> Exception:
    """botocore exception -> TransientError / PermanentError."""
    exceptions = importlib.import_module("botocore.exceptions")
    if isinstance(exc, exceptions.ClientError):
        code = str(exc.response.get("Error", {}).get("Code", ""))
        if code in TRANSIENT_CODES:
            return TransientError(f"{what}: {code}")
        if code in _MISSING:
            # The version disappeared between HEAD and GET: the next round re-HEADs.
            return TransientError(f"{what}: {code} (changed while reading)")
        return PermanentError(f"{what}: {code}: {exc}")
    if isinstance(exc, exceptions.BotoCoreError):
        return TransientError(f"{what}: {exc}")
    return exc


class BotoObjectStore(BotoS3):
    """ObjectStore over boto3 for one bucket (HEAD from `chunkwise.adapters.s3.BotoS3`)."""

    def get_version(self, key: str, version_id: str) -> bytes:
        kwargs: dict[str, Any] = {"Bucket": self.bucket, "Key": key}
        if version_id and version_id != "null":
            kwargs["VersionId"] = version_id
        exceptions = importlib.import_module("botocore.exceptions")
        try:
            resp = self.client.get_object(**kwargs)
            data: bytes = resp["Body"].read()
        except (exceptions.ClientError, exceptions.BotoCoreError) as exc:
            raise _classify(f"s3 get {self.bucket}/{key}@{version_id}", exc) from exc
        return data

    def list_current(self, prefix: str = "") -> Iterator[ObjectVersion]:
        """Current versions from ListObjectVersions (``IsLatest``), one request per
        1,000 versions and no HEAD per key; a key whose latest entry is a delete
        marker is absent. Works for unversioned buckets too (version id "null")."""
        exceptions = importlib.import_module("botocore.exceptions")
        try:
            pages = self.client.get_paginator("list_object_versions").paginate(
                Bucket=self.bucket, Prefix=prefix
            )
            for page in pages:
                for v in page.get("Versions", []) or []:
                    key = str(v["Key"])
                    if not v.get("IsLatest") or key.endswith("/"):
                        continue
                    yield object_version(self.bucket, key, v, size_field="Size")
        except (exceptions.ClientError, exceptions.BotoCoreError) as exc:
            raise _classify(f"s3 list {self.bucket}/{prefix}", exc) from exc


class BotoArtifactStore:
    """ArtifactStore: writes to ``bucket`` (keys already carry the artifacts prefix)."""

    def __init__(self, bucket: str, client: Any | None = None) -> None:
        self.bucket = bucket
        self.client = boto_client("s3", client)

    def put(self, key: str, data: bytes, content_type: str) -> None:
        exceptions = importlib.import_module("botocore.exceptions")
        try:
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=content_type)
        except (exceptions.ClientError, exceptions.BotoCoreError) as exc:
            raise _classify(f"s3 put {self.bucket}/{key}", exc) from exc

    def delete(self, keys: Sequence[str]) -> None:
        """DeleteObjects, 1,000 keys per request; any per-key error raises."""
        exceptions = importlib.import_module("botocore.exceptions")
        for start in range(0, len(keys), 1000):
            batch = [{"Key": k} for k in keys[start : start + 1000]]
            try:
                resp = self.client.delete_objects(
                    Bucket=self.bucket, Delete={"Objects": batch, "Quiet": True}
                )
            except (exceptions.ClientError, exceptions.BotoCoreError) as exc:
                raise _classify(f"s3 delete {self.bucket} ({len(batch)} keys)", exc) from exc
            errors = resp.get("Errors") or []
            if errors:
                first = errors[0]
                raise TransientError(
                    f"s3 delete: {len(errors)} of {len(batch)} failed: "
                    f"{first.get('Key')}: {first.get('Code')}"
                )


class SqsQueue:
    """QueuePort over SQS SendMessageBatch (10 per call; failed entries raise)."""

    def __init__(self, queue_url: str, client: Any | None = None) -> None:
        self.queue_url = queue_url
        self.client = boto_client("sqs", client)

    def send_batch(self, bodies: Sequence[str]) -> None:
        exceptions = importlib.import_module("botocore.exceptions")
        for batch in iter_batches(bodies, 10):
            entries = [{"Id": str(i), "MessageBody": b} for i, b in enumerate(batch)]
            try:
                resp = self.client.send_message_batch(QueueUrl=self.queue_url, Entries=entries)
            except (exceptions.ClientError, exceptions.BotoCoreError) as exc:
                raise _classify(f"sqs send {self.queue_url}", exc) from exc
            failed = resp.get("Failed") or []
            if failed:
                raise TransientError(f"sqs send: {len(failed)} of {len(batch)} failed: {failed[0]}")


# --------------------------------------------------------------------------- settings


class Settings(BaseSettings):
    """Everything a function or the local runner needs, from the environment.

    Env names are ``CHUNKWISE_<FIELD>``; the OpenSearch URL also as
    ``OPENSEARCH_URL``. Validated once per process; a bad value fails the cold
    start with a message naming the variable.
    """

    model_config = SettingsConfigDict(env_prefix="CHUNKWISE_", extra="ignore", frozen=True)

    bucket: str = Field("", description="source bucket ('' only for the query function)")
    input_prefix: str = "incoming/"
    artifacts_bucket: str = ""
    artifacts_prefix: str = "extracted/"
    max_object_bytes: int = Field(100 * 1024 * 1024, gt=0)
    allowed_suffixes: tuple[str, ...] = DEFAULT_SUFFIXES
    max_chunks_per_document: int = Field(5000, gt=0)
    max_tokens_per_document: int = Field(1_500_000, gt=0)
    opensearch_url: str = Field(
        "http://127.0.0.1:9200",
        validation_alias=AliasChoices("CHUNKWISE_OPENSEARCH_URL", "OPENSEARCH_URL"),
    )
    opensearch_auth: Literal["none", "sigv4-es", "sigv4-aoss"] = "none"
    opensearch_timeout: float = Field(30.0, gt=0)
    index_prefix: str = "chunks"
    # How long deleted and superseded revisions stay (chunks and artifacts) before the
    # scheduled retention step erases them: <n>[s|m|h|d|w].
    retention: str = Field("7d", pattern=r"^\d+[smhdw]$")
    embedder: str = "local"
    queue_url: str = ""
    ocr: Literal["none", "textract"] = "none"
    # Where the local model's files are (tokenizer.json, or the model zip): in
    # Lambda they come from the tokenizer layer. None = the installed package.
    model_path: Path | None = None
    region: str = Field(
        "", validation_alias=AliasChoices("CHUNKWISE_REGION", "AWS_REGION", "AWS_DEFAULT_REGION")
    )
    # The IAM role OpenSearch assumes to call Bedrock for query embeddings (admin only).
    query_connector_role_arn: str = ""
    # Query function: "client" embeds the query and sends the vector; "cluster" sends
    # the text and the generation's query model embeds it (chunkwise.search.query_model).
    query_embedding: Literal["client", "cluster"] = "client"

    def pipeline_config(self) -> PipelineConfig:
        return build_config(
            bucket=self.bucket,
            input_prefix=self.input_prefix,
            artifacts_bucket=self.artifacts_bucket,
            artifacts_prefix=self.artifacts_prefix,
            max_object_bytes=self.max_object_bytes,
            allowed_suffixes=self.allowed_suffixes,
            max_chunks_per_document=self.max_chunks_per_document,
            max_tokens_per_document=self.max_tokens_per_document,
        )

    @property
    def names(self) -> IndexNames:
        return IndexNames(self.index_prefix)


def load_settings(*, need_bucket: bool = True, **overrides: Any) -> Settings:
    """Settings from the environment; raises ConfigError naming the bad variables."""
    from pydantic import ValidationError

    from chunkwise.chunking.tokens import configure_default_model
    from chunkwise.errors import ConfigError

    try:
        s = Settings(**overrides)
        if need_bucket:
            if not s.bucket:
                raise ConfigError("CHUNKWISE_BUCKET: required (the source bucket)")
            s.pipeline_config()
        s.names  # noqa: B018 - validates the index prefix
        if s.model_path is not None:
            if not s.model_path.exists():
                raise ConfigError(f"CHUNKWISE_MODEL_PATH: {s.model_path} does not exist")
            configure_default_model(s.model_path)
        return s
    except ValidationError as exc:
        parts = [
            f"CHUNKWISE_{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in exc.errors()
        ]
        raise ConfigError("invalid settings: " + "; ".join(parts)) from exc


# --------------------------------------------------------------------------- wiring


def opensearch_client(settings: Settings) -> OpenSearch:
    """A client for the configured endpoint; SigV4 (``es`` or ``aoss``) when asked."""
    from chunkwise.adapters.opensearch.index import connect

    if settings.opensearch_auth == "none":
        return connect(settings.opensearch_url, timeout=settings.opensearch_timeout)
    boto3 = importlib.import_module("boto3")
    osp = importlib.import_module("opensearchpy")
    session = boto3.Session()
    region = settings.region or session.region_name
    if not region:
        from chunkwise.errors import ConfigError

        raise ConfigError("CHUNKWISE_REGION / AWS_REGION: needed for SigV4 to OpenSearch")
    service = "aoss" if settings.opensearch_auth == "sigv4-aoss" else "es"
    auth = osp.AWSV4SignerAuth(session.get_credentials(), region, service)
    return connect(
        settings.opensearch_url,
        timeout=settings.opensearch_timeout,
        http_auth=auth,
        use_ssl=settings.opensearch_url.startswith("https"),
        verify_certs=True,
        connection_class=osp.RequestsHttpConnection,
    )


def opensearch_index(
    settings: Settings,
    generation: str | None = None,
    client: OpenSearch | None = None,
    model: GenerationModel | None = None,
) -> OpenSearchIndex:
    """The write alias, or the physical index of ``generation`` (re-chunk builds);
    with ``model``, writes are refused into a generation of another model."""
    from chunkwise.adapters.opensearch.index import OpenSearchIndex

    names = settings.names
    target = names.index(generation) if generation else None
    return OpenSearchIndex(client or opensearch_client(settings), names, target=target, model=model)


def build_pipeline(
    settings: Settings,
    *,
    s3_client: Any | None = None,
    os_client: OpenSearch | None = None,
    embedder: Embedder | None = None,
) -> Pipeline:
    """The production pipeline: boto3 S3, OpenSearch, the configured embedder."""
    from chunkwise.embedding.embed import get_embedder

    config = settings.pipeline_config()
    client = os_client or opensearch_client(settings)
    s3 = boto_client("s3", s3_client)
    indexes: dict[str | None, IndexPort] = {}
    emb = embedder or get_embedder(settings.embedder)
    model = GenerationModel.of(emb)

    def index_for(generation: str | None) -> IndexPort:
        if generation not in indexes:
            indexes[generation] = opensearch_index(settings, generation, client, model)
        return indexes[generation]

    ocr = None
    if settings.ocr == "textract":
        from chunkwise.adapters.textract import textract_ocr

        ocr = textract_ocr(settings.region or None)
    return Pipeline(
        config,
        store=BotoObjectStore(config.bucket, s3),
        artifacts=BotoArtifactStore(config.artifacts_location, s3),
        index_for=index_for,
        embedder=emb,
        ocr=ocr,
    )


# --------------------------------------------------------------------------- operations
# Used by the admin / reconcile functions and by `chunkwise local|reconcile`.


def ensure_index(
    settings: Settings,
    *,
    generation: str | None = None,
    client: OpenSearch | None = None,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Idempotent index setup: index template, first generation + aliases, search pipelines
    (`chunkwise.adapters.opensearch.search.ensure_search_pipelines`, the deploy-time step the
    read-only query path relies on).

    Creates nothing that exists already; a live generation is left as it is.
    """
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.adapters.opensearch.search import ensure_search_pipelines
    from chunkwise.embedding.embed import get_embedder
    from chunkwise.index.bodies import model_mismatch, new_generation_id

    client = client or opensearch_client(settings)
    names = settings.names
    emb = embedder or get_embedder(settings.embedder)
    ix = OpenSearchIndex(client, names)
    # The index adapter owns the index template (same settings + mapping for every
    # generation of this prefix); older adapters without it create each index in full.
    ensure_template = getattr(ix, "ensure_template", None)
    if callable(ensure_template):
        ensure_template()
    model = GenerationModel.of(emb)
    live = ix.ensure_live_generation(
        generation or new_generation_id(),
        dimension=emb.dimension,
        embedder_name=emb.name,
        tokenizer_id=model.tokenizer,
    )
    _, meta = ix.generation_meta(live)
    mismatch = model_mismatch(meta, live, model)
    if mismatch:  # stays live (no downtime); writes and vector queries refuse it
        log.warning("%s", mismatch)
    pipeline = ensure_search_pipelines(client)
    return {
        "live_index": live,
        "read_alias": names.read_alias,
        "write_alias": names.write_alias,
        "dimension": emb.dimension,
        "embedder": emb.name,
        "tokenizer": model.tokenizer,
        "live_model_mismatch": mismatch or "",
        "neural_search": bool(pipeline),
        "search_pipeline": pipeline,
    }


def live_set(
    settings: Settings, generation: str | None = None, client: OpenSearch | None = None
) -> OpenSearchLiveSet:
    return OpenSearchLiveSet(opensearch_index(settings, generation, client), settings.bucket)


def run_sweep(
    settings: Settings,
    *,
    enqueue: bool,
    s3_client: Any | None = None,
    os_client: OpenSearch | None = None,
    embedder: Embedder | None = None,
) -> SweepResult:
    """Reconcile sweep; ``enqueue`` sends one message per drifted key to the queue."""
    from chunkwise.ingest.pipeline import sweep

    client = os_client or opensearch_client(settings)
    config = settings.pipeline_config()
    store = BotoObjectStore(config.bucket, s3_client)
    if enqueue:
        if not settings.queue_url:
            from chunkwise.errors import ConfigError

            raise ConfigError("CHUNKWISE_QUEUE_URL: needed to enqueue reconcile messages")
        return sweep(
            config, store, live_set(settings, None, client), queue=SqsQueue(settings.queue_url)
        )
    pipeline = build_pipeline(settings, s3_client=s3_client, os_client=client, embedder=embedder)
    return sweep(config, store, live_set(settings, None, client), pipeline=pipeline)


def run_retention(
    settings: Settings,
    older_than: str | None = None,
    *,
    s3_client: Any | None = None,
    os_client: OpenSearch | None = None,
) -> RetentionResult:
    """The retention step: chunks and artifacts of revisions deleted or superseded
    longer than ``older_than`` (default: the ``retention`` setting) ago."""
    from chunkwise.index.bodies import parse_duration_seconds
    from chunkwise.ingest.pipeline import apply_retention

    config = settings.pipeline_config()
    return apply_retention(
        config,
        opensearch_index(settings, None, os_client),
        BotoArtifactStore(config.artifacts_location, s3_client),
        parse_duration_seconds(older_than or settings.retention),
    )


def start_rechunk(
    settings: Settings,
    generation: str | None = None,
    *,
    s3_client: Any | None = None,
    os_client: OpenSearch | None = None,
    embedder: Embedder | None = None,
) -> tuple[str, int]:
    """Create a new generation index and enqueue one rechunk message per object."""
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.embedding.embed import get_embedder
    from chunkwise.index.bodies import new_generation_id
    from chunkwise.ingest.pipeline import fan_out_rechunk

    if not settings.queue_url:
        from chunkwise.errors import ConfigError

        raise ConfigError("CHUNKWISE_QUEUE_URL: the re-chunk fan-out needs the ingest queue")
    client = os_client or opensearch_client(settings)
    emb = embedder or get_embedder(settings.embedder)
    gen = generation or new_generation_id()
    OpenSearchIndex(client, settings.names).create_generation(
        gen,
        dimension=emb.dimension,
        embedder_name=emb.name,
        tokenizer_id=GenerationModel.of(emb).tokenizer,
    )
    attach_query_model_to(settings, gen, emb, client)
    config = settings.pipeline_config()
    store = BotoObjectStore(config.bucket, s3_client)
    n = fan_out_rechunk(config, store, SqsQueue(settings.queue_url), gen)
    return gen, n


def finish_rechunk(
    settings: Settings,
    generation: str,
    *,
    force: bool = False,
    s3_client: Any | None = None,
    os_client: OpenSearch | None = None,
) -> GenerationCheck:
    """Swap both aliases to ``generation`` if it holds exactly the bucket's current
    revisions (or ``force``); otherwise leave the live generation alone."""
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.ingest.pipeline import verify_generation

    client = os_client or opensearch_client(settings)
    config = settings.pipeline_config()
    store = BotoObjectStore(config.bucket, s3_client)
    check = verify_generation(config, store, live_set(settings, generation, client), generation)
    if check.complete or force:
        OpenSearchIndex(client, settings.names).swap(generation)
    return check


# --------------------------------------------------------------------------- query model
# The cluster embeds `neural` queries itself through an ML Commons remote model
# (chunkwise.search.query_model). Kept apart from `ensure_index`: it is a second setup step.


def query_model_spec(embedder: Embedder) -> QueryModelSpec:
    from chunkwise.embedding.embed import query_prefix
    from chunkwise.search.query_model import QueryModelSpec

    return QueryModelSpec(embedder.name, embedder.dimension, query_prefix(embedder))


def has_ml_commons(client: OpenSearch) -> bool:
    plugins = client.cat.plugins(format="json")
    return any(str(p.get("component", "")) == "opensearch-ml" for p in plugins)


def setup_query_model(
    settings: Settings,
    connector: dict[str, Any],
    spec: QueryModelSpec,
    *,
    client: OpenSearch | None = None,
) -> dict[str, str]:
    """Register + deploy the remote model behind ``connector`` and attach it to every
    generation of its embedder (``_meta.query_model_id``, ``index.search.default_pipeline``).
    A generation of another embedder is left alone: its queries need its own model,
    attached when it was built (`attach_query_model_to`)."""
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.adapters.opensearch.query_model import (
        attach_query_model,
        ensure_query_model,
        index_meta,
    )
    from chunkwise.errors import ConfigError
    from chunkwise.search.query_model import serves

    client = client or opensearch_client(settings)
    ix = OpenSearchIndex(client, settings.names)
    live = ix.live_generation()
    if live is None:
        raise ConfigError(f"no live generation under {settings.index_prefix}: run the index setup")
    model_id = ensure_query_model(client, settings.index_prefix, connector, spec)
    pipeline = ""
    attached = []
    for index in (settings.names.index(g) for g in ix.generations()):
        if serves(index_meta(client, index), spec):
            pipeline = attach_query_model(client, index, model_id, spec)
            attached.append(index)
    return {
        "query_model_id": model_id,
        "query_pipeline": pipeline,
        "query_model_index": live if live in attached else "",
    }


def attach_query_model_to(
    settings: Settings, generation: str, embedder: Embedder, client: OpenSearch
) -> str:
    """A new generation gets the query model already registered for its embedder (by
    the last admin run or `chunkwise local up`); returns its id, "" if there is none."""
    from chunkwise.adapters.opensearch.query_model import attach_query_model, find_model_for

    # Serverless collections have no ML Commons connectors.
    if settings.opensearch_auth == "sigv4-aoss" or not has_ml_commons(client):
        return ""
    spec = query_model_spec(embedder)
    model_id = find_model_for(client, settings.index_prefix, spec)
    if model_id:
        attach_query_model(client, settings.names.index(generation), model_id, spec)
    return model_id or ""


def setup_bedrock_query_model(
    settings: Settings, *, client: OpenSearch | None = None, embedder: Embedder | None = None
) -> dict[str, str]:
    """AWS: the Bedrock connector for the model ingestion uses, then `setup_query_model`."""
    from chunkwise.embedding.embed import get_embedder
    from chunkwise.errors import ConfigError
    from chunkwise.search.query_model import bedrock_connector_body

    emb = embedder or get_embedder(settings.embedder)
    if not settings.embedder.startswith("bedrock:"):
        raise ConfigError(f"CHUNKWISE_EMBEDDER {settings.embedder!r} is not a Bedrock model")
    if not settings.query_connector_role_arn:
        raise ConfigError("CHUNKWISE_QUERY_CONNECTOR_ROLE_ARN: the role OpenSearch assumes")
    connector = bedrock_connector_body(
        emb.name,
        emb.dimension,
        region=settings.region,
        role_arn=settings.query_connector_role_arn,
    )
    return setup_query_model(settings, connector, query_model_spec(emb), client=client)


def setup_local_query_model(
    settings: Settings,
    endpoint_url: str,
    *,
    client: OpenSearch | None = None,
    embedder: Embedder | None = None,
) -> dict[str, str]:
    """Local node: the connector to chunkwise's loopback endpoint, then `setup_query_model`."""
    from chunkwise.embedding.embed import get_embedder
    from chunkwise.search.query_model import local_connector_body

    spec = query_model_spec(embedder or get_embedder(settings.embedder))
    connector = local_connector_body(spec, endpoint_url)
    return setup_query_model(settings, connector, spec, client=client)
