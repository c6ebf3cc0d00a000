"""template.yaml: the reranker is off by default, its role may invoke one rerank model,
and the query function gets the model the custom resource deployed (#29)."""

from __future__ import annotations

from typing import Any

import yaml

from tests.unit.test_template_query_model import TEMPLATE, _CfnLoader


def _doc() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.load(TEMPLATE.read_text(encoding="utf-8"), Loader=_CfnLoader)
    return doc


def test_reranking_is_off_until_a_model_is_named() -> None:
    doc = _doc()
    p = doc["Parameters"]
    assert p["RerankModel"]["Default"] == ""
    assert p["RerankModel"]["AllowedValues"] == ["", "cohere.rerank-v3-5:0", "amazon.rerank-v1:0"]
    assert (p["RerankDepth"]["MinValue"], p["RerankDepth"]["MaxValue"]) == (20, 50)
    # The stack runs on managed domains only (Serverless is refused), where ML Commons
    # connectors exist: naming a model is the whole condition.
    assert doc["Conditions"]["UseRerank"] == {"Not": [{"Equals": [{"Ref": "RerankModel"}, ""]}]}
    for name in ("RerankConnectorRole",):
        assert doc["Resources"][name]["Condition"] == "UseRerank"
    assert doc["Outputs"]["RerankModelId"]["Condition"] == "UseRerank"


def test_rerank_role_may_invoke_only_the_rerank_model_in_its_region() -> None:
    role = _doc()["Resources"]["RerankConnectorRole"]["Properties"]
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "opensearchservice.amazonaws.com"}
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}}
    (statement,) = [s for p in role["Policies"] for s in p["PolicyDocument"]["Statement"]]
    assert statement["Action"] == "bedrock:InvokeModel"
    arn, values = statement["Resource"]["Sub"]
    assert arn == "arn:${AWS::Partition}:bedrock:${Region}::foundation-model/${RerankModel}"
    assert values["Region"]["If"] == [
        "RerankInStackRegion",
        {"Ref": "AWS::Region"},
        {"Ref": "RerankRegion"},
    ]


def test_admin_passes_only_the_rerank_role_and_the_query_function_gets_the_model() -> None:
    res = _doc()["Resources"]
    admin = res["AdminFunction"]["Properties"]
    env = admin["Environment"]["Variables"]
    assert env["CHUNKWISE_RERANK_MODEL"] == {"If": ["UseRerank", {"Ref": "RerankModel"}, ""]}
    statements = admin["Policies"][0]["Statement"]
    passes = [s["If"][1] for s in statements if "If" in s and s["If"][0] == "UseRerank"]
    assert passes == [
        {
            "Sid": "PassRerankConnectorRole",
            "Effect": "Allow",
            "Action": "iam:PassRole",
            "Resource": {"GetAtt": "RerankConnectorRole.Arn"},
            "Condition": {
                "StringEquals": {"iam:PassedToService": "opensearchservice.amazonaws.com"}
            },
        }
    ]
    query = res["QueryFunction"]["Properties"]["Environment"]["Variables"]
    assert query["CHUNKWISE_RERANK_MODEL_ID"] == {
        "If": ["UseRerank", {"GetAtt": "SearchIndex.RerankModelId"}, ""]
    }
    assert query["CHUNKWISE_RERANK_DEPTH"] == {"Ref": "RerankDepth"}
    # a new rerank model re-runs the custom resource
    props = res["SearchIndex"]["Properties"]
    assert props["RerankModel"] == {"If": ["UseRerank", {"Ref": "RerankModel"}, ""]}
