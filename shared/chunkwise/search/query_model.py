"""The cluster's query model: ML Commons request bodies (pure; no I/O).

A ``neural`` query with ``query_text`` makes OpenSearch embed the query itself, through
an ML Commons *remote model* whose *connector* calls the embedding model. For that
vector to land in the index's vector space, the connector must call the SAME model
that filled the generation, with the same options and the same query prefix:

- AWS: Bedrock, the model ingestion uses (Titan Text Embeddings v2 with the same
  ``dimensions`` and ``normalize: true``; Cohere Embed Multilingual v3 with
  ``input_type: search_query``, which is what `CohereMultilingualV3Embedder.embed_query`
  sends), signed with an IAM role the domain assumes.
- Local: chunkwise's loopback endpoint (`chunkwise.localstack.embed_endpoint`) serving the local
  model through `Embedder.embed_query`, which adds the model's query prefix
  (``"query: "`` for E5 models); the request template declares that prefix (from the
  model spec) and the endpoint refuses any other, so a stale connector fails loudly.

Every generation records the model id that serves its queries (``_meta.query_model_id``)
and gets a default search pipeline (``index.search.default_pipeline``) that fills in that
model id for ``neural`` clauses and fuses a ``hybrid`` query by RRF, so a plain hybrid
query works without naming a pipeline or a model. A different model means a different
vector space, hence a new generation: a model id is only attached to a generation filled
by the same embedder.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from chunkwise.errors import ConfigError
from chunkwise.search.fusion import DEFAULT_FUSION, FusionSpec

LOCAL_PRE_PROCESS = "connector.pre_process.cohere.embedding"
LOCAL_POST_PROCESS = "connector.post_process.cohere.embedding"
RRF_RANK_CONSTANT = 60


@dataclass(frozen=True)
class QueryModelSpec:
    """What the connector must reproduce: the generation's embedder and its query side."""

    embedder: str  # Embedder.name, as recorded in the generation's _meta
    dimension: int
    query_prefix: str = ""


def _digest(body: dict[str, Any]) -> str:
    raw = json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()[:12]


def model_name(prefix: str, connector: dict[str, Any]) -> str:
    """One name per index prefix and connector content: a changed endpoint, model or
    prefix is a different name (a new model), an unchanged one is found again."""
    return f"{prefix}{MODEL_NAME_INFIX}{_digest(connector)}"


def local_connector_body(spec: QueryModelSpec, endpoint_url: str) -> dict[str, Any]:
    """Connector to the loopback endpoint; its request template declares the query
    prefix it was built for (the endpoint checks it against the served model)."""
    if not endpoint_url.startswith("http://127.0.0.1:"):
        raise ConfigError(f"the local connector only calls 127.0.0.1, not {endpoint_url!r}")
    return {
        "name": f"chunkwise local {spec.embedder}",
        "description": f"chunkwise loopback endpoint: {spec.embedder} ({spec.dimension}d)",
        "version": 1,
        "protocol": "http",
        "parameters": {
            "endpoint": endpoint_url,
            "model": spec.embedder,
            "query_prefix": spec.query_prefix,
        },
        # ML Commons requires a credential; the loopback endpoint takes none.
        "credential": {"unused": "loopback endpoint, no key"},
        "actions": [
            {
                "action_type": "predict",
                "method": "POST",
                "url": "${parameters.endpoint}/embed",
                "headers": {"content-type": "application/json"},
                "request_body": (
                    '{ "prefix": "${parameters.query_prefix}", "texts": ${parameters.texts} }'
                ),
                # The endpoint answers in Cohere's shape ({"embeddings": [[...]]}), so
                # ML Commons' built-in Cohere scripts map texts in and vectors out.
                "pre_process_function": LOCAL_PRE_PROCESS,
                "post_process_function": LOCAL_POST_PROCESS,
            }
        ],
    }


TITAN_V2 = "amazon.titan-embed-text-v2:0"
COHERE_MULTI_V3 = "cohere.embed-multilingual-v3"


