"""The role policies of template.yaml, resolved offline for given parameters: what
CloudFormation would create for each function's role, without deploying.

Resolves the intrinsics the template's policies use (Ref, Fn::Sub, Fn::GetAtt .Arn,
Fn::If over the template's Conditions, Fn::Select, Fn::Split, AWS::NoValue) with a
fixed account, region and stack id; anything else raises. The unit tests evaluate
tests/deploy/calls.py against these and against broken variants of them.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
ACCOUNT, REGION, PARTITION = "000000000000", "us-east-1", "aws"
STACK_ID = f"arn:aws:cloudformation:{REGION}:{ACCOUNT}:stack/chunkwise-local/0f1e2d3c"
DOMAIN_ARN = f"arn:aws:es:{REGION}:{ACCOUNT}:domain/chunkwise-local"
NO_VALUE = object()
# The parameters of a stack on an existing domain (the local deploy's case).
EXISTING_DOMAIN = {
    "OpenSearchEndpoint": "https://search.example.com",
    "OpenSearchResourceArn": DOMAIN_ARN,
    "IndexPrefix": "cwdeploy",
}


class _LongFormLoader(yaml.SafeLoader):
    """CloudFormation short tags as their long forms."""


def _tag(loader: Any, suffix: str, node: Any) -> dict[str, Any]:
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{suffix}": value}


_LongFormLoader.add_multi_constructor("!", _tag)


def load_template(path: Path = ROOT / "template.yaml") -> dict[str, Any]:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_LongFormLoader)


class Resolver:
    def __init__(self, tpl: dict[str, Any], overrides: dict[str, str] | None = None) -> None:
        self.tpl = tpl
        self.params = {k: str(v.get("Default", "")) for k, v in tpl["Parameters"].items()}
        self.params.update(overrides or {})
        self.params.update(
            {
                "AWS::AccountId": ACCOUNT,
                "AWS::Region": REGION,
                "AWS::Partition": PARTITION,
                "AWS::StackId": STACK_ID,
                "AWS::StackName": "chunkwise-local",
            }
        )

    def condition(self, name: str) -> bool:
        return bool(self.value(self.tpl["Conditions"][name]))

    def arn(self, logical_id: str) -> str:
        res = self.tpl["Resources"][logical_id]
        kind, props = res["Type"], res.get("Properties", {})
        if kind == "AWS::S3::Bucket":
            return f"arn:aws:s3:::{self.value(props['BucketName'])}"
        if kind == "AWS::SQS::Queue":
            return f"arn:aws:sqs:{REGION}:{ACCOUNT}:{logical_id}"
        if kind == "AWS::IAM::Role":
            return f"arn:aws:iam::{ACCOUNT}:role/{logical_id}"
        if kind == "AWS::Logs::LogGroup":
            return f"arn:aws:logs:{REGION}:{ACCOUNT}:log-group:{logical_id}:*"
        if kind in ("AWS::Serverless::Function", "AWS::Lambda::Function"):
            return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{logical_id}"
        if kind == "AWS::OpenSearchService::Domain":
            return DOMAIN_ARN
        raise ValueError(f"no ARN for {logical_id} ({kind})")

    def ref(self, name: str) -> Any:
        if name == "AWS::NoValue":
            return NO_VALUE
        if name in self.params:
            return self.params[name]
        raise ValueError(f"Ref {name} is not resolved offline")

    def sub(self, text: str, local: dict[str, Any]) -> str:
        def one(m: re.Match[str]) -> str:
            name = m.group(1)
            if name in local:
                return str(self.value(local[name]))
            if name.endswith(".Arn"):
                return self.arn(name[:-4])
            return str(self.ref(name))

        return re.sub(r"\$\{([A-Za-z0-9:.]+)\}", one, text)

    def value(self, node: Any) -> Any:
        if isinstance(node, list):
            return [v for v in (self.value(x) for x in node) if v is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if len(node) == 1:
            ((key, arg),) = node.items()
            if key == "Ref":
                return self.ref(arg)
            if key == "Fn::Sub":
                text, local = (arg, {}) if isinstance(arg, str) else (arg[0], arg[1])
                return self.sub(text, local)
            if key == "Fn::GetAtt":
                if arg[1] != "Arn":
                    raise ValueError(f"GetAtt {arg}")
                return self.arn(arg[0])
            if key == "Fn::If":
                return self.value(arg[1] if self.condition(arg[0]) else arg[2])
            if key == "Fn::Equals":
                a, b = (self.value(x) for x in arg)
                return str(a) == str(b)
            if key == "Fn::Not":
                return not self.value(arg[0])
            if key == "Fn::And":
                return all(self.value(x) for x in arg)
            if key == "Fn::Or":
                return any(self.value(x) for x in arg)
            if key == "Condition":
                return self.condition(arg)
            if key == "Fn::Select":
                return self.value(arg[1])[int(self.value(arg[0]))]
            if key == "Fn::Split":
                return str(self.value(arg[1])).split(arg[0])
            if key.startswith("Fn::"):
                raise ValueError(f"{key} is not resolved offline")
        return {k: v for k, v in ((k, self.value(v)) for k, v in node.items()) if v is not NO_VALUE}


def role_policies(
    tpl: dict[str, Any], overrides: dict[str, str] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Function logical id -> the policy documents of its role (inline policies; the
    logs-only managed policy SAM attaches is not part of the template)."""
    r = Resolver(copy.deepcopy(tpl), overrides)
    out: dict[str, list[dict[str, Any]]] = {}
    for name, res in tpl["Resources"].items():
        if res["Type"] != "AWS::Serverless::Function":
            continue
        props = res["Properties"]
        role = props.get("Role")
        if role is not None:
            role_id = role["Fn::GetAtt"][0]
            docs = [
                p["PolicyDocument"] for p in tpl["Resources"][role_id]["Properties"]["Policies"]
            ]
        else:
            docs = [p for p in props.get("Policies", []) if isinstance(p, dict)]
        out[name] = [r.value(d) for d in docs]
    return out


def names(tpl: dict[str, Any], overrides: dict[str, str] | None = None) -> dict[str, str]:
    """The values of calls.Names for the offline resolution."""
    r = Resolver(tpl, overrides)
    return {
        "bucket": r.arn("DocumentBucket").removeprefix("arn:aws:s3:::"),
        "input_prefix": r.params["InputPrefix"],
        "artifacts_bucket": r.arn("ArtifactsBucket").removeprefix("arn:aws:s3:::"),
        "artifacts_prefix": r.params["ArtifactsPrefix"],
        "queue_arn": r.arn("IngestQueue"),
        "dlq_arn": r.arn("IngestDLQ"),
        "domain_arn": r.params["OpenSearchResourceArn"] or DOMAIN_ARN,
        "region": REGION,
        "embedding_model": r.params["EmbeddingModel"],
        "index_prefix": r.params["IndexPrefix"],
        "query_connector_role_arn": r.arn("QueryConnectorRole"),
    }
