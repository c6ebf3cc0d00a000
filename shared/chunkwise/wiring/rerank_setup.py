"""The deploy-time rerank setup: the rerank model's connector and the raw clients' rerank
pipeline (`chunkwise.search.rerank`), run by the admin custom resource on AWS and by
`chunkwise local` / the tests on the local node. Idempotent, like the query model's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chunkwise.wiring.clients import opensearch_client

if TYPE_CHECKING:
    from chunkwise.adapters.opensearch.client import Client
    from chunkwise.search.rerank import RerankConfig
    from chunkwise.settings import AdminSettings, QuerySettings


def setup_rerank(
    settings: AdminSettings,
    connector: dict[str, Any],
    description: str,
    *,
    client: Client | None = None,
) -> dict[str, str]:
    """Register + deploy the rerank model behind ``connector``; PUT the ``<prefix>-rerank``
    pipeline (the configured fusion, the live generation's query model for ``neural``
    clauses, then the rerank processor)."""
    from chunkwise.adapters.opensearch.query_model import generation_query_model
    from chunkwise.adapters.opensearch.rerank import ensure_rerank_model, ensure_rerank_pipeline
    from chunkwise.search.rerank import rerank_pipeline_name

    client = client or opensearch_client(settings)
    model_id = ensure_rerank_model(client, settings.index_prefix, connector, description)
    query_model = generation_query_model(client, settings.names.read_alias) or ""
    pipeline = ensure_rerank_pipeline(
        client,
        model_id,
        settings.fusion_spec.pipeline_body(),
        name=rerank_pipeline_name(settings.index_prefix),
        query_model_id=query_model,
    )
    return {"rerank_model_id": model_id, "rerank_pipeline": pipeline}


def setup_bedrock_rerank(
    settings: AdminSettings, *, client: Client | None = None
) -> dict[str, str]:
    """AWS: the connector to the Bedrock rerank model (``CHUNKWISE_RERANK_MODEL``, in
    ``CHUNKWISE_RERANK_REGION`` or the stack's region), then `setup_rerank`."""
    from chunkwise.errors import ConfigError
    from chunkwise.search.rerank import bedrock_rerank_connector_body

    if not settings.rerank_connector_role_arn:
        raise ConfigError("CHUNKWISE_RERANK_CONNECTOR_ROLE_ARN: the role OpenSearch assumes")
    region = settings.rerank_region or settings.region
    connector = bedrock_rerank_connector_body(
        settings.rerank_model,
        region=region,
        role_arn=settings.rerank_connector_role_arn,
        timeout_ms=settings.rerank_timeout_ms,
    )
    return setup_rerank(
        settings, connector, f"bedrock {settings.rerank_model} in {region}", client=client
    )


def setup_local_rerank(
    settings: AdminSettings,
    endpoint_url: str,
    *,
    scorer: str = "overlap",
    client: Client | None = None,
) -> dict[str, str]:
    """Local node: the connector to the loopback rerank endpoint, then `setup_rerank`."""
    from chunkwise.search.rerank import local_rerank_connector_body

    connector = local_rerank_connector_body(
        endpoint_url, scorer, timeout_ms=settings.rerank_timeout_ms
    )
    return setup_rerank(settings, connector, f"loopback {scorer}", client=client)


def rerank_config(settings: QuerySettings) -> RerankConfig:
    """The query function's rerank stage from its settings (off without a model id)."""
    from chunkwise.search.rerank import RerankConfig

    return RerankConfig(
        model_id=settings.rerank_model_id,
        depth=settings.rerank_depth,
        timeout_ms=settings.rerank_timeout_ms,
    )
