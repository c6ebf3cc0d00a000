"""The composition root: what builds the core's ports from settings and adapters.

- `clients`: the configured OpenSearch client and index adapter;
- `pipeline`: the pipeline's configuration from the settings (`pipeline_config`,
  checked at the functions' cold start) and the production pipeline;
- `index_setup`: the deploy-time index setup and the cluster's query model;
- `rerank_setup`: the rerank model and the raw clients' rerank pipeline;
- `operations`: the sweep, retention and re-chunk over the real adapters.

This module only re-exports, so that ``from chunkwise.wiring import ...`` names what
callers need without knowing the submodule.
"""

from chunkwise.wiring.clients import opensearch_client, opensearch_index
from chunkwise.wiring.index_setup import (
    attach_query_model_to,
    ensure_index,
    has_ml_commons,
    query_model_spec,
    setup_bedrock_query_model,
    setup_local_query_model,
    setup_query_model,
)
from chunkwise.wiring.pipeline import build_pipeline, pipeline_config
from chunkwise.wiring.rerank_setup import (
    rerank_config,
    setup_bedrock_rerank,
    setup_local_rerank,
    setup_rerank,
)

__all__ = [
    "attach_query_model_to",
    "build_pipeline",
    "ensure_index",
    "has_ml_commons",
    "opensearch_client",
    "opensearch_index",
    "pipeline_config",
    "query_model_spec",
    "rerank_config",
    "setup_bedrock_query_model",
    "setup_bedrock_rerank",
    "setup_local_query_model",
    "setup_local_rerank",
    "setup_query_model",
    "setup_rerank",
]