def bedrock_request(model: str, dimension: int) -> tuple[str, str, str]:
    """(request body template, pre-process, post-process) matching chunkwise.adapters.bedrock."""
    if model == TITAN_V2:
        body = json.dumps({"dimensions": dimension, "normalize": True})
        template = '{ "inputText": "${parameters.inputText}", ' + body[1:]
        return (
            template,
            "connector.pre_process.bedrock.embedding",
            "connector.post_process.bedrock.embedding",
        )
    if model == COHERE_MULTI_V3:
        if dimension != 1024:
            raise ConfigError(f"{model} has 1024 dimensions, not {dimension}")
        template = (
            '{ "texts": ${parameters.texts}, "input_type": "search_query", "truncate": "NONE" }'
        )
        return (
            template,
            "connector.pre_process.cohere.embedding",
            "connector.post_process.cohere.embedding",
        )
    raise ConfigError(f"no Bedrock connector for embedding model {model!r}")


def bedrock_connector_body(
    model: str, dimension: int, *, region: str, role_arn: str
) -> dict[str, Any]:
    """Connector to the Bedrock model ingestion uses, signed with ``role_arn``."""
    if not region or not role_arn:
        raise ConfigError("a Bedrock connector needs the region and the role OpenSearch assumes")
    template, pre, post = bedrock_request(model, dimension)
    return {
        "name": f"chunkwise bedrock {model}",
        "description": f"chunkwise query embeddings: {model} ({dimension}d)",
        "version": 1,
        "protocol": "aws_sigv4",
        "parameters": {"region": region, "service_name": "bedrock", "model": model},
        "credential": {"roleArn": role_arn},
        "actions": [
            {
                "action_type": "predict",
                "method": "POST",
                "url": "https://bedrock-runtime.${parameters.region}.amazonaws.com"
                "/model/${parameters.model}/invoke",
                "headers": {"content-type": "application/json", "x-amz-content-sha256": "required"},
                "request_body": template,
                "pre_process_function": pre,
                "post_process_function": post,
            }
        ],
    }


MODEL_NAME_INFIX = "-query-"


def describe_spec(spec: QueryModelSpec) -> str:
    """The model's description: the spec as JSON, so a later step (a new generation)
    finds the model that serves its embedder without knowing the connector."""
    return json.dumps(
        {"embedder": spec.embedder, "dimension": spec.dimension, "query_prefix": spec.query_prefix},
        sort_keys=True,
    )


def spec_of(description: str) -> QueryModelSpec | None:
    try:
        d = json.loads(description)
        return QueryModelSpec(str(d["embedder"]), int(d["dimension"]), str(d["query_prefix"]))
    except (ValueError, KeyError, TypeError):
        return None


def register_model_body(name: str, connector_id: str, spec: QueryModelSpec) -> dict[str, Any]:
    return {
        "name": name,
        "function_name": "remote",
        "description": describe_spec(spec),
        "connector_id": connector_id,
    }


def pipeline_name(model_id: str) -> str:
    """The default search pipeline of the generations whose queries ``model_id`` serves."""
    return f"chunkwise-query-{model_id.lower()}"


def default_pipeline_body(model_id: str, fusion: FusionSpec = DEFAULT_FUSION) -> dict[str, Any]:
    """Fills in the model id for ``neural`` clauses, fuses ``hybrid`` queries as ``fusion``
    says (the same spec as chunkwise's own fusion, both paths); other queries pass
    unchanged."""
    return {
        "description": f"chunkwise: neural queries embedded by {model_id}, hybrid fused by "
        f"{fusion.name}",
        "request_processors": [{"neural_query_enricher": {"default_model_id": model_id}}],
        "phase_results_processors": [fusion.processor()],
    }


def serves(meta: dict[str, Any], spec: QueryModelSpec) -> bool:
    """Does a generation with this ``_meta`` live in the model's vector space?"""
    embedder = str(meta.get("embedder", ""))
    dimension = int(meta.get("dimension", 0) or 0)
    return embedder == spec.embedder and dimension == spec.dimension


def attach_check(meta: dict[str, Any], spec: QueryModelSpec) -> None:
    """A model may only serve a generation filled by the same embedder (one vector space)."""
    if not serves(meta, spec):
        embedder, dimension = meta.get("embedder", ""), meta.get("dimension", 0)
        raise ConfigError(
            f"the generation was embedded by {embedder!r} ({dimension}d), the query model "
            f"by {spec.embedder!r} ({spec.dimension}d): a model change needs a new generation "
            "(chunkwise reconcile rechunk)"
        )
