"""Maintenance over the real adapters: the reconcile sweep, retention, re-chunk.

Used by the reconcile function and by `chunkwise local|reconcile`; each builds what it
needs (S3, SQS, OpenSearch, the pipeline) and runs the pure steps of
`chunkwise.ingest.maintenance`. The OpenSearch adapters are imported where they are
used: importing the package at a function's cold start stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chunkwise.adapters.s3 import S3Bucket
from chunkwise.adapters.sqs import SqsQueue
from chunkwise.errors import ConfigError
from chunkwise.index.generation_model import GenerationModel
from chunkwise.ingest.maintenance import (
    GenerationCheck,
    RetentionResult,
    SweepResult,
    apply_retention,
    fan_out_rechunk,
    sweep,
    verify_generation,
)
from chunkwise.wiring.clients import opensearch_client, opensearch_index
from chunkwise.wiring.index_setup import attach_query_model_to
from chunkwise.wiring.pipeline import build_pipeline, pipeline_config

if TYPE_CHECKING:
    from chunkwise.adapters.opensearch.client import Client
    from chunkwise.adapters.opensearch.live_set import OpenSearchLiveSet
    from chunkwise.embedding.embed import Embedder
    from chunkwise.settings import ReconcileSettings


def live_set(
    settings: ReconcileSettings, generation: str | None = None, client: Client | None = None
) -> OpenSearchLiveSet:
    from chunkwise.adapters.opensearch.live_set import OpenSearchLiveSet

    return OpenSearchLiveSet(opensearch_index(settings, generation, client), settings.bucket)


def run_sweep(
    settings: ReconcileSettings,
    *,
    enqueue: bool,
    s3_client: Any | None = None,
    os_client: Client | None = None,
    embedder: Embedder | None = None,
) -> SweepResult:
    """Reconcile sweep; ``enqueue`` sends one message per drifted key to the queue."""
    client = os_client or opensearch_client(settings)
    config = pipeline_config(settings)
    store = S3Bucket(config.bucket, s3_client)
    if enqueue:
        if not settings.queue_url:
            raise ConfigError("CHUNKWISE_QUEUE_URL: needed to enqueue reconcile messages")
        return sweep(
            config, store, live_set(settings, None, client), queue=SqsQueue(settings.queue_url)
        )
    pipeline = build_pipeline(settings, s3_client=s3_client, os_client=client, embedder=embedder)
    return sweep(config, store, live_set(settings, None, client), pipeline=pipeline)


def run_retention(
    settings: ReconcileSettings,
    older_than: str | None = None,
    *,
    s3_client: Any | None = None,
    os_client: Client | None = None,
) -> RetentionResult:
    """The retention step: chunks and artifacts of revisions deleted or superseded
    longer than ``older_than`` (default: the ``retention`` setting) ago."""
    from chunkwise.index.revision_queries import parse_duration_seconds

    config = pipeline_config(settings)
    return apply_retention(
        config,
        opensearch_index(settings, None, os_client),
        S3Bucket(config.artifacts_location, s3_client),
        parse_duration_seconds(older_than or settings.retention),
    )


def start_rechunk(
    settings: ReconcileSettings,
    generation: str | None = None,
    *,
    s3_client: Any | None = None,
    os_client: Client | None = None,
    embedder: Embedder | None = None,
) -> tuple[str, int]:
    """Create a new generation index and enqueue one rechunk message per object."""
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.index.names import new_generation_id
    from chunkwise.wiring.embedders import embedder_for

    if not settings.queue_url:
        raise ConfigError("CHUNKWISE_QUEUE_URL: the re-chunk fan-out needs the ingest queue")
    client = os_client or opensearch_client(settings)
    emb = embedder or embedder_for(settings)
    gen = generation or new_generation_id()
    OpenSearchIndex(client, settings.names).create_generation(
        gen,
        dimension=emb.dimension,
        embedder_name=emb.name,
        tokenizer_id=GenerationModel.of(emb).tokenizer,
        shards=settings.index_shards,
        replicas=settings.index_replicas,
    )
    attach_query_model_to(settings, gen, emb, client)
    config = pipeline_config(settings)
    store = S3Bucket(config.bucket, s3_client)
    n = fan_out_rechunk(config, store, SqsQueue(settings.queue_url), gen)
    return gen, n


def finish_rechunk(
    settings: ReconcileSettings,
    generation: str,
    *,
    force: bool = False,
    s3_client: Any | None = None,
    os_client: Client | None = None,
) -> GenerationCheck:
    """Swap both aliases to ``generation`` if it holds exactly the bucket's current
    revisions (or ``force``); otherwise leave the live generation alone."""
    from chunkwise.adapters.opensearch.index import OpenSearchIndex

    client = os_client or opensearch_client(settings)
    config = pipeline_config(settings)
    store = S3Bucket(config.bucket, s3_client)
    check = verify_generation(config, store, live_set(settings, generation, client), generation)
    if check.complete or force:
        OpenSearchIndex(client, settings.names).swap(generation)
    return check
