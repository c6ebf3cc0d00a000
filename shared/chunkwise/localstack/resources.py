"""The stack's AWS-side resources on the emulator (or AWS): the versioned bucket, the
ingest queue with its DLQ, the bucket notification; their removal; queue depths.

Every call is idempotent: a resource an interrupted `up` left half-made (a bucket
without versioning, a queue without its redrive policy) is completed, not refused.
"""

from __future__ import annotations

import json
import time
from typing import Any

from chunkwise.localstack.config import StackConfig

QUEUE_DEPTHS = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]


def boto(service: str, cfg: StackConfig) -> Any:
    from chunkwise.adapters.boto import boto_client

    return boto_client(service, endpoint_url=cfg.endpoint_url, region_name=cfg.region)


def bucket_exists(s3: Any, bucket: str) -> bool:
    from chunkwise.adapters.boto import boto_errors

    try:
        s3.head_bucket(Bucket=bucket)
    except boto_errors() as exc:
        status = getattr(exc, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status in (403, 404):
            return False
        raise
    return True


def create_resources(cfg: StackConfig) -> bool:
    """Bucket (versioning on), queue + DLQ (redrive), notification. Returns whether
    the bucket was created now: the emulator held nothing of this stack before."""
    s3 = boto("s3", cfg)
    created = not bucket_exists(s3, cfg.bucket)
    if created:
        _create_bucket(s3, cfg)
    s3.put_bucket_versioning(Bucket=cfg.bucket, VersioningConfiguration={"Status": "Enabled"})
    queue_arn = _create_queues(cfg)
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
    return created


def _create_bucket(s3: Any, cfg: StackConfig) -> None:
    try:
        if cfg.region == "us-east-1":
            s3.create_bucket(Bucket=cfg.bucket)
        else:
            s3.create_bucket(
                Bucket=cfg.bucket, CreateBucketConfiguration={"LocationConstraint": cfg.region}
            )
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass


def _create_queues(cfg: StackConfig) -> str:
    """DLQ, then the ingest queue redriving to it; returns the ingest queue's ARN."""
    sqs = boto("sqs", cfg)
    cfg.dlq_url = sqs.create_queue(
        QueueName=cfg.dlq, Attributes={"MessageRetentionPeriod": "1209600"}
    )["QueueUrl"]
    attrs = {
        "VisibilityTimeout": str(cfg.visibility_timeout),
        "RedrivePolicy": json.dumps(
            {
                "deadLetterTargetArn": _arn(sqs, cfg.dlq_url),
                "maxReceiveCount": str(cfg.max_receive_count),
            }
        ),
    }
    cfg.queue_url = sqs.create_queue(QueueName=cfg.queue)["QueueUrl"]
    sqs.set_queue_attributes(QueueUrl=cfg.queue_url, Attributes=attrs)
    return _arn(sqs, cfg.queue_url)


def _arn(sqs: Any, queue_url: str) -> str:
    attrs = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])
    return str(attrs["Attributes"]["QueueArn"])


def delete_bucket_and_queues(cfg: StackConfig) -> list[str]:
    """The bucket with every version and delete marker, the queue and the DLQ. Best
    effort: returns what could not be removed (nothing of another stack's names)."""
    from chunkwise.adapters.boto import boto_errors

    failures: list[str] = []
    s3, sqs = boto("s3", cfg), boto("sqs", cfg)
    try:
        if bucket_exists(s3, cfg.bucket):
            _empty_bucket(s3, cfg.bucket)
            s3.delete_bucket(Bucket=cfg.bucket)
    except boto_errors() as exc:
        failures.append(f"bucket {cfg.bucket}: {exc}")
    for name in (cfg.queue, cfg.dlq):
        try:
            url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
            sqs.delete_queue(QueueUrl=url)
        except sqs.exceptions.QueueDoesNotExist:
            pass
        except boto_errors() as exc:
            failures.append(f"queue {name}: {exc}")
    return failures


def _empty_bucket(s3: Any, bucket: str) -> None:
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=bucket):
        objs = [
            {"Key": v["Key"], "VersionId": v["VersionId"]}
            for v in page.get("Versions", []) + page.get("DeleteMarkers", [])
        ]
        if objs:
            s3.delete_objects(Bucket=bucket, Delete={"Objects": objs})


def bucket_keys(cfg: StackConfig) -> list[str]:
    """The keys the bucket currently holds under the input prefix (delete markers: gone)."""
    from chunkwise.adapters.s3 import S3Bucket

    store = S3Bucket(cfg.bucket, boto("s3", cfg))
    return sorted(v.key for v in store.list_current(cfg.input_prefix))


def queue_depths(cfg: StackConfig) -> dict[str, int]:
    sqs = boto("sqs", cfg)
    out = {}
    for name, url in (("queue", cfg.queue_url), ("dlq", cfg.dlq_url)):
        a = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=QUEUE_DEPTHS)["Attributes"]
        out[name] = int(a.get("ApproximateNumberOfMessages", 0))
        out[f"{name}_in_flight"] = int(a.get("ApproximateNumberOfMessagesNotVisible", 0))
    return out


def wait_until_drained(cfg: StackConfig, idle: float, poll: float = 5.0) -> float:
    """Block until the ingest queue has held nothing, waiting or in flight, for
    ``idle`` seconds (others drain it: the ingest functions); returns the seconds
    waited."""
    sqs = boto("sqs", cfg)
    start = empty_since = time.monotonic()
    while time.monotonic() - empty_since < idle:
        attrs = sqs.get_queue_attributes(QueueUrl=cfg.queue_url, AttributeNames=QUEUE_DEPTHS)
        if any(int(attrs["Attributes"].get(n, 0)) for n in QUEUE_DEPTHS):
            empty_since = time.monotonic()
        time.sleep(poll)
    return time.monotonic() - start
