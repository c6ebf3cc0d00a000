"""A deployed stack's functions, run in this process against the stack's resources.

The local deploy (scripts/deploy-local.sh) puts the SAM stack into LocalStack, which
runs no function on this machine (no container runtime: tools/localstack-lambda).
This module plays the functions there, finding everything from the stack itself:

- the resources from the stack's outputs (bucket, queue, DLQ, OpenSearch URL, function
  names), never names of its own;
- each function's environment from the deployed function's configuration
  (GetFunctionConfiguration), with the few substitutions in ``LOCAL_SUBSTITUTES`` for
  what the emulator has no counterpart of (Bedrock, the layers' /opt paths, IAM signing
  to a node without security);
- the code: the handler of this checkout (functions/<name>/app.py), checked to be the
  very file inside the deployed package (``deployed_code_matches``).

``admin`` sends the admin function the CloudFormation request the stack would have
sent for the custom resource SearchIndex (LocalStack community has no custom resource
provider), with a loopback ResponseURL that receives the handler's response;
``ingest_config`` gives `chunkwise local run --stack` its queue; ``query`` calls the
query function with a Function URL event; ``reconcile`` gives the reconcile function an
action (sweep, rechunk, finish-rechunk, retention), as its schedule or an operator would.
"""

from __future__ import annotations

import hashlib
import http.server
import io
import json
import threading
import urllib.request
import uuid
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from chunkwise.errors import ConfigError
from chunkwise.localstack.config import EMULATOR_CREDENTIALS, StackConfig, repo_root
from chunkwise.localstack.emulator import LocalContext, load_function, log_to_stderr
from chunkwise.settings import export_env, replace_env

# Deployed setting -> local value ("" = unset), and why. Everything else is the
# deployed function's own environment.
LOCAL_SUBSTITUTES: dict[str, tuple[str, str]] = {
    "CHUNKWISE_EMBEDDER": ("local", "no Bedrock in the emulator: the local model embeds"),
    "CHUNKWISE_MODEL_PATH": ("", "the tokenizer layer's /opt path exists only in Lambda"),
    "CHUNKWISE_OPENSEARCH_AUTH": ("none", "the local node has no security plugin (no SigV4)"),
    "CHUNKWISE_QUERY_CONNECTOR_ROLE_ARN": (
        "",
        "the query model's connector would call Bedrock, which the emulator lacks",
    ),
    "AWS_XRAY_SDK_ENABLED": ("false", "no X-Ray daemon"),
    "POWERTOOLS_TRACE_DISABLED": ("true", "no X-Ray daemon"),
    "POWERTOOLS_METRICS_DISABLED": ("true", "metrics go nowhere locally"),
}


@dataclass
class DeployedStack:
    name: str
    stack_id: str
    endpoint: str
    region: str
    outputs: dict[str, str]
    resources: dict[str, str]  # logical id -> physical id

    def client(self, service: str) -> Any:
        from chunkwise.adapters.boto import boto_client

        return boto_client(service, endpoint_url=self.endpoint, region_name=self.region)

    def function_name(self, logical_id: str) -> str:
        try:
            return self.resources[logical_id]
        except KeyError:
            raise ConfigError(f"stack {self.name} has no resource {logical_id}") from None

    def context(self, logical_id: str, timeout_s: float) -> LocalContext:
        """A Lambda context naming the deployed function (its log lines say which)."""
        ctx = LocalContext(timeout_s=timeout_s)
        ctx.function_name = self.function_name(logical_id)
        ctx.invoked_function_arn = (
            f"arn:aws:lambda:{self.region}:000000000000:function:{ctx.function_name}"
        )
        return ctx

    def function_env(self, logical_id: str) -> dict[str, str]:
        cfg = self.client("lambda").get_function_configuration(
            FunctionName=self.function_name(logical_id)
        )
        env: dict[str, str] = dict(cfg.get("Environment", {}).get("Variables", {}))
        env.update({k: v for k, (v, _why) in LOCAL_SUBSTITUTES.items()})
        env.update(
            {
                "AWS_ENDPOINT_URL": self.endpoint,
                "AWS_REGION": self.region,
                "AWS_DEFAULT_REGION": self.region,
            }
        )
        return env

    def use_function_env(self, logical_id: str) -> dict[str, str]:
        """Point this process at the deployed function's environment (as Lambda would
        set it), the emulator's dummy credentials unless others are set."""
        env = self.function_env(logical_id)
        replace_env(env)
        export_env(EMULATOR_CREDENTIALS, only_unset=True)
        return env

    def deployed_code_matches(self, logical_id: str, folder: str) -> bool:
        """Whether functions/<folder>/app.py is byte for byte the deployed package's."""
        code = self.client("lambda").get_function(FunctionName=self.function_name(logical_id))
        with urllib.request.urlopen(code["Code"]["Location"], timeout=30) as resp:
            package = zipfile.ZipFile(io.BytesIO(resp.read()))
        deployed = package.read("app.py")
        local = (repo_root() / "functions" / folder / "app.py").read_bytes()
        return hashlib.sha256(deployed).digest() == hashlib.sha256(local).digest()

    def ingest_config(self) -> StackConfig:
        """The deployed queue and bucket as the runner's StackConfig."""
        o = self.outputs
        env = self.function_env("IngestFunction")
        return StackConfig(
            bucket=o["DocumentBucketName"],
            queue=o["IngestQueueUrl"].rsplit("/", 1)[-1],
            dlq=o["IngestDLQUrl"].rsplit("/", 1)[-1],
            input_prefix=o["InputPrefix"],
            artifacts_prefix=env.get("CHUNKWISE_ARTIFACTS_PREFIX", "extracted/"),
            index_prefix=env["CHUNKWISE_INDEX_PREFIX"],
            region=self.region,
            endpoint=self.endpoint,
            opensearch_url=o["OpenSearchUrl"],
            queue_url=o["IngestQueueUrl"],
            dlq_url=o["IngestDLQUrl"],
        )


