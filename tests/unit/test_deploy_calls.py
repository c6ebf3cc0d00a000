"""tests/deploy/calls.py is tied to the shipped code: every boto3 operation the
functions' code calls maps to IAM actions listed for some function, and every S3,
SQS and Bedrock action listed as the code's is produced by an operation the code
calls. A new adapter call without its entry (or a stale entry) fails here."""

from __future__ import annotations

import re
from pathlib import Path

import botocore.session
from botocore import xform_name

from tests.deploy import calls

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("s3", "sqs", "bedrock-runtime", "textract")
NOT_SHIPPED = ("chunkwise/cli", "chunkwise/evaluation", "chunkwise/localstack")

# boto3 operation -> the IAM actions it needs (the service authorisation reference).
OP_ACTIONS: dict[str, tuple[str, ...]] = {
    "head_object": ("s3:GetObject",),
    "get_object": ("s3:GetObject", "s3:GetObjectVersion"),
    "list_object_versions": ("s3:ListBucketVersions",),
    "put_object": ("s3:PutObject",),
    "delete_objects": ("s3:DeleteObject",),
    "send_message_batch": ("sqs:SendMessage",),
    "invoke_model": ("bedrock:InvokeModel",),
    "detect_document_text": ("textract:DetectDocumentText",),
}
# Needed by the code though no operation names it: a 404 (rather than 403) from
# head_object/get_object of a missing key needs s3:ListBucket on the bucket.
IMPLIED = {"s3:ListBucket"}


def _operations() -> set[str]:
    session = botocore.session.get_session()
    ops: set[str] = set()
    for svc in SERVICES:
        ops |= {xform_name(o) for o in session.get_service_model(svc).operation_names}
    return ops


def _shipped_sources() -> list[Path]:
    files = [
        p
        for p in (ROOT / "shared" / "chunkwise").rglob("*.py")
        if not any(n in p.as_posix() for n in NOT_SHIPPED)
    ]
    return files + sorted((ROOT / "functions").glob("*/*.py"))


def called_operations() -> dict[str, list[str]]:
    ops, found = _operations(), {}
    method = re.compile(r"\.(\w+)\(")
    paginated = re.compile(r"get_paginator\(\s*[\"'](\w+)[\"']")
    for path in _shipped_sources():
        text = path.read_text(encoding="utf-8")
        for name in method.findall(text) + paginated.findall(text):
            if name in ops:
                found.setdefault(name, []).append(path.relative_to(ROOT).as_posix())
    return found


def test_the_scan_sees_the_known_calls() -> None:
    # The scan itself must work: these calls exist today (adapters/s3.py, sqs.py).
    assert {"get_object", "list_object_versions", "send_message_batch"} <= set(called_operations())


def test_every_operation_the_code_calls_is_in_the_list() -> None:
    listed = {c.action for fn in calls.FUNCTIONS for c in calls.NEEDED[fn]} | set(calls.CONDITIONAL)
    for op, where in called_operations().items():
        assert op in OP_ACTIONS, f"{op} ({where}): map it to IAM actions here and in calls.py"
        missing = set(OP_ACTIONS[op]) - listed
        assert not missing, f"{op} ({where}) needs {missing}: add to tests/deploy/calls.py"


def test_every_listed_action_of_the_code_is_called() -> None:
    produced = {a for op in called_operations() for a in OP_ACTIONS.get(op, ())} | IMPLIED
    for fn in calls.FUNCTIONS:
        for c in calls.NEEDED[fn]:
            if c.by != "code" or c.action.split(":")[0] not in ("s3", "sqs", "bedrock"):
                continue
            assert c.action in produced, f"{fn}: {c.action} is listed but no code calls it"
