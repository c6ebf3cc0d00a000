"""The wiring facts of the stack as checks over configuration in the shape the AWS
APIs return it. Each returns the list of what is wrong (empty: the fact holds).

The deploy tests feed them what the deployed stack's services return; the unit tests
feed them template.yaml's resources (converted to the same shapes) and broken
variants of it, so each check is shown to fail on a broken template without a deploy.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from tests.deploy import calls, iam


def policy_problems(policies: Mapping[str, list[Any]], names: calls.Names) -> list[str]:
    """Each function's role against calls.py: NEEDED allowed, DENIED not, and the
    KNOWN_GAPS still as recorded (allowed)."""
    out = []
    for fn in calls.FUNCTIONS:
        docs = policies[fn]
        for c in calls.NEEDED[fn]:
            d = iam.evaluate(docs, c.action, c.arn(names), dict(c.context))
            if d != iam.ALLOWED:
                out.append(f"{fn}: {c.action} on {c.arn(names)} is {d} (needed: {c.why})")
        for c in calls.DENIED.get(fn, ()):
            if iam.evaluate(docs, c.action, c.arn(names), dict(c.context)) == iam.ALLOWED:
                out.append(f"{fn}: {c.action} on {c.arn(names)} is allowed (must not be: {c.why})")
        for c in calls.KNOWN_GAPS.get(fn, ()):
            if iam.evaluate(docs, c.action, c.arn(names), dict(c.context)) != iam.ALLOWED:
                out.append(
                    f"{fn}: known gap {c.action} on {c.arn(names)} is closed now: "
                    "move it to DENIED in tests/deploy/calls.py"
                )
    return out


def notification_problems(config: Mapping[str, Any], queue_arn: str, prefix: str) -> list[str]:
    """The bucket notifies the queue of every create and delete under the prefix
    (GetBucketNotificationConfiguration's shape)."""
    out = []
    for event in ("s3:ObjectCreated:*", "s3:ObjectRemoved:*"):
        targets = [q for q in config.get("QueueConfigurations", []) if event in q.get("Events", [])]
        if not any(q.get("QueueArn") == queue_arn for q in targets):
            out.append(f"no {event} notification to {queue_arn} (found {targets})")
            continue
        for q in targets:
            rules = {
                r["Name"].lower(): r["Value"]
                for r in q.get("Filter", {}).get("Key", {}).get("FilterRules", [])
            }
            if rules.get("prefix") != prefix:
                out.append(f"{event}: key filter {rules}, expected prefix {prefix!r}")
    return out


def _for_s3(statements: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    def principal_ok(p: Any) -> bool:
        if p == "*":
            return True
        svc = p.get("Service", []) if isinstance(p, dict) else []
        return (
            "s3.amazonaws.com" in (svc if isinstance(svc, list) else [svc]) or p.get("AWS") == "*"
        )

    return [s for s in statements if principal_ok(s.get("Principal"))]


def queue_policy_problems(
    policy: Mapping[str, Any] | str, queue_arn: str, bucket: str, account: str
) -> list[str]:
    """S3 may send the bucket's notifications to the queue, for that bucket only
    (the queue's resource policy, its Principal s3.amazonaws.com)."""
    sts = _for_s3(iam.statements([policy]))
    ctx = {
        "aws:SourceArn": f"arn:aws:s3:::{bucket}",
        "aws:SourceAccount": account,
        "aws:SecureTransport": "true",
    }
    out = []
    if iam.evaluate([{"Statement": sts}], "sqs:SendMessage", queue_arn, ctx) != iam.ALLOWED:
        out.append(f"s3.amazonaws.com may not send {bucket}'s notifications to {queue_arn}")
    other = {**ctx, "aws:SourceArn": "arn:aws:s3:::someone-elses-bucket"}
    if iam.evaluate([{"Statement": sts}], "sqs:SendMessage", queue_arn, other) == iam.ALLOWED:
        out.append("any bucket's notifications may reach the queue")
    return out


def redrive_problems(attributes: Mapping[str, str], dlq_arn: str, max_receive: int) -> list[str]:
    """The queue's RedrivePolicy (GetQueueAttributes' JSON string)."""
    raw = attributes.get("RedrivePolicy")
    if not raw:
        return ["the queue has no RedrivePolicy"]
    rp = json.loads(raw)
    out = []
    if rp.get("deadLetterTargetArn") != dlq_arn:
        out.append(f"dead letters go to {rp.get('deadLetterTargetArn')}, not {dlq_arn}")
    if int(rp.get("maxReceiveCount", 0)) != max_receive:
        out.append(f"maxReceiveCount {rp.get('maxReceiveCount')}, expected {max_receive}")
    return out


def schedule_problems(
    schedules: Iterable[Mapping[str, Any]], function_arn: str, expected: Mapping[str, str | None]
) -> list[str]:
    """``expected``: schedule expression -> the target's Input (None: no input) for
    the reconcile function (EventBridge Scheduler's GetSchedule shape)."""
    found = {
        s["ScheduleExpression"]: s
        for s in schedules
        if s.get("Target", {}).get("Arn") == function_arn
    }
    out = []
    for expr, want in expected.items():
        s = found.get(expr)
        if s is None:
            out.append(f"no schedule {expr!r} targeting {function_arn} (found {sorted(found)})")
            continue
        got = s["Target"].get("Input")
        if (json.loads(got) if got else None) != (json.loads(want) if want else None):
            out.append(f"schedule {expr!r}: input {got!r}, expected {want!r}")
        if s.get("State", "ENABLED") != "ENABLED":
            out.append(f"schedule {expr!r} is {s['State']}")
    return out


def custom_resource_problems(
    resources: Iterable[Mapping[str, Any]], service_token: str, admin_fn_arn: str
) -> list[str]:
    """SearchIndex exists, of type Custom::ChunkwiseIndex, its ServiceToken the admin
    function."""
    found = [r for r in resources if r.get("LogicalResourceId") == "SearchIndex"]
    if not found:
        return ["no resource SearchIndex in the stack"]
    out = []
    if found[0].get("ResourceType") != "Custom::ChunkwiseIndex":
        out.append(f"SearchIndex is {found[0].get('ResourceType')}")
    if service_token != admin_fn_arn:
        out.append(
            f"SearchIndex's ServiceToken {service_token}, not the admin function {admin_fn_arn}"
        )
    return out
