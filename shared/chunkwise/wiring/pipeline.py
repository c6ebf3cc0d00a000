"""The production pipeline: its configuration from the settings, boto3 S3, OpenSearch
and the configured embedder.

`pipeline_config` is where the settings' plain values become the ingest's own
`PipelineConfig` and its rules are checked (artifacts never where the trigger
listens, ...). The ingest and reconcile functions call it at cold start, right
after `load_settings`, so a bad combination of variables still fails the start.

The ingest modules are imported where they are used: a function that only needs
the OpenSearch client (the query function) never loads the ingest path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chunkwise.adapters.boto import boto_client
from chunkwise.adapters.s3 import S3Bucket
from chunkwise.index.generation_model import GenerationModel
from chunkwise.wiring.clients import opensearch_client, opensearch_index

if TYPE_CHECKING:
    from chunkwise.adapters.opensearch.client import Client
    from chunkwise.embedding.embed import Embedder
    from chunkwise.ingest.config import PipelineConfig
    from chunkwise.ingest.pipeline import Pipeline
    from chunkwise.settings import IngestSettings, SourceSettings


def pipeline_config(settings: SourceSettings) -> PipelineConfig:
    """The pipeline's configuration from the settings; ConfigError names the bad value."""
    from chunkwise.ingest.config import build_config

    values: dict[str, Any] = {
        "bucket": settings.bucket,
        "input_prefix": settings.input_prefix,
        "artifacts_bucket": settings.artifacts_bucket,
        "artifacts_prefix": settings.artifacts_prefix,
        "max_object_bytes": settings.max_object_bytes,
        "max_chunks_per_document": settings.max_chunks_per_document,
        "max_tokens_per_document": settings.max_tokens_per_document,
        "readers_key": settings.readers_key,
    }
    if settings.allowed_suffixes is not None:  # None: the pipeline's default types
        values["allowed_suffixes"] = settings.allowed_suffixes
    return build_config(**values)


def build_pipeline(
    settings: IngestSettings,
    *,
    s3_client: Any | None = None,
    os_client: Client | None = None,
    embedder: Embedder | None = None,
) -> Pipeline:
    """The production pipeline: boto3 S3, OpenSearch, the configured embedder."""
    from chunkwise.ingest.pipeline import Pipeline
    from chunkwise.wiring.embedders import embedder_for

    config = pipeline_config(settings)
    client = os_client or opensearch_client(settings)
    s3 = boto_client("s3", s3_client)
    from chunkwise.adapters.opensearch.switch import OpenSearchSwitchIndex

    indexes: dict[str | None, OpenSearchSwitchIndex] = {}
    emb = embedder or embedder_for(settings)
    model = GenerationModel.of(emb)

    def index_for(generation: str | None) -> OpenSearchSwitchIndex:
        if generation not in indexes:
            index = opensearch_index(settings, generation, client, model)
            indexes[generation] = OpenSearchSwitchIndex(index)
        return indexes[generation]

    ocr = None
    if settings.ocr == "textract":
        from chunkwise.adapters.textract import textract_ocr

        ocr = textract_ocr(settings.region or None)
    return Pipeline(
        config,
        store=S3Bucket(config.bucket, s3),
        artifacts=S3Bucket(config.artifacts_location, s3),
        index_for=index_for,
        embedder=emb,
        ocr=ocr,
    )
