"""The local stack and runner: `chunkwise local up|down|status|run`, `ingest`, `reconcile`.

    chunkwise local up [--bucket B] [--queue Q] [--index-prefix P]
                       [--visibility-timeout S] [--max-receive-count N]
        starts OpenSearch (tools/opensearch/opensearch.sh) and LocalStack
        (scripts/localstack.sh) unless OPENSEARCH_URL / AWS_ENDPOINT_URL name another
        stack; creates the versioned bucket, the ingest queue + DLQ (redrive after
        maxReceiveCount), the bucket notification for the input prefix, the index
        generation, aliases and search pipeline; starts the loopback embedding
        endpoint (chunkwise.cli.embed_endpoint) and registers it as the cluster's query
        model (ML Commons), the live generation's default search pipeline fusing
        hybrid queries; writes .local/chunkwise-local.json
    chunkwise local run [--workers N] [--until-idle S] [--max-seconds S]
        polls the queue and calls the SAME handler as the ingest Lambda
        (functions/ingest/app.py) with SQS-shaped events; deletes only the messages
        the handler did not report as failed. Failed ones come back after the
        visibility timeout and end in the DLQ after maxReceiveCount receives.
        --workers N: N worker processes on the queue, like N Lambda instances.
    chunkwise local status        services, queue depths, live generation
    chunkwise local down [--all]  stops what `up` started (--all: every service)
    chunkwise local env           the environment of the stack, as `export` lines

    chunkwise ingest KEY...       reconcile these keys now (no queue)
    chunkwise reconcile [--enqueue]              sweep: bucket vs live set
    chunkwise reconcile retention [--older-than 7d]  erase deleted/superseded revisions
    chunkwise reconcile rechunk [--generation G] new generation + one message per object
    chunkwise reconcile finish G [--force]       verify G against the bucket, then swap

Exit codes: 0 ok, 1 operational error, 2 usage.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import logging
import multiprocessing
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from chunkwise import progress
from chunkwise.cli.common import (
    HelpFormatter,
    add_progress_flag,
    parse_args,
    parser,
    repo_root,
    showing_progress,
    warn,
)
from chunkwise.errors import ChunkwiseError, ConfigError
from chunkwise.settings import Settings, export_env, load_settings, local_ports, local_stack_env

DEFAULT_ENDPOINT = "http://127.0.0.1:4566"
DEFAULT_OPENSEARCH = "http://127.0.0.1:9200"


def local_url(port: int | None, default: str) -> str:
    """The URL of a service this checkout starts: its scripts listen on ``port``
    (OPENSEARCH_PORT, LOCALSTACK_PORT in the environment), else the default."""
    return default.rsplit(":", 1)[0] + f":{port}" if port else default


def state_path() -> Path:
    return repo_root() / ".local" / "chunkwise-local.json"


def _say(msg: str) -> None:
    print(f"chunkwise local: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- stack


@dataclass
class StackConfig:
    """Names and knobs of one local stack (tests use unique names)."""

    bucket: str = "chunkwise-local"
    queue: str = "chunkwise-ingest"
    dlq: str = "chunkwise-ingest-dlq"
    input_prefix: str = "incoming/"
    artifacts_prefix: str = "extracted/"
    index_prefix: str = "chunks"
    visibility_timeout: int = 60
    max_receive_count: int = 3
    region: str = "us-east-1"
    endpoint: str = ""
    opensearch_url: str = ""
    queue_url: str = ""
    dlq_url: str = ""
    live_index: str = ""
    # The loopback embedding endpoint and the ML Commons model the cluster embeds
    # `neural` queries with (empty: the cluster has no ML Commons, or a Bedrock embedder).
    embed_url: str = ""
    query_model_id: str = ""
    started: list[str] = field(default_factory=list)

    @property
    def endpoint_url(self) -> str | None:
        """The S3/SQS endpoint; None = AWS itself (``endpoint`` "aws")."""
        return None if self.endpoint in ("", "aws") else self.endpoint

    def env(self) -> dict[str, str]:
        """What the handler / CLI read (chunkwise.settings.Settings) for this stack."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url or "",
            "AWS_DEFAULT_REGION": self.region,
            "AWS_REGION": self.region,
            "OPENSEARCH_URL": self.opensearch_url,
            "CHUNKWISE_BUCKET": self.bucket,
            "CHUNKWISE_INPUT_PREFIX": self.input_prefix,
            "CHUNKWISE_ARTIFACTS_PREFIX": self.artifacts_prefix,
            "CHUNKWISE_INDEX_PREFIX": self.index_prefix,
            "CHUNKWISE_QUEUE_URL": self.queue_url,
        }


