"""Admin function: CloudFormation custom resource that sets up the index.

Create/Update: index template, first generation with read/write aliases (only if
no generation is live yet), search pipeline; then, on a managed domain, the query
model: an ML Commons connector to the Bedrock model ingestion uses (signed with
CHUNKWISE_QUERY_CONNECTOR_ROLE_ARN), registered and deployed, recorded in the live
generation's ``_meta.query_model_id`` and its default search pipeline, and returned
as the ``QueryModelId`` attribute; with CHUNKWISE_RERANK_MODEL set, the reranker: an ML
Commons connector to that Bedrock rerank model (CHUNKWISE_RERANK_REGION, signed with
CHUNKWISE_RERANK_CONNECTOR_ROLE_ARN) and the raw clients' ``<prefix>-rerank`` pipeline,
returned as ``RerankModelId`` (always present: "" without a reranker) and
``RerankPipeline``. Idempotent: re-running changes nothing that exists.
Delete: keeps the data (indexes hold the audit trail) and reports success. Every
invocation sends a response to CloudFormation, also on failure, so a stack never
hangs waiting for it.

ResourceProperties: ``IndexPrefix`` (optional, defaults to CHUNKWISE_INDEX_PREFIX),
``Generation`` (optional id of the first generation).
"""

from __future__ import annotations

import json
import urllib.request
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Tracer

from chunkwise.settings import AdminSettings, load_settings

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

logger = Logger(service="chunkwise-admin")
tracer = Tracer(service="chunkwise-admin")

SETTINGS: AdminSettings = load_settings(AdminSettings)


def send_response(
    event: dict[str, Any],
    status: str,
    *,
    physical_id: str,
    data: dict[str, Any] | None = None,
    reason: str = "",
) -> None:
    """PUT the result to the pre-signed ResponseURL (what cfn-response does)."""
    body = json.dumps(
        {
            "Status": status,
            "Reason": (reason or f"see CloudWatch logs of {SETTINGS.index_prefix} admin")[:3000],
            "PhysicalResourceId": physical_id,
            "StackId": event["StackId"],
            "RequestId": event["RequestId"],
            "LogicalResourceId": event["LogicalResourceId"],
            "NoEcho": False,
            "Data": {k: str(v) for k, v in (data or {}).items()},
        }
    ).encode("utf-8")
    req = urllib.request.Request(
        event["ResponseURL"],
        data=body,
        method="PUT",
        headers={"content-type": "", "content-length": str(len(body))},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        logger.info("cfn response sent", extra={"status": status, "http": resp.status})


def handle(event: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    from chunkwise.wiring import ensure_index

    props = event.get("ResourceProperties") or {}
    settings = SETTINGS
    if props.get("IndexPrefix"):
        settings = settings.model_copy(update={"index_prefix": str(props["IndexPrefix"])})
    physical_id = f"chunkwise-index-{settings.index_prefix}"
    if event["RequestType"] == "Delete":
        return physical_id, {}
    info = ensure_index(settings, generation=props.get("Generation") or None)
    info.update(setup_query_model(settings))
    info.update(setup_rerank_model(settings))
    return physical_id, info


def setup_query_model(settings: AdminSettings) -> dict[str, Any]:
    """The cluster's query model (managed domains only: no connector role, no model)."""
    if not settings.query_connector_role_arn:
        return {}
    from chunkwise.wiring import setup_bedrock_query_model

    info = setup_bedrock_query_model(settings)
    return {**info, "QueryModelId": info["query_model_id"]}


def setup_rerank_model(settings: AdminSettings) -> dict[str, Any]:
    """The reranker (only when the stack names a Bedrock rerank model)."""
    if not settings.rerank_model:
        return {"RerankModelId": ""}
    from chunkwise.wiring import setup_bedrock_rerank

    info = setup_bedrock_rerank(settings)
    return {
        **info,
        "RerankModelId": info["rerank_model_id"],
        "RerankPipeline": info["rerank_pipeline"],
    }


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    physical_id = str(event.get("PhysicalResourceId") or f"chunkwise-index-{SETTINGS.index_prefix}")
    try:
        physical_id, data = handle(event)
    except Exception as exc:  # report every failure to CloudFormation, then log it
        logger.exception("index setup failed")
        send_response(
            event, "FAILED", physical_id=physical_id, reason=f"{type(exc).__name__}: {exc}"
        )
        return {"Status": "FAILED", "Reason": str(exc)}
    send_response(event, "SUCCESS", physical_id=physical_id, data=data)
    return {"Status": "SUCCESS", "PhysicalResourceId": physical_id, "Data": data}
