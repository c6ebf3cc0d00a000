"""Access control's pure half: identities from verified claims, the access clause, and
its combination with the caller's own filter."""

from __future__ import annotations

from typing import Any

import pytest

from chunkwise.access import (
    AccessMode,
    AuthError,
    AuthReason,
    Identity,
    access_clause,
    combine,
    identity_from_claims,
)
from chunkwise.access.identity import MAX_IDENTITY_GROUPS
from chunkwise.errors import ConfigError
from chunkwise.metadata import NO_READERS, AttributeType, AttributeValue, DocumentMetadata
from chunkwise.metadata import translate as translate_filter
from tests.metadata_eval import Doc, clause_matches

ISS = "https://issuer.example"


def claims(**extra: Any) -> dict[str, Any]:
    return {"sub": "alice", "iss": ISS, **extra}


# --------------------------------------------------------------------------- identities


def test_the_groups_claim_becomes_the_identitys_groups() -> None:
    identity = identity_from_claims(claims(groups=["b", "a", "a"]), "groups")
    assert identity == Identity("alice", ISS, frozenset({"a", "b"}))
    cognito = identity_from_claims(claims(**{"cognito:groups": ["legal"]}), "cognito:groups")
    assert cognito.groups == {"legal"}


def test_an_absent_claim_is_no_groups_and_other_claims_are_never_read() -> None:
    identity = identity_from_claims(claims(roles=["admins"], group="admins"), "groups")
    assert identity.groups == frozenset()


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("admins", "a string"),  # one string is refused, not split
        ("[admins staff]", "a string"),  # API Gateway's flattening of an array claim
        ([1, 2], "is not a string"),
        (["ok", None], "is not a string"),
        ({"admins": True}, "dict"),
        (True, "bool"),
        (7, "int"),
        (["tab\there"], "control characters"),
        ([""], "1-256"),
        (["g" * 257], "1-256"),
        ([f"g{i}" for i in range(MAX_IDENTITY_GROUPS + 1)], "more than"),
    ],
)
def test_a_groups_claim_of_the_wrong_shape_is_forbidden(value: Any, detail: str) -> None:
    with pytest.raises(AuthError) as info:
        identity_from_claims(claims(groups=value), "groups")
    assert info.value.reason is AuthReason.BAD_GROUPS_CLAIM
    assert info.value.status == 403
    assert detail in str(info.value)
    assert "admins" not in info.value.public


@pytest.mark.parametrize("missing", ["sub", "iss"])
def test_subject_and_issuer_are_required_strings(missing: str) -> None:
    given = claims(groups=["a"])
    del given[missing]
    with pytest.raises(AuthError) as info:
        identity_from_claims(given, "groups")
    assert (info.value.reason, info.value.status) == (AuthReason.MALFORMED, 401)
    for bad in (7, "", "x\x00y", "s" * 1025):
        with pytest.raises(AuthError):
            identity_from_claims({**claims(), missing: bad}, "groups")


# --------------------------------------------------------------------------- the clause


def alice(*groups: str) -> Identity:
    return Identity("alice", ISS, frozenset(groups))


def test_mode_none_adds_nothing() -> None:
    assert access_clause(None, AccessMode.NONE) is None
    assert access_clause(alice(), AccessMode.NONE, admin_group="admins") is None


def test_mode_groups_limits_to_the_callers_groups() -> None:
    assert access_clause(alice("b", "a"), AccessMode.GROUPS) == {"terms": {"readers": ["a", "b"]}}


def test_the_admin_group_sees_everything() -> None:
    clause = access_clause(alice("admins", "a"), AccessMode.GROUPS, admin_group="admins")
    assert clause == {"match_all": {}}
    # ... but only the configured admin group.
    assert access_clause(alice("admins"), AccessMode.GROUPS) == {"terms": {"readers": ["admins"]}}


def test_no_identity_is_401_and_no_groups_is_403() -> None:
    with pytest.raises(AuthError) as info:
        access_clause(None, AccessMode.GROUPS)
    assert (info.value.reason, info.value.status) == (AuthReason.MISSING, 401)
    with pytest.raises(AuthError) as info:
        access_clause(alice(), AccessMode.GROUPS, admin_group="admins")
    assert (info.value.reason, info.value.status) == (AuthReason.NO_GROUPS, 403)


def test_a_bad_admin_group_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match="admin_group"):
        access_clause(alice("a"), AccessMode.GROUPS, admin_group="bad\nname")


def _doc(readers: tuple[str, ...] | None, **attrs: str) -> dict[str, Any]:
    meta = DocumentMetadata(
        {k: AttributeValue(AttributeType.STRING, v) for k, v in attrs.items()}, readers=readers
    )
    return Doc("d", "k", meta).source()


def test_documents_without_readers_are_seen_by_the_admin_group_only() -> None:
    unreadable = _doc(None)
    assert unreadable["readers"] == [NO_READERS]
    everyone = [alice(*g) for g in (("a",), ("a", "b", "c"), (NO_READERS.strip("\x00"),))]
    for identity in everyone:
        clause = access_clause(identity, AccessMode.GROUPS, admin_group="admins")
        assert clause is not None and not clause_matches(clause, unreadable)
    admin = access_clause(alice("admins"), AccessMode.GROUPS, admin_group="admins")
    assert admin is not None and clause_matches(admin, unreadable)


@pytest.mark.parametrize(
    "user_filter",
    [
        # an orAll with a member every document matches
        {"orAll": [{"notEquals": {"key": "nobody_has", "value": "x"}},
                   {"equals": {"key": "team", "value": "hr"}}]},
        {"notEquals": {"key": "team", "value": "nothing"}},
        {"notIn": {"key": "team", "value": ["nothing"]}},
        {"stringContains": {"key": "team", "value": "l"}},
        {"startsWith": {"key": "x-amz-bedrock-kb-source-uri", "value": "s3://"}},
    ],
)  # fmt: skip
def test_no_user_filter_widens_the_access_clause(user_filter: dict[str, Any]) -> None:
    docs = {
        "own": _doc(("a",), team="legal"),
        "other": _doc(("b",), team="hr"),
        "none": _doc(None, team="legal"),
    }
    access = access_clause(alice("a"), AccessMode.GROUPS, admin_group="admins")
    user = translate_filter(user_filter, source_bucket="bkt")
    combined = combine(access, user)
    assert combined == {"bool": {"filter": [access, user]}}
    seen = {name for name, src in docs.items() if clause_matches(combined, src)}
    assert seen <= {"own"}
    # the caller's filter alone would have let more through: the test has teeth
    assert {n for n, src in docs.items() if clause_matches(user, src)} - {"own"}


def test_combine_without_an_access_clause_or_a_filter() -> None:
    user = {"term": {"meta.s.a": "x"}}
    assert combine(None, user) == {"bool": {"filter": [user]}}
    assert combine(None, None) == {"match_all": {}}
