"""The OpenSearch side of a local stack: the index generation, the start-up reconcile
against the bucket (`chunkwise.localstack.lifetime`), the cluster's query model, and
their removal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chunkwise.localstack import embed_endpoint
from chunkwise.localstack.config import StackConfig, apply_env, say
from chunkwise.localstack.lifetime import (
    DocumentPlan,
    IndexFound,
    IndexPlan,
    plan_documents,
    plan_index,
)
from chunkwise.localstack.resources import boto
from chunkwise.localstack.services import EMBED_ENDPOINT
from chunkwise.settings import Settings, load_settings

if TYPE_CHECKING:
    from chunkwise.adapters.opensearch.client import Client
    from chunkwise.adapters.opensearch.live_set import OpenSearchLiveSet


def stack_client(cfg: StackConfig) -> tuple[Settings, Client]:
    """The settings of this stack's environment and an OpenSearch client for them."""
    from chunkwise.wiring import opensearch_client

    apply_env(cfg.env())
    settings = load_settings()
    return settings, opensearch_client(settings)


def _live_set(settings: Settings, client: Client, bucket: str) -> OpenSearchLiveSet:
    from chunkwise.adapters.opensearch.live_set import OpenSearchLiveSet
    from chunkwise.wiring import opensearch_index

    return OpenSearchLiveSet(opensearch_index(settings, client=client), bucket)


def index_found(settings: Settings, client: Client, bucket: str) -> IndexFound:
    """This prefix's generations, the live one, and how many live documents it holds
    of this stack's bucket and of other buckets."""
    from chunkwise.wiring import opensearch_index

    ix = opensearch_index(settings, client=client)
    generations, live = tuple(ix.generations()), ix.live_generation()
    if live is None:
        return IndexFound(generations, None, 0, 0)
    live_set = _live_set(settings, client, bucket)
    return IndexFound(generations, live, len(live_set.live_revisions()), live_set.other_documents())


def setup_index(
    cfg: StackConfig, *, bucket_created: bool = False
) -> tuple[dict[str, Any], list[str]]:
    """The live generation, aliases and search pipelines (`wiring.ensure_index`), after
    the start-up decision on what the prefix holds; returns the index facts and notes
    on what was dropped or reused."""
    from chunkwise.wiring import ensure_index, opensearch_index

    settings, client = stack_client(cfg)
    found = index_found(settings, client, cfg.bucket)
    plan: IndexPlan = plan_index(bucket_created, found)
    ix = opensearch_index(settings, client=client)
    for generation in plan.drop:
        ix.drop(generation, force=True)
    info = ensure_index(settings, generation=plan.reuse, client=client)
    cfg.live_index = str(info["live_index"])
    return info, plan.notes(cfg.bucket, found)


def reconcile_documents(cfg: StackConfig) -> DocumentPlan:
    """The index back in line with the bucket: documents the bucket no longer holds
    are retired now (the revision protocol: the pipeline's reconcile of a missing
    key), those it holds but the index lacks are enqueued for the ingest handler."""
    from chunkwise.adapters.sqs import SqsQueue
    from chunkwise.ingest.messages import ObjectChange, change_message
    from chunkwise.wiring import build_pipeline

    settings, client = stack_client(cfg)
    pipeline = build_pipeline(settings, s3_client=boto("s3", cfg), os_client=client)
    config = pipeline.config
    bucket = {
        v.key: v.revision
        for v in pipeline.store.list_current(config.input_prefix)
        if config.watches(v.key)
    }
    live_set = _live_set(settings, client, cfg.bucket)
    live = {k: v for k, v in live_set.live_revisions().items() if config.watches(k)}
    plan = plan_documents(bucket, live, live_set.known_failures())
    for key in plan.retire:
        pipeline.ingest(ObjectChange(cfg.bucket, key, kind="reconcile", raw_key=key))
    if plan.enqueue:
        queue = SqsQueue(cfg.queue_url, boto("sqs", cfg))
        queue.send_batch([change_message(cfg.bucket, k, "reconcile") for k in plan.enqueue])
    return plan


def setup_query_model(cfg: StackConfig, *, start: bool = True) -> str:
    """The cluster embeds queries itself: start the loopback endpoint with the local
    model (``start``; else use it if it answers), wait for ML Commons, register (or
    reuse) the model, attach it to the live generation and embed one probe through
    it. Returns the model id, or "" when the cluster, the embedder or the endpoint
    cannot (said why)."""
    from chunkwise.adapters.opensearch.query_model import (
        index_meta,
        probe_query_model,
        wait_for_ml_commons,
    )
    from chunkwise.wiring import has_ml_commons, setup_local_query_model

    settings, client = stack_client(cfg)
    if not has_ml_commons(client):
        say("no ML Commons plugin on this cluster: neural queries need a query vector")
        return ""
    if settings.embedder.startswith("bedrock:"):
        say("Bedrock embedder: the cluster's connector must call Bedrock (see samdocs)")
        return ""
    if not start and embed_endpoint.probe(embed_endpoint.endpoint_url()) is None:
        say(f"no embedding endpoint at {embed_endpoint.endpoint_url()}: no query model")
        return ""
    cfg.embed_url, started = embed_endpoint.up()
    if started:
        cfg.started_by_up(EMBED_ENDPOINT)
    wait_for_ml_commons(client)
    info = setup_local_query_model(settings, cfg.embed_url, client=client)
    cfg.query_model_id = info["query_model_id"]
    dimension = int(index_meta(client, cfg.live_index).get("dimension") or 0)
    probe_query_model(client, cfg.query_model_id, dimension)
    return cfg.query_model_id


def delete_index_state(cfg: StackConfig, client: Client) -> list[str]:
    """This prefix's query models (with their connectors and pipelines), generation
    indices and index template; nothing of another prefix. Best effort: returns what
    could not be removed."""
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.adapters.opensearch.query_model import delete_query_models
    from chunkwise.index.names import IndexNames, template_name

    failures: list[str] = []
    names = IndexNames(cfg.index_prefix)
    try:
        delete_query_models(client, cfg.index_prefix)
    except Exception as exc:  # best effort: go on with the indices
        failures.append(f"query models: {exc}")
    try:
        ix = OpenSearchIndex(client, names)
        for generation in ix.generations():
            ix.drop(generation, force=True)
        if client.indices.exists_index_template(name=template_name(names)):
            client.indices.delete_index_template(name=template_name(names))
    except Exception as exc:
        failures.append(f"OpenSearch: {exc}")
    return failures
