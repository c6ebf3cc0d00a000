"""Each function's calls to AWS as (action, resource), in one place: what its role
must allow, and what it must not be able to do.

The deploy tests (tests/deploy/test_wiring_deployed.py) evaluate these against the
policies read back from the deployed stack's IAM; tests/unit/test_deploy_calls.py
evaluates them against template.yaml's policies (and broken variants of them) and
ties the list to the adapters: every boto3 operation the shipped code calls maps to
an action listed here, and every S3/SQS action listed here is called by the code or
by the Lambda service for the function (the SQS event source).

Resources are templates over the stack's names (``Names``). OpenSearch requests are
es:ESHttp<Method> on ``{domain}/<path>`` (how the domain's IAM authorises them).
"""

from __future__ import annotations

from dataclasses import dataclass

INGEST, QUERY, RECONCILE, ADMIN = (
    "IngestFunction",
    "QueryFunction",
    "ReconcileFunction",
    "AdminFunction",
)
FUNCTIONS = (INGEST, QUERY, RECONCILE, ADMIN)


@dataclass(frozen=True)
class Names:
    """The deployed names a resource template is filled with."""

    bucket: str
    input_prefix: str
    artifacts_bucket: str
    artifacts_prefix: str
    queue_arn: str
    dlq_arn: str
    domain_arn: str
    region: str
    embedding_model: str
    index_prefix: str
    query_connector_role_arn: str


@dataclass(frozen=True)
class Call:
    action: str
    resource: str  # a str.format template over Names' fields
    why: str
    context: tuple[tuple[str, str], ...] = ()
    # "code": an adapter's boto3 call; "lambda": the Lambda service for the function
    # with the function's role (the SQS event source polls and deletes).
    by: str = "code"

    def arn(self, n: Names) -> str:
        return self.resource.format(**vars(n))


_DOC = "arn:aws:s3:::{bucket}/{input_prefix}manual.pdf"
_ART = "arn:aws:s3:::{artifacts_bucket}/{artifacts_prefix}ab12/v1.json"
_MODEL = "arn:aws:bedrock:{region}::foundation-model/{embedding_model}"

# What each function does: its role must allow every one of these.
NEEDED: dict[str, tuple[Call, ...]] = {
    INGEST: (
        Call("s3:GetObject", _DOC, "extract: the uploaded object (adapters/s3.py get_object)"),
        Call("s3:GetObjectVersion", _DOC, "extract: the notified version (get_object VersionId)"),
        Call("s3:ListBucketVersions", "arn:aws:s3:::{bucket}", "reconcile a key's versions"),
        Call("s3:ListBucket", "arn:aws:s3:::{bucket}", "head_object's 404 rather than 403"),
        Call("s3:PutObject", _ART, "the extracted text artifact"),
        Call("s3:GetObject", _ART, "the artifact of an unchanged revision"),
        Call("sqs:ReceiveMessage", "{queue_arn}", "the SQS event source", by="lambda"),
        Call("sqs:DeleteMessage", "{queue_arn}", "the SQS event source", by="lambda"),
        Call("sqs:GetQueueAttributes", "{queue_arn}", "the SQS event source", by="lambda"),
        Call("bedrock:InvokeModel", _MODEL, "passage embeddings"),
        Call("es:ESHttpPost", "{domain_arn}/_bulk", "bulk indexing"),
        Call("es:ESHttpPut", "{domain_arn}/{index_prefix}-g1/_doc/x", "head documents"),
        Call("es:ESHttpDelete", "{domain_arn}/{index_prefix}-g1/_doc/x", "superseded chunks"),
        Call("es:ESHttpGet", "{domain_arn}/_alias/{index_prefix}-live", "the live generation"),
    ),
    QUERY: (
        Call("bedrock:InvokeModel", _MODEL, "the query's embedding"),
        Call("es:ESHttpPost", "{domain_arn}/{index_prefix}-live/_search", "hybrid search"),
        Call(
            "es:ESHttpPost",
            "{domain_arn}/{index_prefix}-live/_search/point_in_time",
            "the search's point in time (adapters/opensearch/snapshot.py create_pit)",
        ),
        Call(
            "es:ESHttpDelete",
            "{domain_arn}/_search/point_in_time",
            "the point in time deleted when done (snapshot.py delete_pit)",
        ),
        Call(
            "es:ESHttpGet",
            "{domain_arn}/_search/pipeline/{index_prefix}-hybrid",
            "server-side fusion available?",
        ),
        Call("es:ESHttpGet", "{domain_arn}/_cat/plugins", "the cluster's capabilities"),
        Call("es:ESHttpHead", "{domain_arn}/{index_prefix}-live", "alias exists"),
    ),
    RECONCILE: (
        Call("s3:ListBucketVersions", "arn:aws:s3:::{bucket}", "the sweep lists every version"),
        Call("s3:ListBucket", "arn:aws:s3:::{bucket}", "the sweep lists the bucket"),
        Call("s3:GetObject", _DOC, "head_object of a key"),
        Call("s3:GetObjectVersion", _DOC, "head of a version"),
        Call(
            "sqs:SendMessage",
            "{queue_arn}",
            "re-chunk fan-out (adapters/sqs.py send_message_batch)",
        ),
        Call("s3:DeleteObject", _ART, "retention erases superseded artifacts (delete_objects)"),
        Call("es:ESHttpPost", "{domain_arn}/{index_prefix}-live/_search", "the live set"),
        Call("es:ESHttpDelete", "{domain_arn}/{index_prefix}-g1", "an old generation"),
        Call("es:ESHttpPut", "{domain_arn}/{index_prefix}-g2", "a new generation"),
    ),
    ADMIN: (
        Call("es:ESHttpPut", "{domain_arn}/_index_template/{index_prefix}", "the index template"),
        Call("es:ESHttpPut", "{domain_arn}/{index_prefix}-g1", "the first generation"),
        Call("es:ESHttpPost", "{domain_arn}/_aliases", "the aliases"),
        Call("es:ESHttpPut", "{domain_arn}/_search/pipeline/{index_prefix}-hybrid", "the pipeline"),
        Call("es:ESHttpPost", "{domain_arn}/_plugins/_ml/connectors/_create", "the query model"),
        Call(
            "iam:PassRole",
            "{query_connector_role_arn}",
            "the connector's role",
            (("iam:PassedToService", "opensearchservice.amazonaws.com"),),
        ),
    ),
}