def find_stack(name: str, endpoint: str, region: str = "us-east-1") -> DeployedStack:
    from chunkwise.adapters.boto import boto_client

    export_env(EMULATOR_CREDENTIALS, only_unset=True)
    cfn = boto_client("cloudformation", endpoint_url=endpoint, region_name=region)
    stacks = cfn.describe_stacks(StackName=name)["Stacks"]
    if not stacks:
        raise ConfigError(f"no stack {name} at {endpoint}")
    stack = stacks[0]
    if stack["StackStatus"] not in ("CREATE_COMPLETE", "UPDATE_COMPLETE"):
        raise ConfigError(f"stack {name} is {stack['StackStatus']}")
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}
    resources = {
        r["LogicalResourceId"]: r.get("PhysicalResourceId", "")
        for r in cfn.describe_stack_resources(StackName=name)["StackResources"]
    }
    return DeployedStack(name, stack["StackId"], endpoint, region, outputs, resources)


@contextmanager
def response_catcher() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A loopback ResponseURL: the PUT bodies the handler sends, as CloudFormation's
    pre-signed S3 URL would receive them."""
    got: list[dict[str, Any]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            n = int(self.headers.get("content-length") or 0)
            got.append(json.loads(self.rfile.read(n) or b"{}"))
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/cfn-response", got
    finally:
        server.shutdown()
        server.server_close()


def admin(stack: DeployedStack, request_type: str = "Create") -> dict[str, Any]:
    """The admin function's code with the custom resource's CloudFormation request;
    returns the response it PUT to the ResponseURL."""
    env = stack.use_function_env("AdminFunction")
    module = load_function("admin")
    log_to_stderr(module)
    token = stack.resources.get("AdminFunction", "")
    with response_catcher() as (url, got):
        event = {
            "RequestType": request_type,
            "ServiceToken": token,
            "ResponseURL": url,
            "StackId": stack.stack_id,
            "RequestId": str(uuid.uuid4()),
            "LogicalResourceId": "SearchIndex",
            "ResourceType": "Custom::ChunkwiseIndex",
            "ResourceProperties": {
                "ServiceToken": token,
                "IndexPrefix": env["CHUNKWISE_INDEX_PREFIX"],
            },
        }
        if request_type != "Create":
            # CloudFormation names the resource it created in Update and Delete.
            event["PhysicalResourceId"] = f"chunkwise-index-{env['CHUNKWISE_INDEX_PREFIX']}"
        module.lambda_handler(event, stack.context("AdminFunction", 600))
    if len(got) != 1:
        raise ConfigError(f"the admin handler sent {len(got)} responses (expected one)")
    return got[0]


def function_url_event(body: Mapping[str, Any]) -> dict[str, Any]:
    """A Function URL (payload 2.0) POST, as the deployed URL would pass it."""
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": "/",
        "rawQueryString": "",
        "headers": {"content-type": "application/json", "host": "localhost"},
        "requestContext": {
            "http": {"method": "POST", "path": "/", "protocol": "HTTP/1.1"},
            "requestId": str(uuid.uuid4()),
            "routeKey": "$default",
            "stage": "$default",
        },
        "body": json.dumps(dict(body)),
        "isBase64Encoded": False,
    }


def query(stack: DeployedStack, body: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    """The query function's code with a Function URL event: (status, decoded body)."""
    stack.use_function_env("QueryFunction")
    module = load_function("query")
    log_to_stderr(module)
    reply = module.lambda_handler(function_url_event(body), stack.context("QueryFunction", 30))
    return int(reply.get("statusCode", 200)), json.loads(reply.get("body") or "{}")


def reconcile(stack: DeployedStack, event: Mapping[str, Any]) -> dict[str, Any]:
    """The reconcile function's code with one action event (what its schedule, or
    `aws lambda invoke` of an operator, sends): returns the handler's result."""
    stack.use_function_env("ReconcileFunction")
    module = load_function("reconcile")
    log_to_stderr(module)
    out = module.lambda_handler(dict(event), stack.context("ReconcileFunction", 900))
    return dict(out)
