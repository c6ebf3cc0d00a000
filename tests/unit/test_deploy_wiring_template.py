"""The wiring checks of the deploy tests (tests/deploy/checks.py) on template.yaml,
resolved offline: each holds for the template, and each fails on a template broken
on purpose (the notification gone, the receive count changed, a policy widened, ...),
without deploying. tests/deploy/test_wiring_deployed.py runs the same checks on what
the deployed stack's services return (`make test-deploy`)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.deploy import calls, checks
from tests.deploy import template_policies as tp

OVERRIDES = tp.EXISTING_DOMAIN
Tpl = dict[str, Any]


@pytest.fixture(scope="module")
def template() -> Tpl:
    return tp.load_template()


def _res(tpl: Tpl, name: str) -> dict[str, Any]:
    props: dict[str, Any] = tpl["Resources"][name]["Properties"]
    return props


def notification(tpl: Tpl) -> dict[str, Any]:
    """DocumentBucket's NotificationConfiguration as GetBucketNotificationConfiguration
    returns it."""
    r = tp.Resolver(tpl, OVERRIDES)
    conf = r.value(_res(tpl, "DocumentBucket").get("NotificationConfiguration", {}))
    return {
        "QueueConfigurations": [
            {
                "QueueArn": q["Queue"],
                "Events": [q["Event"]],
                "Filter": {
                    "Key": {"FilterRules": q.get("Filter", {}).get("S3Key", {}).get("Rules", [])}
                },
            }
            for q in conf.get("QueueConfigurations", [])
        ]
    }


def check_notification(tpl: Tpl) -> list[str]:
    r = tp.Resolver(tpl, OVERRIDES)
    return checks.notification_problems(
        notification(tpl), r.arn("IngestQueue"), r.params["InputPrefix"]
    )


def check_queue_policy(tpl: Tpl) -> list[str]:
    r = tp.Resolver(tpl, OVERRIDES)
    doc = r.value(_res(tpl, "IngestQueuePolicy")["PolicyDocument"])
    bucket = r.arn("DocumentBucket").removeprefix("arn:aws:s3:::")
    return checks.queue_policy_problems(doc, r.arn("IngestQueue"), bucket, tp.ACCOUNT)


def check_redrive(tpl: Tpl) -> list[str]:
    r = tp.Resolver(tpl, OVERRIDES)
    rp = r.value(_res(tpl, "IngestQueue").get("RedrivePolicy"))
    attrs = {"RedrivePolicy": json.dumps(rp)} if rp else {}
    return checks.redrive_problems(attrs, r.arn("IngestDLQ"), int(r.params["MaxReceiveCount"]))


def check_schedules(tpl: Tpl) -> list[str]:
    r = tp.Resolver(tpl, OVERRIDES)
    fn = r.arn("ReconcileFunction")
    events = r.value(_res(tpl, "ReconcileFunction").get("Events", {}))
    found = [
        {
            "ScheduleExpression": e["Properties"]["ScheduleExpression"],
            "State": e["Properties"].get("State", "ENABLED"),
            "Target": {"Arn": fn, "Input": e["Properties"].get("Input")},
        }
        for e in events.values()
        if e["Type"] == "ScheduleV2"
    ]
    expected = {
        r.params["ReconcileSchedule"]: None,
        r.params["RetentionSchedule"]: '{"action": "retention"}',
    }
    return checks.schedule_problems(found, fn, expected)


def check_custom_resource(tpl: Tpl) -> list[str]:
    r = tp.Resolver(tpl, OVERRIDES)
    res = [{"LogicalResourceId": k, "ResourceType": v["Type"]} for k, v in tpl["Resources"].items()]
    token = (
        r.value(tpl["Resources"]["SearchIndex"]["Properties"]["ServiceToken"])
        if "SearchIndex" in tpl["Resources"]
        else ""
    )
    return checks.custom_resource_problems(res, token, r.arn("AdminFunction"))


def check_policies(tpl: Tpl) -> list[str]:
    names = calls.Names(**tp.names(tpl, OVERRIDES))
    return checks.policy_problems(tp.role_policies(tpl, OVERRIDES), names)


CHECKS: dict[str, Callable[[Tpl], list[str]]] = {
    "notification": check_notification,
    "queue-policy": check_queue_policy,
    "redrive": check_redrive,
    "schedules": check_schedules,
    "custom-resource": check_custom_resource,
    "policies": check_policies,
}


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_the_template_passes_every_wiring_check(template: Tpl, check: str) -> None:
    assert CHECKS[check](template) == []


def _statements(tpl: Tpl, fn: str) -> list[dict[str, Any]]:
    if fn == calls.INGEST:
        st: list[dict[str, Any]] = _res(tpl, "IngestRole")["Policies"][0]["PolicyDocument"][
            "Statement"
        ]
        return st
    st = _res(tpl, fn)["Policies"][0]["Statement"]
    return st


def _sid(tpl: Tpl, fn: str, sid: str) -> dict[str, Any]:
    return next(s for s in _statements(tpl, fn) if s.get("Sid") == sid)


def _no_notification(t: Tpl) -> None:
    del _res(t, "DocumentBucket")["NotificationConfiguration"]


def _created_only(t: Tpl) -> None:
    qc = _res(t, "DocumentBucket")["NotificationConfiguration"]["QueueConfigurations"]
    qc[:] = [q for q in qc if q["Event"] != "s3:ObjectRemoved:*"]


def _notify_whole_bucket(t: Tpl) -> None:
    for q in _res(t, "DocumentBucket")["NotificationConfiguration"]["QueueConfigurations"]:
        q.pop("Filter")


def _notify_dlq(t: Tpl) -> None:
    for q in _res(t, "DocumentBucket")["NotificationConfiguration"]["QueueConfigurations"]:
        q["Queue"] = {"Fn::GetAtt": ["IngestDLQ", "Arn"]}


def _queue_policy_any_bucket(t: Tpl) -> None:
    _res(t, "IngestQueuePolicy")["PolicyDocument"]["Statement"][0].pop("Condition")


def _queue_policy_no_allow(t: Tpl) -> None:
    st = _res(t, "IngestQueuePolicy")["PolicyDocument"]["Statement"]
    st[:] = [s for s in st if s["Effect"] != "Allow"]


def _receive_count_1(t: Tpl) -> None:
    _res(t, "IngestQueue")["RedrivePolicy"]["maxReceiveCount"] = 1


def _no_redrive(t: Tpl) -> None:
    del _res(t, "IngestQueue")["RedrivePolicy"]


def _no_retention_schedule(t: Tpl) -> None:
    del _res(t, "ReconcileFunction")["Events"]["Retention"]


def _retention_without_input(t: Tpl) -> None:
    del _res(t, "ReconcileFunction")["Events"]["Retention"]["Properties"]["Input"]


def _custom_resource_to_ingest(t: Tpl) -> None:
    _res(t, "SearchIndex")["ServiceToken"] = {"Fn::GetAtt": ["IngestFunction", "Arn"]}


def _no_custom_resource(t: Tpl) -> None:
    del t["Resources"]["SearchIndex"]


def _query_may_put(t: Tpl) -> None:
    _sid(t, calls.QUERY, "OpenSearchDomainRead")["Action"].append("es:ESHttpPut")


def _query_may_delete_anything(t: Tpl) -> None:
    _sid(t, calls.QUERY, "OpenSearchPointInTimeDelete")["Resource"] = {
        "Fn::Sub": "${OpenSearchResourceArn}/*"
    }


def _query_reads_bucket(t: Tpl) -> None:
    _statements(t, calls.QUERY).append(
        {
            "Effect": "Allow",
            "Action": "s3:GetObject",
            "Resource": {"Fn::Sub": "${DocumentBucket.Arn}/*"},
        }
    )


def _ingest_reads_whole_bucket(t: Tpl) -> None:
    _sid(t, calls.INGEST, "ReadDocuments")["Resource"] = {"Fn::Sub": "${DocumentBucket.Arn}/*"}


def _ingest_without_list(t: Tpl) -> None:
    st = _statements(t, calls.INGEST)
    st[:] = [s for s in st if "s3:ListBucketVersions" not in s.get("Action", [])]


def _admin_passes_anywhere(t: Tpl) -> None:
    _sid(t, calls.ADMIN, "PassQueryConnectorRole").pop("Condition")


def _reconcile_any_sqs(t: Tpl) -> None:
    _sid(t, calls.RECONCILE, "FanOut")["Action"] = "sqs:*"


BROKEN: dict[str, tuple[str, Callable[[Tpl], None]]] = {
    "no notification": ("notification", _no_notification),
    "created events only": ("notification", _created_only),
    "whole bucket notified": ("notification", _notify_whole_bucket),
    "notification to the DLQ": ("notification", _notify_dlq),
    "queue policy without SourceArn": ("queue-policy", _queue_policy_any_bucket),
    "queue policy without its Allow": ("queue-policy", _queue_policy_no_allow),
    "maxReceiveCount 1, parameter 5": ("redrive", _receive_count_1),
    "no redrive": ("redrive", _no_redrive),
    "no retention schedule": ("schedules", _no_retention_schedule),
    "retention schedule without input": ("schedules", _retention_without_input),
    "custom resource served by ingest": ("custom-resource", _custom_resource_to_ingest),
    "no custom resource": ("custom-resource", _no_custom_resource),
    "query may PUT": ("policies", _query_may_put),
    "query may DELETE anything": ("policies", _query_may_delete_anything),
    "query reads the raw bucket": ("policies", _query_reads_bucket),
    "ingest reads outside InputPrefix": ("policies", _ingest_reads_whole_bucket),
    "ingest cannot list versions": ("policies", _ingest_without_list),
    "admin passes its role to any service": ("policies", _admin_passes_anywhere),
    "reconcile may receive": ("policies", _reconcile_any_sqs),
}


@pytest.mark.parametrize("variant", sorted(BROKEN))
def test_each_check_fails_on_a_template_broken_on_purpose(template: Tpl, variant: str) -> None:
    check, breaker = BROKEN[variant]
    broken = copy.deepcopy(template)
    breaker(broken)
    problems = CHECKS[check](broken)
    assert problems, f"{check} did not notice: {variant}"
    # Only the broken fact fails: the other checks still pass.
    for other in CHECKS:
        if other != check and other != "policies":
            assert CHECKS[other](broken) == [], (variant, other)