# What each function must NOT be able to do (least privilege, samdocs/security.md).
DENIED: dict[str, tuple[Call, ...]] = {
    QUERY: (
        Call("s3:GetObject", _DOC, "the query role never reads the raw bucket"),
        Call("s3:GetObject", _ART, "nor the artifacts"),
        Call("es:ESHttpPut", "{domain_arn}/{index_prefix}-g1/_doc/x", "no index write"),
        Call("es:ESHttpPut", "{domain_arn}/_index_template/{index_prefix}", "no template write"),
        Call("es:ESHttpDelete", "{domain_arn}/{index_prefix}-g1", "no index delete"),
        Call("es:ESHttpDelete", "{domain_arn}/{index_prefix}-g1/_doc/x", "no document delete"),
        Call("sqs:SendMessage", "{queue_arn}", "no queue write"),
        Call("iam:PassRole", "{query_connector_role_arn}", "no connector role"),
    ),
    INGEST: (
        Call("s3:PutObject", _DOC, "ingest never writes the raw bucket"),
        Call("s3:DeleteObject", _DOC, "nor deletes from it"),
        Call("s3:GetObject", "arn:aws:s3:::{bucket}/other/manual.pdf", "only under InputPrefix"),
        Call("sqs:SendMessage", "{queue_arn}", "ingest does not fan out"),
        Call("sqs:ReceiveMessage", "{dlq_arn}", "the DLQ is an operator's"),
        Call("iam:PassRole", "{query_connector_role_arn}", "no connector role"),
        Call(
            "bedrock:InvokeModel",
            "arn:aws:bedrock:{region}::foundation-model/other-model",
            "only the configured model",
        ),
    ),
    RECONCILE: (
        Call("s3:PutObject", _DOC, "the sweep never writes the raw bucket"),
        Call("s3:DeleteObject", _DOC, "nor deletes from it"),
        Call("sqs:ReceiveMessage", "{queue_arn}", "it only sends"),
        Call("bedrock:InvokeModel", _MODEL, "it does not embed"),
    ),
    ADMIN: (
        Call("s3:GetObject", _DOC, "the admin step reads no documents"),
        Call("sqs:SendMessage", "{queue_arn}", "nor touches the queue"),
        Call(
            "iam:PassRole",
            "{query_connector_role_arn}",
            "PassRole only to OpenSearch",
            (("iam:PassedToService", "lambda.amazonaws.com"),),
        ),
    ),
}

# Allowed by IAM although the function never needs it: es:ESHttpPost authorises a
# method on a path, and the query role's POST (search, point in time) covers
# ``_bulk`` as well. OpenSearch's own permissions (fine-grained access control) are
# what can refuse it; the deploy tests assert this gap as it is, so a narrower
# policy shows up as a change to make here.
# Granted only under a stack parameter (not in the local deploy's defaults).
CONDITIONAL = {"textract:DetectDocumentText": "the ingest role, with OCR through Textract"}

KNOWN_GAPS: dict[str, tuple[Call, ...]] = {
    QUERY: (Call("es:ESHttpPost", "{domain_arn}/_bulk", "a bulk write is a POST"),),
}
