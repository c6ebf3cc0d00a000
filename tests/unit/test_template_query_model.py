"""template.yaml: the role OpenSearch assumes for query embeddings is scoped to one model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

TEMPLATE = Path(__file__).parents[2] / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    """Reads CloudFormation short forms (!Sub, !If, ...) as {"Fn": value}."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {suffix: value}


_CfnLoader.add_multi_constructor("!", _tag)


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=_CfnLoader)
    return doc


def _resources() -> dict[str, Any]:
    resources: dict[str, Any] = _doc()["Resources"]
    return resources


def test_connector_role_may_invoke_only_the_ingestion_model() -> None:
    role = _resources()["QueryConnectorRole"]["Properties"]
    trust = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust == [
        {
            "Effect": "Allow",
            "Principal": {"Service": "opensearchservice.amazonaws.com"},
            "Action": "sts:AssumeRole",
            "Condition": {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}},
        }
    ]
    statements = [s for p in role["Policies"] for s in p["PolicyDocument"]["Statement"]]
    assert statements == [
        {
            "Sid": "EmbedQuery",
            "Effect": "Allow",
            "Action": "bedrock:InvokeModel",
            "Resource": {
                "Sub": "arn:${AWS::Partition}:bedrock:${AWS::Region}::foundation-model/"
                "${EmbeddingModel}"
            },
        }
    ]


def test_the_admin_function_passes_only_that_role_to_opensearch() -> None:
    admin = _resources()["AdminFunction"]["Properties"]
    statements = admin["Policies"][0]["Statement"]
    passes = [s for s in statements if "If" not in s and s.get("Action") == "iam:PassRole"]
    conditional = [
        s["If"][0] for s in statements if "If" in s and s["If"][1].get("Action") == "iam:PassRole"
    ]
    # the query connector's role always, the rerank connector's when a reranker is named
    # (test_template_rerank.py)
    assert conditional == ["UseRerank"]
    assert passes == [
        {
            "Sid": "PassQueryConnectorRole",
            "Effect": "Allow",
            "Action": "iam:PassRole",
            "Resource": {"GetAtt": "QueryConnectorRole.Arn"},
            "Condition": {
                "StringEquals": {"iam:PassedToService": "opensearchservice.amazonaws.com"}
            },
        }
    ]
    env = admin["Environment"]["Variables"]
    assert env["CHUNKWISE_QUERY_CONNECTOR_ROLE_ARN"] == {"GetAtt": "QueryConnectorRole.Arn"}


def test_no_serverless_option_is_left_but_the_refusal() -> None:
    """OpenSearch Serverless cannot keep the revision protocol (samdocs/architecture.md):
    the only trace of it in the template is the rule that refuses it with the reason."""
    text = TEMPLATE.read_text(encoding="utf-8")
    doc = _doc()
    assert "AossCollectionName" not in doc["Parameters"]
    assert not any(
        r["Type"].startswith("AWS::OpenSearchServerless::") for r in _resources().values()
    )
    assert "aoss:" not in text  # no IAM action, no ARN pattern for a collection
    rule = doc["Rules"]["ServerlessIsRefused"]["Assertions"][0]
    assert rule["Assert"] == {"Equals": [{"Ref": "OpenSearchKind"}, "es"]}
    assert "custom document ids" in rule["AssertDescription"]
    env = doc["Globals"]["Function"]["Environment"]["Variables"]
    assert env["CHUNKWISE_OPENSEARCH_AUTH"] == "sigv4-es"