def apply_env(env: Mapping[str, str]) -> None:
    """Point this process at the stack; dummy credentials for an emulator only."""
    export_env(env)
    endpoint = env.get("AWS_ENDPOINT_URL", "")
    if endpoint.startswith(("http://127.", "http://localhost")):
        export_env({"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}, only_unset=True)


def save_state(cfg: StackConfig, path: Path | None = None) -> None:
    p = path or state_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(asdict(cfg), indent=2) + "\n", encoding="utf-8")


def load_state(path: Path | None = None) -> StackConfig | None:
    p = path or state_path()
    if not p.exists():
        return None
    return StackConfig(**json.loads(p.read_text(encoding="utf-8")))


def _script(*args: str) -> int:
    return subprocess.call(["bash", *args], cwd=repo_root())


def start_services(cfg: StackConfig) -> None:
    """OpenSearch + LocalStack, unless the environment names other endpoints."""
    env, ports = local_stack_env(), local_ports()
    cfg.opensearch_url = _ensure_service(
        cfg,
        "OpenSearch",
        ("OPENSEARCH_URL", env.opensearch_url),
        local_url(ports.opensearch_port, DEFAULT_OPENSEARCH),
        "tools/opensearch/opensearch.sh",
        "opensearch",
    )
    cfg.endpoint = _ensure_service(
        cfg,
        "LocalStack",
        ("AWS_ENDPOINT_URL", env.aws_endpoint_url),
        local_url(ports.localstack_port, DEFAULT_ENDPOINT),
        "scripts/localstack.sh",
        "localstack",
    )


def _ensure_service(
    cfg: StackConfig,
    label: str,
    named: tuple[str, str],
    default_url: str,
    script: str,
    name: str,
) -> str:
    """The URL of a service: the one the environment names (``named``: variable,
    value), else ours, started if needed."""
    env_var, url = named
    if url:
        _say(f"{label}: using {env_var}={url}")
        return url
    if _script(script, "status") == 0:
        _say(f"{label}: already running")
    else:
        _say(f"{label}: starting (a minute or two on a busy machine)")
        if _script(script, "up") != 0:
            raise ChunkwiseError(f"{label} did not start; see .local/{name}/")
        cfg.started.append(name)
    return default_url


def _boto(service: str, cfg: StackConfig) -> Any:
    from chunkwise.adapters.boto import boto_client

    return boto_client(service, endpoint_url=cfg.endpoint_url, region_name=cfg.region)


def create_resources(cfg: StackConfig) -> None:
    """Bucket (versioning on), queue + DLQ (redrive), notification; idempotent."""
    s3 = _boto("s3", cfg)
    sqs = _boto("sqs", cfg)
    try:
        if cfg.region == "us-east-1":
            s3.create_bucket(Bucket=cfg.bucket)
        else:
            s3.create_bucket(
                Bucket=cfg.bucket, CreateBucketConfiguration={"LocationConstraint": cfg.region}
            )
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass
    s3.put_bucket_versioning(Bucket=cfg.bucket, VersioningConfiguration={"Status": "Enabled"})
    cfg.dlq_url = sqs.create_queue(
        QueueName=cfg.dlq, Attributes={"MessageRetentionPeriod": "1209600"}
    )["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=cfg.dlq_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    attrs = {
        "VisibilityTimeout": str(cfg.visibility_timeout),
        "RedrivePolicy": json.dumps(
            {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": str(cfg.max_receive_count)}
        ),
    }
    cfg.queue_url = sqs.create_queue(QueueName=cfg.queue)["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=cfg.queue_url, Attributes=attrs)
    queue_arn = sqs.get_queue_attributes(QueueUrl=cfg.queue_url, AttributeNames=["QueueArn"])[
        "Attributes"
    ]["QueueArn"]
    s3.put_bucket_notification_configuration(
        Bucket=cfg.bucket,
        NotificationConfiguration={
            "QueueConfigurations": [
                {
                    "Id": "chunkwise-ingest",
                    "QueueArn": queue_arn,
                    "Events": ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"],
                    "Filter": {
                        "Key": {"FilterRules": [{"Name": "prefix", "Value": cfg.input_prefix}]}
                    },
                }
            ]
        },
    )


def delete_resources(cfg: StackConfig, opensearch: Any) -> list[str]:
    """Undo `create_resources`, `setup_index` and `setup_query_model` for a throwaway
    stack (tests, benchmarks): the bucket with every version, queue and DLQ, the
    prefix's query models, indices and index templates. Best effort: returns what
    could not be removed."""
    failures: list[str] = []
    try:
        s3, sqs = _boto("s3", cfg), _boto("sqs", cfg)
        for page in s3.get_paginator("list_object_versions").paginate(Bucket=cfg.bucket):
            objs = [
                {"Key": v["Key"], "VersionId": v["VersionId"]}
                for v in page.get("Versions", []) + page.get("DeleteMarkers", [])
            ]
            if objs:
                s3.delete_objects(Bucket=cfg.bucket, Delete={"Objects": objs})
        s3.delete_bucket(Bucket=cfg.bucket)
        for url in (cfg.queue_url, cfg.dlq_url):
            sqs.delete_queue(QueueUrl=url)
    except Exception as exc:
        failures.append(f"S3/SQS: {exc}")
    try:
        from chunkwise.adapters.opensearch.query_model import delete_query_models

        delete_query_models(opensearch, cfg.index_prefix)
    except Exception as exc:
        failures.append(f"query models: {exc}")
    try:
        opensearch.indices.delete(index=f"{cfg.index_prefix}-*")
        for template in opensearch.indices.get_index_template().get("index_templates", []):
            if template["name"].startswith(f"{cfg.index_prefix}-"):
                opensearch.indices.delete_index_template(name=template["name"])
    except Exception as exc:
        failures.append(f"OpenSearch: {exc}")
    return failures


def setup_index(cfg: StackConfig) -> dict[str, Any]:
    from chunkwise.wiring import ensure_index

    apply_env(cfg.env())
    info = ensure_index(load_settings())
    cfg.live_index = str(info["live_index"])
    return info


def setup_query_model(cfg: StackConfig, *, start: bool = True) -> str:
    """The cluster embeds queries itself: start the loopback endpoint with the local
    model (``start``; else use it if it answers), register it in ML Commons and attach
    it to the live generation. Returns the model id, or "" when the cluster, the
    embedder or the endpoint cannot (said why)."""
    from chunkwise.cli import embed_endpoint
    from chunkwise.wiring import has_ml_commons, opensearch_client, setup_local_query_model

    apply_env(cfg.env())
    settings = load_settings()
    client = opensearch_client(settings)
    if not has_ml_commons(client):
        _say("no ML Commons plugin on this cluster: neural queries need a query vector")
        return ""
    if settings.embedder.startswith("bedrock:"):
        _say("Bedrock embedder: the cluster's connector must call Bedrock (see samdocs)")
        return ""
    if not start and embed_endpoint.probe(embed_endpoint.endpoint_url()) is None:
        _say(f"no embedding endpoint at {embed_endpoint.endpoint_url()}: no query model")
        return ""
    cfg.embed_url, started = embed_endpoint.up()
    if started and "embed-endpoint" not in cfg.started:
        cfg.started.append("embed-endpoint")
    info = setup_local_query_model(settings, cfg.embed_url, client=client)
    cfg.query_model_id = info["query_model_id"]
    return cfg.query_model_id


def stack_up(cfg: StackConfig, *, start: bool = True) -> StackConfig:
    if start:
        start_services(cfg)
    else:
        env = local_stack_env()
        cfg.endpoint = cfg.endpoint or env.aws_endpoint_url or DEFAULT_ENDPOINT
        cfg.opensearch_url = cfg.opensearch_url or env.opensearch_url or DEFAULT_OPENSEARCH
    apply_env(cfg.env())
    _say(f"bucket s3://{cfg.bucket} (versioning on), queue {cfg.queue} -> DLQ {cfg.dlq}")
    create_resources(cfg)
    info = setup_index(cfg)
    _say(
        f"index {info['live_index']} (read alias {info['read_alias']}, write alias "
        f"{info['write_alias']}, {info['embedder']} {info['dimension']}d, "
        f"search pipeline {info['search_pipeline'] or 'client-side fusion'})"
    )
    if setup_query_model(cfg, start=start):
        _say(
            f"query model {cfg.query_model_id} (the cluster embeds neural queries via "
            f"{cfg.embed_url}); default search pipeline of {cfg.live_index}: hybrid by RRF"
        )
    return cfg


# --------------------------------------------------------------------------- runner


class LocalContext:
    """The parts of a Lambda context that Powertools reads."""

    function_name = "chunkwise-ingest-local"
    function_version = "$LATEST"
    # No Lambda memory limit applies to a local process; Lambda's largest size keeps
    # the per-document memory ceiling (chunkwise.ingest.budget) for runaway documents only.
    memory_limit_in_mb = 10240
    invoked_function_arn = "arn:aws:lambda:us-east-1:000000000000:function:chunkwise-ingest-local"
    log_group_name = "/local/chunkwise-ingest"
    log_stream_name = "local"

    def __init__(self, timeout_s: float = 900.0) -> None:
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


_HANDLERS: dict[str, ModuleType] = {}


def load_function(name: str = "ingest") -> ModuleType:
    """Import functions/<name>/app.py (the Lambda's own code) once per process."""
    if name in _HANDLERS:
        return _HANDLERS[name]
    path = repo_root() / "functions" / name / "app.py"
    spec = importlib.util.spec_from_file_location(f"chunkwise_function_{name}", path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    _HANDLERS[name] = module
    return module


def _log_to_stderr(module: ModuleType) -> None:
    """The handler logs JSON to stdout, as a Lambda does; run from the command line,
    stdout is for results, so its log lines go to stderr."""
    handler = getattr(getattr(module, "logger", None), "registered_handler", None)
    if isinstance(handler, logging.StreamHandler):
        handler.setStream(sys.stderr)


def sqs_event(messages: Sequence[Mapping[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    """An SQS -> Lambda event from ReceiveMessage results (same shape as AWS sends)."""
    records = []
    for m in messages:
        records.append(
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": dict(m.get("Attributes", {})),
                "messageAttributes": dict(m.get("MessageAttributes", {})),
                "md5OfBody": m.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": region,
            }
        )
    return {"Records": records}


@dataclass
class RunStats:
    batches: int = 0
    received: int = 0
    succeeded: int = 0
    failed: int = 0
    workers: int = 1
    # Wall-clock times (time.time(), comparable across processes): when polling began
    # (after the cold start) and when the last handled batch was done.
    first_poll: float = 0.0
    last_done: float = 0.0

    @classmethod
    def total(cls, parts: Iterable[RunStats]) -> RunStats:
        """The stats of several workers as one run."""
        parts = list(parts)
        return cls(
            batches=sum(p.batches for p in parts),
            received=sum(p.received for p in parts),
            succeeded=sum(p.succeeded for p in parts),
            failed=sum(p.failed for p in parts),
            workers=sum(p.workers for p in parts),
            first_poll=min((p.first_poll for p in parts if p.first_poll), default=0.0),
            last_done=max((p.last_done for p in parts), default=0.0),
        )


class Runner:
    """Polls the ingest queue and feeds the ingest Lambda handler, like the event source
    mapping does: batch of up to 10, partial batch failures stay on the queue."""

    def __init__(self, cfg: StackConfig, *, batch_size: int = 10, wait_seconds: int = 1) -> None:
        self.cfg = cfg
        self.batch_size = batch_size
        self.wait_seconds = wait_seconds
        apply_env(cfg.env())
        self.sqs = _boto("sqs", cfg)
        self.queue_arn = self.sqs.get_queue_attributes(
            QueueUrl=cfg.queue_url, AttributeNames=["QueueArn"]
        )["Attributes"]["QueueArn"]
        module = load_function("ingest")
        _log_to_stderr(module)
        self.handler: Callable[[dict[str, Any], Any], dict[str, Any]] = module.lambda_handler
        # With POWERTOOLS_METRICS_DISABLED the handler's metrics are never flushed; a
        # long-running runner clears them after each invocation instead of growing.
        self._metrics: Any = getattr(module, "metrics", None)
        self.stats = RunStats()

    def poll_once(self) -> int:
        """One ReceiveMessage + handler call; returns the number of messages received."""
        resp = self.sqs.receive_message(
            QueueUrl=self.cfg.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=self.wait_seconds,
            MessageSystemAttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        messages = resp.get("Messages", [])
        if not messages:
            return 0
        self.stats.batches += 1
        self.stats.received += len(messages)
        event = sqs_event(messages, self.queue_arn, self.cfg.region)
        try:
            result = self.handler(event, LocalContext())
            failed = {f["itemIdentifier"] for f in result.get("batchItemFailures", [])}
        except Exception as exc:  # the whole invocation failed: every message is retried
            _say(f"handler raised {type(exc).__name__}: {exc}; batch returns to the queue")
            failed = {m["MessageId"] for m in messages}
        if self._metrics is not None:
            self._metrics.clear_metrics()
        done = [m for m in messages if m["MessageId"] not in failed]
        if done:
            self.sqs.delete_message_batch(
                QueueUrl=self.cfg.queue_url,
                Entries=[
                    {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)
                ],
            )
        self.stats.succeeded += len(done)
        self.stats.failed += len(failed)
        self.stats.last_done = time.time()
        # The queue's length is not known up front: the bar counts messages handled.
        progress.advance("local run: messages", self.stats.received)
        return len(messages)

    def run(
        self,
        *,
        until: Callable[[], bool] | None = None,
        until_idle: float | None = None,
        max_seconds: float | None = None,
    ) -> bool:
        """Poll until ``until()`` holds, the queue was idle that long, or time is up.

        Returns True when stopped by ``until``/idleness, False on timeout.
        """
        start = time.monotonic()
        idle_since = time.monotonic()
        self.stats.first_poll = self.stats.first_poll or time.time()
        while True:
            if until is not None and until():
                return True
            if max_seconds is not None and time.monotonic() - start > max_seconds:
                return False
            n = self.poll_once()
            if n:
                idle_since = time.monotonic()
            elif until_idle is not None and time.monotonic() - idle_since >= until_idle:
                return True


def _run_one(
    cfg: StackConfig, batch_size: int, until_idle: float | None, max_seconds: float | None
) -> RunStats:
    """One worker: a Runner until the queue is idle or time is up (Ctrl-C ends it too)."""
    runner = Runner(cfg, batch_size=batch_size)
    with contextlib.suppress(KeyboardInterrupt):
        runner.run(until_idle=until_idle, max_seconds=max_seconds)
    return runner.stats


def run_workers(
    cfg: StackConfig,
    workers: int = 1,
    *,
    batch_size: int = 10,
    until_idle: float | None = None,
    max_seconds: float | None = None,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
) -> RunStats:
    """``workers`` runners on one queue, each in its own process, as several Lambda
    execution environments are: one batch at a time per worker, the handler's
    module state (settings, pipeline, clients) its own. Processes, not threads: the
    handler's work (extraction, ICU segmentation, tokenizing, building the bulk
    bodies) is CPU-bound Python that holds the GIL, and the handler module keeps one
    pipeline per process. ``initializer(*initargs)`` runs first in each worker (the
    benchmarks swap the embedder there). One worker without an initializer runs in
    this process. Returns the summed stats."""
    if workers < 1:
        raise ConfigError(f"workers: at least 1, got {workers}")
    if workers == 1 and initializer is None:
        return _run_one(cfg, batch_size, until_idle, max_seconds)
    context = multiprocessing.get_context("spawn")  # no boto3/OpenSearch state forked
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=initializer, initargs=initargs
    ) as pool:
        jobs = [
            pool.submit(_run_one, cfg, batch_size, until_idle, max_seconds) for _ in range(workers)
        ]
        return RunStats.total(_result_after_interrupts(job) for job in jobs)


def _result_after_interrupts(job: Future[RunStats]) -> RunStats:
    """Ctrl-C reaches the workers too; they stop after their batch and report."""
    while True:
        try:
            return job.result()
        except KeyboardInterrupt:
            continue


def queue_depths(cfg: StackConfig) -> dict[str, int]:
    sqs = _boto("sqs", cfg)
    out = {}
    for name, url in (("queue", cfg.queue_url), ("dlq", cfg.dlq_url)):
        a = sqs.get_queue_attributes(
            QueueUrl=url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        out[name] = int(a.get("ApproximateNumberOfMessages", 0))
        out[f"{name}_in_flight"] = int(a.get("ApproximateNumberOfMessagesNotVisible", 0))
    return out


# --------------------------------------------------------------------------- CLI


def wait_until_drained(cfg: StackConfig, idle: float, poll: float = 5.0) -> float:
    """Block until the ingest queue has held nothing, waiting or in flight, for
    ``idle`` seconds (others drain it: the ingest functions); returns the seconds
    waited."""
    sqs = _boto("sqs", cfg)
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    start = empty_since = time.monotonic()
    while time.monotonic() - empty_since < idle:
        attrs = sqs.get_queue_attributes(QueueUrl=cfg.queue_url, AttributeNames=names)
        if any(int(attrs["Attributes"].get(n, 0)) for n in names):
            empty_since = time.monotonic()
        time.sleep(poll)
    return time.monotonic() - start


def _stack_args(p: argparse.ArgumentParser) -> None:
    d = StackConfig()
    p.add_argument("--bucket", default=d.bucket)
    p.add_argument("--queue", default=d.queue)
    p.add_argument("--dlq", default=d.dlq)
    p.add_argument("--input-prefix", default=d.input_prefix)
    env = local_stack_env()
    p.add_argument("--index-prefix", default=env.chunkwise_index_prefix or "chunks")
    p.add_argument("--visibility-timeout", type=int, default=d.visibility_timeout)
    p.add_argument("--max-receive-count", type=int, default=d.max_receive_count)
    p.add_argument("--region", default=env.aws_default_region or d.region)


def _require_state() -> StackConfig:
    cfg = load_state()
    if cfg is None:
        raise ConfigError(f"no local stack state ({state_path()}); run `chunkwise local up`")
    return cfg


def _local_parser() -> argparse.ArgumentParser:
    p = parser(
        "chunkwise local",
        "The local stack: OpenSearch and the S3/SQS emulator, the bucket, queues and "
        "index of a deployment, and a runner that feeds the queue to the ingest handler.",
        examples="""\
  chunkwise local up && eval "$(chunkwise local env)"
  aws s3 cp manual.pdf s3://chunkwise-local/incoming/manual.pdf
  chunkwise local run --until-idle 5
  chunkwise local down""",
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    sub_parser = partial(sub.add_parser, formatter_class=HelpFormatter)
    up = sub_parser("up", help="start services, create bucket/queue/index")
    _stack_args(up)
    down = sub_parser("down", help="stop the services `up` started")
    down.add_argument("--all", action="store_true", help="also services `up` found running")
    sub_parser("status", help="services, queue depths, live generation")
    sub_parser("env", help="print the stack's environment as export lines")
    _run_args(sub_parser("run", help="poll the queue and call the ingest handler"))
    return p


def _run_args(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--until-idle",
        type=float,
        default=None,
        help="exit after S idle seconds (default: run until Ctrl-C)",
    )
    run.add_argument(
        "--max-seconds", type=float, default=None, help="exit after S seconds (default: no limit)"
    )
    run.add_argument("--batch-size", type=int, default=10, help="messages per handler call")
    run.add_argument(
        "--workers", type=int, default=1, help="worker processes polling the queue (default 1)"
    )
    add_progress_flag(run)


def main_local(argv: Sequence[str]) -> int:
    args = parse_args(_local_parser(), argv)
    if isinstance(args, int):
        return args
    commands: dict[str, Callable[[argparse.Namespace], int]] = {
        "up": _local_up,
        "env": _local_env,
        "status": lambda _args: _status(),
        "down": _local_down,
        "run": _local_run,
    }
    return commands[args.cmd](args)


def _local_up(args: argparse.Namespace) -> int:
    cfg = StackConfig(
        bucket=args.bucket,
        queue=args.queue,
        dlq=args.dlq,
        input_prefix=args.input_prefix,
        index_prefix=args.index_prefix,
        visibility_timeout=args.visibility_timeout,
        max_receive_count=args.max_receive_count,
        region=args.region,
    )
    previous = load_state()
    try:
        stack_up(cfg)
    finally:  # saved even when `up` fails half-way, so `down` stops what it started
        if previous is not None:  # remember what an earlier `up` started
            cfg.started = sorted(set(previous.started) | set(cfg.started))
        save_state(cfg)
    _say(f"ready. upload to s3://{cfg.bucket}/{cfg.input_prefix}..., then `chunkwise local run`")
    _say("stop with `chunkwise local down`")
    return 0


def _local_env(args: argparse.Namespace) -> int:
    env = _require_state().env()
    if env["AWS_ENDPOINT_URL"].startswith(("http://127.", "http://localhost")):
        outside = local_stack_env()
        env["AWS_ACCESS_KEY_ID"] = outside.aws_access_key_id or "test"
        env["AWS_SECRET_ACCESS_KEY"] = outside.aws_secret_access_key or "test"
    for k, v in env.items():
        if v:
            print(f"export {k}={json.dumps(v)}")
    return 0


def _local_down(args: argparse.Namespace) -> int:
    cfg = load_state() or StackConfig()
    which = ["localstack", "opensearch", "embed-endpoint"] if args.all else list(cfg.started)
    if "embed-endpoint" in which:
        from chunkwise.cli import embed_endpoint

        embed_endpoint.down()
    if "localstack" in which:
        _script("scripts/localstack.sh", "down")
    if "opensearch" in which:
        _script("tools/opensearch/opensearch.sh", "down")
    if not which:
        _say("nothing was started by `chunkwise local up` (use --all to stop both anyway)")
    cfg.started = [s for s in cfg.started if s not in which]
    if state_path().exists():
        save_state(cfg)
    return 0


def _local_run(args: argparse.Namespace) -> int:
    cfg = _require_state()
    export_env({"POWERTOOLS_METRICS_DISABLED": "true"}, only_unset=True)
    _say(f"polling {cfg.queue_url} with {args.workers} worker(s) (Ctrl-C to stop)")
    with showing_progress(args.progress):
        s = run_workers(
            cfg,
            args.workers,
            batch_size=args.batch_size,
            until_idle=args.until_idle,
            max_seconds=args.max_seconds,
        )
    _say(f"batches {s.batches}, messages {s.received}, ok {s.succeeded}, failed {s.failed}")
    return 0


def _status() -> int:
    cfg = load_state()
    rc = 0
    if _script("tools/opensearch/opensearch.sh", "status") != 0 and not (
        local_stack_env().opensearch_url
    ):
        rc = 1
    if _script("scripts/localstack.sh", "status") != 0:
        rc = 1
    from chunkwise.cli import embed_endpoint

    url = (cfg.embed_url if cfg else "") or embed_endpoint.endpoint_url()
    info = embed_endpoint.probe(url)
    _say(f"embedding endpoint {url}: {info['model'] if info else 'not answering'}")
    if cfg is not None and cfg.query_model_id:
        _say(f"query model (ML Commons): {cfg.query_model_id}")
    if cfg is None:
        _say("no stack state yet (run `chunkwise local up`)")
        return 1
    try:
        apply_env(cfg.env())
        d = queue_depths(cfg)
        _say(
            f"queue {cfg.queue}: {d['queue']} waiting, {d['queue_in_flight']} in flight; "
            f"DLQ {cfg.dlq}: {d['dlq']}"
        )
        from chunkwise.wiring import opensearch_index

        ix = opensearch_index(load_settings())
        _say(f"live generation: {ix.live_generation()} (started by up: {cfg.started or 'none'})")
    except Exception as exc:  # status reports, it does not fail on details
        _say(f"stack not reachable: {type(exc).__name__}: {exc}")
        rc = 1
    return rc


def use_stack_env() -> None:
    """Point this process at the local stack, unless CHUNKWISE_BUCKET names another."""
    if not local_stack_env().chunkwise_bucket:
        cfg = load_state()
        if cfg is not None:
            apply_env(cfg.env())
    apply_env({"AWS_ENDPOINT_URL": local_stack_env().aws_endpoint_url})


def _stack_settings() -> Settings:
    """The settings of the local stack's environment (see `use_stack_env`)."""
    use_stack_env()
    return load_settings()


def main_ingest(argv: Sequence[str]) -> int:
    p = parser(
        "chunkwise ingest",
        "Reconcile S3 keys with the index now, without the queue (the stack of "
        "`chunkwise local up`, or the one CHUNKWISE_BUCKET and friends name).",
        examples="  chunkwise ingest incoming/manual.pdf incoming/handbuch.docx",
    )
    p.add_argument("keys", nargs="+", help="object keys (decoded, as stored in S3)")
    add_progress_flag(p)
    args = parse_args(p, argv)
    if isinstance(args, int):
        return args
    from chunkwise.ingest.messages import ObjectChange
    from chunkwise.wiring import build_pipeline

    settings = _stack_settings()
    pipeline = build_pipeline(settings)
    rc = 0
    with showing_progress(args.progress):
        for key in progress.track(args.keys, "ingest: documents"):
            try:
                change = ObjectChange(settings.bucket, key, kind="reconcile", raw_key=key)
                res = pipeline.ingest(change)
                print(json.dumps(res.log_fields(), ensure_ascii=False))
            except Exception as exc:  # report per key and go on with the others
                warn(f"chunkwise ingest: {key}: {type(exc).__name__}: {exc}")
                rc = 1
    return rc


def _reconcile_parser() -> argparse.ArgumentParser:
    p = parser(
        "chunkwise reconcile",
        "sweep: compare the bucket's current versions with the live index and repair "
        "the drift (inline, or --enqueue one message per key); rechunk: create a new "
        "generation and enqueue every object for it; finish: verify that generation "
        "against the bucket, then swap the aliases to it; retention: erase the chunks "
        "and artifacts of revisions deleted or superseded longer ago than --older-than.",
        examples="""\
  chunkwise reconcile
  chunkwise reconcile rechunk && chunkwise local run --until-idle 5
  chunkwise reconcile finish 20260101t000000
  chunkwise reconcile retention --older-than 7d""",
    )
    p.add_argument(
        "action", nargs="?", default="sweep", choices=["sweep", "rechunk", "finish", "retention"]
    )
    p.add_argument(
        "generation", nargs="?", default=None, help="rechunk: its id (default: from the clock)"
    )
    p.add_argument("--enqueue", action="store_true", help="sweep: enqueue instead of inline")
    p.add_argument("--force", action="store_true", help="finish: swap even if incomplete")
    p.add_argument("--older-than", default=None, help="retention: e.g. 7d (default: setting)")
    add_progress_flag(p)
    return p


def main_reconcile(argv: Sequence[str]) -> int:
    args = parse_args(_reconcile_parser(), argv)
    if isinstance(args, int):
        return args
    actions: dict[str, Callable[[Settings, argparse.Namespace], int]] = {
        "retention": _reconcile_retention,
        "sweep": _reconcile_sweep,
        "rechunk": _reconcile_rechunk,
        "finish": _reconcile_finish,
    }
    return actions[args.action](_stack_settings(), args)


def _reconcile_retention(settings: Settings, args: argparse.Namespace) -> int:
    from chunkwise.wiring.operations import run_retention

    kept = run_retention(settings, args.older_than)
    print(json.dumps(kept.__dict__))
    return 0


def _reconcile_sweep(settings: Settings, args: argparse.Namespace) -> int:
    from chunkwise.wiring.operations import run_sweep

    with showing_progress(args.progress):
        res = run_sweep(settings, enqueue=args.enqueue)
    print(
        json.dumps(
            {
                "bucket_keys": res.bucket_keys,
                "indexed_keys": res.indexed_keys,
                "drifted": res.drifted,
                "enqueued": res.enqueued,
                "repaired": res.repaired,
                "failed": res.failed,
                "known_failures": res.known_failures,
            },
            ensure_ascii=False,
        )
    )
    return 1 if res.failed else 0


def _reconcile_rechunk(settings: Settings, args: argparse.Namespace) -> int:
    from chunkwise.wiring.operations import start_rechunk

    with showing_progress(args.progress):
        gen, n = start_rechunk(settings, args.generation)
    print(json.dumps({"generation": gen, "enqueued": n}))
    print(f"when the queue is drained: chunkwise reconcile finish {gen}", file=sys.stderr)
    return 0


def _reconcile_finish(settings: Settings, args: argparse.Namespace) -> int:
    from chunkwise.wiring.operations import finish_rechunk

    if not args.generation:
        print("chunkwise reconcile finish: GENERATION is required", file=sys.stderr)
        return 2
    with showing_progress(args.progress):
        check = finish_rechunk(settings, args.generation, force=args.force)
    print(
        json.dumps(
            {
                "generation": check.generation,
                "complete": check.complete,
                "bucket_keys": check.bucket_keys,
                "indexed_keys": check.indexed_keys,
                "missing": list(check.missing)[:50],
                "extra": list(check.extra)[:50],
                "swapped": check.complete or args.force,
            },
            ensure_ascii=False,
        )
    )
    return 0 if check.complete or args.force else 1
