"""The deploy-time index setup: what the admin function and `chunkwise local up` run
once (index template, first generation, aliases, search pipelines, the cluster's
query model)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from chunkwise.index.generation_model import GenerationModel
from chunkwise.wiring.clients import opensearch_client

if TYPE_CHECKING:
    from chunkwise.adapters.opensearch.client import Client
    from chunkwise.embedding.embed import Embedder
    from chunkwise.search.query_model import QueryModelSpec
    from chunkwise.settings import AdminSettings, OpenSearchSettings

log = logging.getLogger("chunkwise.wiring")


def ensure_index(
    settings: AdminSettings,
    *,
    generation: str | None = None,
    client: Client | None = None,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Idempotent index setup: index template, first generation + aliases, search pipelines
    (`chunkwise.adapters.opensearch.search.ensure_search_pipelines`, the deploy-time step the
    read-only query path relies on).

    Creates nothing that exists already; a live generation is left as it is.
    """
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.adapters.opensearch.search import ensure_search_pipelines
    from chunkwise.index.generation_model import model_mismatch
    from chunkwise.index.names import new_generation_id
    from chunkwise.wiring.embedders import embedder_for

    client = client or opensearch_client(settings)
    names = settings.names
    emb = embedder or embedder_for(settings)
    ix = OpenSearchIndex(client, names)
    # The same settings + mapping for every generation of this prefix.
    layout = {"shards": settings.index_shards, "replicas": settings.index_replicas}
    ix.ensure_template(**layout)
    model = GenerationModel.of(emb)
    live = ix.ensure_live_generation(
        generation or new_generation_id(),
        dimension=emb.dimension,
        embedder_name=emb.name,
        tokenizer_id=model.tokenizer,
        **layout,
    )
    _, meta = ix.generation_meta(live)
    mismatch = model_mismatch(meta, live, model)
    if mismatch:  # stays live (no downtime); writes and vector queries refuse it
        log.warning("%s", mismatch)
    pipeline = ensure_search_pipelines(client, spec=settings.fusion_spec)
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
        **layout,
        "fusion": settings.fusion,
    }


# --------------------------------------------------------------------------- query model
# The cluster embeds `neural` queries itself through an ML Commons remote model
# (chunkwise.search.query_model). Kept apart from `ensure_index`: it is a second setup step.


def query_model_spec(embedder: Embedder) -> QueryModelSpec:
    from chunkwise.embedding.embed import query_prefix
    from chunkwise.search.query_model import QueryModelSpec

    return QueryModelSpec(embedder.name, embedder.dimension, query_prefix(embedder))


def has_ml_commons(client: Client) -> bool:
    plugins = client.cat.plugins(format="json")
    return any(str(p.get("component", "")) == "opensearch-ml" for p in plugins)


def setup_query_model(
    settings: AdminSettings,
    connector: dict[str, Any],
    spec: QueryModelSpec,
    *,
    client: Client | None = None,
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
            pipeline = attach_query_model(client, index, model_id, spec, settings.fusion_spec)
            attached.append(index)
    return {
        "query_model_id": model_id,
        "query_pipeline": pipeline,
        "query_model_index": live if live in attached else "",
    }


def attach_query_model_to(
    settings: OpenSearchSettings, generation: str, embedder: Embedder, client: Client
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
        attach_query_model(
            client, settings.names.index(generation), model_id, spec, settings.fusion_spec
        )
    return model_id or ""


def setup_bedrock_query_model(
    settings: AdminSettings, *, client: Client | None = None, embedder: Embedder | None = None
) -> dict[str, str]:
    """AWS: the Bedrock connector for the model ingestion uses, then `setup_query_model`."""
    from chunkwise.errors import ConfigError
    from chunkwise.search.query_model import bedrock_connector_body
    from chunkwise.wiring.embedders import embedder_for

    emb = embedder or embedder_for(settings)
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
    settings: AdminSettings,
    endpoint_url: str,
    *,
    client: Client | None = None,
    embedder: Embedder | None = None,
) -> dict[str, str]:
    """Local node: the connector to chunkwise's loopback endpoint, then `setup_query_model`."""
    from chunkwise.search.query_model import local_connector_body
    from chunkwise.wiring.embedders import embedder_for

    spec = query_model_spec(embedder or embedder_for(settings))
    connector = local_connector_body(spec, endpoint_url)
    return setup_query_model(settings, connector, spec, client=client)
