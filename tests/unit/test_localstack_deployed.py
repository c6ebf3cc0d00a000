"""chunkwise.localstack.deployed: a deployed stack's functions run in-process with the
deployed environment (few, named substitutions) and the custom resource's response
caught on loopback."""

from __future__ import annotations

import io
import json
import urllib.request
import zipfile
from typing import Any

from chunkwise.localstack import deployed
from chunkwise.localstack.config import repo_root


class FakeLambda:
    def __init__(self, env: dict[str, str], app: bytes) -> None:
        self.env, self.app = env, app

    def get_function_configuration(self, FunctionName: str) -> dict[str, Any]:  # noqa: N803
        return {"Environment": {"Variables": dict(self.env)}}

    def get_function(self, FunctionName: str) -> dict[str, Any]:  # noqa: N803
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("app.py", self.app)
        return {"Code": {"Location": "data:application/zip;base64," + _b64(buf.getvalue())}}


def _b64(data: bytes) -> str:
    import base64

    return base64.b64encode(data).decode()


class Stack(deployed.DeployedStack):
    fake: FakeLambda

    def client(self, service: str) -> Any:
        assert service == "lambda"
        return self.fake


def _stack(env: dict[str, str], app: bytes) -> Stack:
    s = Stack(
        "s",
        "arn:aws:cloudformation:us-east-1:000000000000:stack/s/1",
        "http://127.0.0.1:4566",
        "us-east-1",
        {
            "DocumentBucketName": "cw-docs-1",
            "IngestQueueUrl": "http://127.0.0.1:4566/queue/us-east-1/000000000000/q",
            "IngestDLQUrl": "http://127.0.0.1:4566/queue/us-east-1/000000000000/dlq",
            "InputPrefix": "incoming/",
            "OpenSearchUrl": "http://127.0.0.1:9200",
        },
        {"IngestFunction": "s-IngestFunction-1", "QueryFunction": "s-QueryFunction-1"},
    )
    s.fake = FakeLambda(env, app)
    return s


DEPLOYED = {
    "CHUNKWISE_EMBEDDER": "bedrock:amazon.titan-embed-text-v2:0?dimensions=1024",
    "CHUNKWISE_OPENSEARCH_AUTH": "sigv4-es",
    "CHUNKWISE_MODEL_PATH": "/opt/python/all_minilm_l6_v2/model.zip",
    "CHUNKWISE_INDEX_PREFIX": "cwdeploy",
    "CHUNKWISE_ARTIFACTS_BUCKET": "cw-artifacts-1",
    "OPENSEARCH_URL": "http://127.0.0.1:9200",
}


def test_the_deployed_environment_with_only_the_named_substitutions() -> None:
    env = _stack(DEPLOYED, b"").function_env("IngestFunction")
    assert env["CHUNKWISE_EMBEDDER"] == "local" and env["CHUNKWISE_OPENSEARCH_AUTH"] == "none"
    assert env["CHUNKWISE_MODEL_PATH"] == ""  # unset by replace_env
    for key in ("CHUNKWISE_INDEX_PREFIX", "CHUNKWISE_ARTIFACTS_BUCKET", "OPENSEARCH_URL"):
        assert env[key] == DEPLOYED[key]
    assert env["AWS_ENDPOINT_URL"] == "http://127.0.0.1:4566"
    changed = {k for k in DEPLOYED if env[k] != DEPLOYED[k]}
    assert changed <= set(deployed.LOCAL_SUBSTITUTES)


def test_the_runner_gets_the_deployed_queue_and_bucket() -> None:
    cfg = _stack(DEPLOYED, b"").ingest_config()
    assert (cfg.bucket, cfg.queue, cfg.dlq) == ("cw-docs-1", "q", "dlq")
    assert cfg.queue_url.endswith("/q") and cfg.index_prefix == "cwdeploy"
    assert cfg.endpoint_url == "http://127.0.0.1:4566"


def test_the_code_must_be_the_deployed_package() -> None:
    local = (repo_root() / "functions" / "query" / "app.py").read_bytes()
    assert _stack(DEPLOYED, local).deployed_code_matches("QueryFunction", "query")
    assert not _stack(DEPLOYED, local + b"\n").deployed_code_matches("QueryFunction", "query")


def test_the_response_url_receives_the_put() -> None:
    with deployed.response_catcher() as (url, got):
        body = json.dumps({"Status": "SUCCESS", "Data": {"a": "1"}}).encode()
        req = urllib.request.Request(url, data=body, method="PUT")
        with urllib.request.urlopen(req, timeout=5) as resp:
            assert resp.status == 200
    assert got == [{"Status": "SUCCESS", "Data": {"a": "1"}}]


def test_a_function_url_post() -> None:
    event = deployed.function_url_event({"query": "Wartung", "k": 3})
    assert event["requestContext"]["http"]["method"] == "POST"
    assert json.loads(event["body"]) == {"query": "Wartung", "k": 3}
