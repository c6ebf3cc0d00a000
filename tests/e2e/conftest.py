"""End-to-end fixtures: a real S3/SQS emulator (LocalStack host mode or moto server, or
whatever AWS_ENDPOINT_URL names) and a real OpenSearch node (OPENSEARCH_URL).

The services are started outside pytest (`make test` wraps pytest in
scripts/with-services.sh; by hand: `chunkwise local up`). Fixtures FAIL, never skip,
when a service does not answer: a silently skipped end-to-end suite would hide a
broken setup.

Each test module creates its own bucket, queue, DLQ and index prefix (unique
names, `chunkwise.localstack.stack.throwaway_stack`, the way every test and benchmark
assembles a local stack), with a short visibility timeout and maxReceiveCount 2 so
that redrive to the DLQ happens within seconds, and removes them again afterwards.
"""

from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from chunkwise.localstack.config import StackConfig, service_urls
from chunkwise.localstack.emulator import Runner
from chunkwise.localstack.stack import throwaway_stack

VISIBILITY_TIMEOUT = 2
MAX_RECEIVE_COUNT = 2


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.loads(resp.read() or b"null")


def _os_client() -> Any:
    """OpenSearch client from the same settings as the functions (SigV4 if configured)."""
    from chunkwise.settings import OpenSearchSettings, load_settings
    from chunkwise.wiring import opensearch_client

    return opensearch_client(load_settings(OpenSearchSettings))


def _require_services() -> tuple[str, str]:
    """(S3/SQS endpoint, OpenSearch URL). CHUNKWISE_E2E_TARGET=aws: real AWS, no endpoint."""
    on_aws = os.environ.get("CHUNKWISE_E2E_TARGET") == "aws"
    local_endpoint, os_url = (url.rstrip("/") for url in service_urls())
    endpoint = "aws" if on_aws else local_endpoint
    os.environ.setdefault("OPENSEARCH_URL", os_url)
    try:
        health = _os_client().cluster.health()
        assert health.get("status") in ("green", "yellow"), health
    except Exception as exc:
        pytest.fail(
            f"OpenSearch not reachable at {os_url}: {exc}; start it with "
            "`bash tools/opensearch/opensearch.sh up` or set OPENSEARCH_URL",
            pytrace=False,
        )
    try:
        import boto3

        if on_aws:
            boto3.client("s3").list_buckets()
        else:
            boto3.client(
                "s3",
                endpoint_url=endpoint,
                region_name="us-east-1",
                aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "test"),
                aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "test"),
            ).list_buckets()
    except Exception as exc:
        pytest.fail(
            f"S3 not reachable at {endpoint or 'AWS'}: {exc}; start the emulator with "
            "`bash scripts/localstack.sh up` (log .local/localstack/) or set AWS_ENDPOINT_URL",
            pytrace=False,
        )
    return endpoint, os_url


@dataclass
class Stack:
    cfg: StackConfig
    runner: Runner
    s3: Any
    sqs: Any
    delete_marker_events: bool = True  # False on moto server: no event for delete markers

    @property
    def bucket(self) -> str:
        return self.cfg.bucket

    def key(self, name: str) -> str:
        return f"{self.cfg.input_prefix}{name}"

    def put(self, key: str, data: bytes) -> str:
        resp = self.s3.put_object(Bucket=self.bucket, Key=key, Body=data)
        return str(resp["VersionId"])

    def delete(self, key: str) -> None:
        self.s3.delete_object(Bucket=self.bucket, Key=key)

    def run_until(self, pred: Callable[[], bool], timeout: float = 90.0) -> None:
        if not self.runner.run(until=pred, max_seconds=timeout):
            raise AssertionError(f"condition not reached within {timeout}s ({self.runner.stats})")

    def dlq_messages(self) -> list[dict[str, Any]]:
        resp = self.sqs.receive_message(
            QueueUrl=self.cfg.dlq_url, MaxNumberOfMessages=10, VisibilityTimeout=0
        )
        return list(resp.get("Messages", []))


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    endpoint, os_url = _require_services()
    region = os.environ.get("AWS_REGION", "us-east-1") if endpoint == "aws" else "us-east-1"
    with throwaway_stack(
        "e2e",
        visibility_timeout=VISIBILITY_TIMEOUT,
        max_receive_count=MAX_RECEIVE_COUNT,
        endpoint=endpoint,
        opensearch_url=os_url,
        region=region,
    ) as cfg:
        import boto3

        runner = Runner(cfg, wait_seconds=1)
        s3 = boto3.client("s3", endpoint_url=cfg.endpoint_url, region_name=cfg.region)
        sqs = boto3.client("sqs", endpoint_url=cfg.endpoint_url, region_name=cfg.region)
        try:
            _get(endpoint + "/_localstack/health")
            is_localstack = True
        except Exception:
            is_localstack = False
        markers = is_localstack or endpoint == "aws"
        try:
            yield Stack(cfg, runner, s3, sqs, delete_marker_events=markers)
        finally:
            # The runner imports the ingest function once per process, with this stack's
            # settings and (after its first event) this stack's pipeline: the next
            # module's stack must import it afresh, as a new Lambda would.
            from chunkwise.localstack import emulator

            emulator._HANDLERS.pop("ingest", None)


@pytest.fixture(scope="module")
def searcher(stack: Stack) -> Any:
    from chunkwise.adapters.opensearch.search import Searcher
    from chunkwise.index.names import IndexNames
    from chunkwise.wiring.embedders import get_embedder

    return Searcher(_os_client(), get_embedder("local"), IndexNames(stack.cfg.index_prefix))


@pytest.fixture(scope="module")
def index(stack: Stack) -> Any:
    from chunkwise.adapters.opensearch.index import OpenSearchIndex
    from chunkwise.index.names import IndexNames

    return OpenSearchIndex(_os_client(), IndexNames(stack.cfg.index_prefix))
