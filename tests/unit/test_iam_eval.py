"""tests/deploy/iam.py: the policy evaluator the deploy tests trust."""

from __future__ import annotations

import json
import urllib.parse

import pytest

from tests.deploy.iam import ALLOWED, EXPLICIT_DENY, IMPLICIT_DENY, evaluate, matches

B = "arn:aws:s3:::docs"


def doc(*statements: dict) -> dict:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def allow(action: object, resource: object, **kw: object) -> dict:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **kw}


def test_wildcards() -> None:
    assert matches("arn:aws:s3:::docs/incoming/*", f"{B}/incoming/a/b.pdf")
    assert not matches("arn:aws:s3:::docs/incoming/*", f"{B}/other/a.pdf")
    assert matches("s3:Get*", "s3:GetObjectVersion", ignore_case=True)
    assert matches("s3:getobject", "s3:GetObject", ignore_case=True)
    assert not matches("arn:aws:s3:::Docs/*", f"{B}/x")  # resources: case counts
    assert matches("a?c", "abc") and not matches("a?c", "abbc")
    # fnmatch's [..] is no IAM syntax
    assert not matches("arn:[ab]", "arn:a") and matches("arn:[ab]", "arn:[ab]")


def test_allow_deny_and_default() -> None:
    p = [doc(allow(["s3:GetObject", "s3:GetObjectVersion"], f"{B}/incoming/*"))]
    assert evaluate(p, "s3:GetObject", f"{B}/incoming/x") == ALLOWED
    assert evaluate(p, "s3:PutObject", f"{B}/incoming/x") == IMPLICIT_DENY
    assert evaluate(p, "s3:GetObject", f"{B}/x") == IMPLICIT_DENY
    deny = doc({"Effect": "Deny", "Action": "s3:*", "Resource": "*"})
    assert evaluate([*p, deny], "s3:GetObject", f"{B}/incoming/x") == EXPLICIT_DENY
    assert evaluate([deny, *p], "s3:GetObject", f"{B}/incoming/x") == EXPLICIT_DENY


def test_not_action_and_not_resource() -> None:
    p = [doc({"Effect": "Allow", "NotAction": "iam:*", "NotResource": f"{B}/secret/*"})]
    assert evaluate(p, "s3:GetObject", f"{B}/a") == ALLOWED
    assert evaluate(p, "iam:PassRole", f"{B}/a") == IMPLICIT_DENY
    assert evaluate(p, "s3:GetObject", f"{B}/secret/a") == IMPLICIT_DENY


def test_conditions() -> None:
    p = [
        doc(
            allow(
                "iam:PassRole",
                "arn:aws:iam::1:role/r",
                Condition={"StringEquals": {"iam:PassedToService": "es.amazonaws.com"}},
            )
        )
    ]
    assert (
        evaluate(
            p, "iam:PassRole", "arn:aws:iam::1:role/r", {"iam:PassedToService": "es.amazonaws.com"}
        )
        == ALLOWED
    )
    assert (
        evaluate(
            p,
            "iam:PassRole",
            "arn:aws:iam::1:role/r",
            {"iam:PassedToService": "lambda.amazonaws.com"},
        )
        == IMPLICIT_DENY
    )
    assert evaluate(p, "iam:PassRole", "arn:aws:iam::1:role/r") == IMPLICIT_DENY
    d = [
        doc(
            {
                "Effect": "Deny",
                "Action": "*",
                "Resource": "*",
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            }
        ),
        doc(allow("sqs:*", "*")),
    ]
    assert evaluate(d, "sqs:SendMessage", "q", {"aws:SecureTransport": "true"}) == ALLOWED
    assert evaluate(d, "sqs:SendMessage", "q", {"aws:SecureTransport": "false"}) == EXPLICIT_DENY
    like = [
        doc(
            allow(
                "sqs:SendMessage",
                "q",
                Condition={"ArnLike": {"aws:SourceArn": "arn:aws:s3:::cw-*"}},
            )
        )
    ]
    assert (
        evaluate(like, "sqs:SendMessage", "q", {"aws:SourceArn": "arn:aws:s3:::cw-docs"}) == ALLOWED
    )
    assert (
        evaluate(like, "sqs:SendMessage", "q", {"aws:SourceArn": "arn:aws:s3:::x"}) == IMPLICIT_DENY
    )


def test_json_as_iam_returns_it() -> None:
    text = json.dumps(doc(allow("s3:GetObject", "*")))
    assert evaluate([text], "s3:GetObject", "x") == ALLOWED
    assert evaluate([urllib.parse.quote(text)], "s3:GetObject", "x") == ALLOWED


def test_what_it_cannot_evaluate_raises() -> None:
    with pytest.raises(ValueError):
        evaluate(
            [doc(allow("s3:GetObject", "arn:aws:s3:::${aws:username}/*"))], "s3:GetObject", "x"
        )
    with pytest.raises(ValueError):
        evaluate(
            [doc(allow("s3:GetObject", "*", Condition={"IpAddress": {"aws:SourceIp": "1.2.3.4"}}))],
            "s3:GetObject",
            "x",
            {"aws:SourceIp": "1.2.3.4"},
        )
