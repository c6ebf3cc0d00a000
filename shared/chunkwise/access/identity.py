"""Who is asking: the access mode, a verified caller's identity, and why a caller is refused
(pure). samdocs/metadata-and-access.md, "Access control".

An `Identity` is made from the claims of a token whose signature, issuer, audience and
lifetime have been verified (`chunkwise.adapters.jwt`), and from nothing else: no
request parameter, header or body field can add a group.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from chunkwise.errors import ChunkwiseError
from chunkwise.metadata.model import group_refusal

#: At most this many groups in one identity (a token with more is refused, not cut:
#: cutting would decide at random which documents the caller loses).
MAX_IDENTITY_GROUPS = 200
MAX_SUBJECT_CHARS = 1024


class AccessMode(StrEnum):
    #: The invoke permission is the only gate: every caller sees every document.
    NONE = "none"
    #: A caller sees the documents whose readers share a group with the caller's.
    GROUPS = "groups"


class AuthReason(StrEnum):
    MISSING = "missing"  # no bearer token
    MALFORMED = "malformed"  # not a JWT, or a required claim missing or of the wrong type
    BAD_ALGORITHM = "bad_algorithm"  # none, HS*, or an algorithm the key is not for
    UNKNOWN_KEY = "unknown_key"  # no key of the issuer's JWKS has the token's key id
    BAD_SIGNATURE = "bad_signature"
    EXPIRED = "expired"
    NOT_YET_VALID = "not_yet_valid"
    WRONG_ISSUER = "wrong_issuer"
    WRONG_AUDIENCE = "wrong_audience"
    BAD_GROUPS_CLAIM = "bad_groups_claim"  # authentic token, unusable groups claim
    NO_GROUPS = "no_groups"  # authentic token without groups, in access mode groups


_FORBIDDEN = frozenset({AuthReason.BAD_GROUPS_CLAIM, AuthReason.NO_GROUPS})


class AuthError(ChunkwiseError):
    """A caller that is not let in. ``status`` is 401 (no valid token: authenticate) or
    403 (a valid token that grants nothing here); ``public`` is safe to return and never
    holds a claim value, the message is for the log."""

    def __init__(self, reason: AuthReason, detail: str = "") -> None:
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)
        self.reason = reason
        self.status = 403 if reason in _FORBIDDEN else 401
        self.public = "forbidden" if self.status == 403 else f"unauthorized ({reason.value})"


@dataclass(frozen=True)
class Identity:
    """A verified caller: the token's subject and issuer, and the groups it names."""

    subject: str
    issuer: str
    groups: frozenset[str] = frozenset()


def identity_from_claims(claims: Mapping[str, Any], groups_claim: str) -> Identity:
    """The identity of a verified token's claims. ``groups_claim`` names the claim that
    lists the caller's groups (``cognito:groups`` for Amazon Cognito, ``groups`` for many
    OIDC providers); it must be a JSON array of group names.

    A single string is refused, not split: an API Gateway HTTP API JWT authorizer hands
    a Lambda array claims flattened to one string (``"[admins staff]"``), and no split of
    such a string is right for group names with spaces. Verify the raw bearer token
    instead (`chunkwise.adapters.jwt.TokenVerifier`). An absent claim is no groups."""
    subject = _required_string(claims, "sub")
    issuer = _required_string(claims, "iss")
    raw = claims.get(groups_claim)
    if raw is None:
        return Identity(subject, issuer)
    if not isinstance(raw, list | tuple):
        kind = "a string" if isinstance(raw, str) else type(raw).__name__
        raise AuthError(AuthReason.BAD_GROUPS_CLAIM, f"{groups_claim} is {kind}, not a list")
    if len(raw) > MAX_IDENTITY_GROUPS:
        raise AuthError(
            AuthReason.BAD_GROUPS_CLAIM, f"{groups_claim} has more than {MAX_IDENTITY_GROUPS}"
        )
    for i, group in enumerate(raw):
        if not isinstance(group, str):
            raise AuthError(AuthReason.BAD_GROUPS_CLAIM, f"{groups_claim}[{i}] is not a string")
        reason = group_refusal(group)
        if reason:
            raise AuthError(AuthReason.BAD_GROUPS_CLAIM, f"{groups_claim}[{i}]: {reason}")
    return Identity(subject, issuer, frozenset(raw))


def _required_string(claims: Mapping[str, Any], name: str) -> str:
    value = claims.get(name)
    if not isinstance(value, str) or not value or len(value) > MAX_SUBJECT_CHARS:
        raise AuthError(AuthReason.MALFORMED, f"claim {name} must be a non-empty string")
    if any(unicodedata.category(ch) == "Cc" for ch in value):
        raise AuthError(AuthReason.MALFORMED, f"claim {name} holds control characters")
    return value
