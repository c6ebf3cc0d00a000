"""Verify a caller's bearer token (a JWT) against its issuer's keys, with PyJWT.

samdocs/metadata-and-access.md, "Access control". The one way a caller gets an
`Identity`: the token's signature checks out against a key of the issuer's JWKS (a URL,
or a local file for the local stack's test issuer), its ``iss`` is exactly the
configured issuer, its audience is ours, it has not expired (a small leeway for clock
skew) and is already valid (``nbf``); only RS256 and ES256 are accepted, and only with
a key made for that algorithm (never ``none``, never HS* with a public key as secret).
The JWKS is cached for a bounded time; an unknown key id forces at most one refetch per
cooldown (PyJWT's `PyJWKClient`), so forged key ids cannot hammer the issuer.

Every refusal is an `AuthError` (401 with its reason; 403 for a valid token whose groups
claim is unusable); an issuer whose keys cannot be fetched is a `TransientError` (503):
the caller's token may be fine.

Run it on the raw ``Authorization`` header even behind an API Gateway JWT authorizer:
the claims such an authorizer passes on have their arrays flattened to strings.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Protocol

import jwt
from jwt import PyJWK, PyJWKClient, PyJWKSet
from jwt.exceptions import PyJWKClientConnectionError, PyJWKClientError, PyJWKError
from pydantic import BaseModel, ConfigDict, Field, model_validator

from chunkwise.access.identity import AuthError, AuthReason, Identity, identity_from_claims
from chunkwise.errors import TransientError

Algorithm = Literal["RS256", "ES256"]
ALGORITHMS: tuple[Algorithm, ...] = ("RS256", "ES256")
MAX_TOKEN_CHARS = 16_384
_BEARER = "bearer "


class JwtConfig(BaseModel):
    """How tokens are verified. One of ``jwks_url`` (https; the issuer's
    ``/.well-known/jwks.json``) or ``jwks_file`` (the local test issuer's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    issuer: str = Field(min_length=1, max_length=1024)
    audience: str = Field(min_length=1, max_length=1024)
    #: The claim that holds the audience: ``aud`` (ID tokens, most providers) or
    #: ``client_id`` (Amazon Cognito access tokens, which carry no ``aud``).
    audience_claim: Literal["aud", "client_id"] = "aud"
    groups_claim: str = Field("groups", min_length=1, max_length=256)
    jwks_url: str | None = Field(None, pattern=r"^https?://")
    jwks_file: Path | None = None
    algorithms: tuple[Algorithm, ...] = Field(ALGORITHMS, min_length=1)
    leeway_seconds: int = Field(10, ge=0, le=60)
    jwks_ttl_seconds: int = Field(300, ge=30, le=3600)
    jwks_cooldown_seconds: int = Field(30, ge=0, le=600)
    jwks_timeout_seconds: float = Field(3.0, gt=0, le=10)

    @model_validator(mode="after")
    def _one_key_source(self) -> JwtConfig:
        if (self.jwks_url is None) == (self.jwks_file is None):
            raise ValueError("exactly one of jwks_url and jwks_file")
        return self


class KeySource(Protocol):
    def signing_key(self, kid: str) -> PyJWK | None:
        """The issuer's key with this key id; None if it has none. TransientError if the
        keys cannot be had at all."""


class UrlKeySource:
    """The issuer's JWKS over HTTP(S), cached by PyJWT's `PyJWKClient`."""

    def __init__(self, config: JwtConfig) -> None:
        assert config.jwks_url is not None
        self._client = PyJWKClient(
            config.jwks_url,
            lifespan=config.jwks_ttl_seconds,
            cooldown_duration=config.jwks_cooldown_seconds,
            timeout=config.jwks_timeout_seconds,
        )

    def signing_key(self, kid: str) -> PyJWK | None:
        try:
            known = PyJWKClient.match_kid(self._client.get_signing_keys(), kid)
        except (PyJWKClientError, PyJWKError) as err:
            raise TransientError(f"the issuer's keys cannot be fetched: {err}") from err
        if known is not None:
            return known
        try:
            # Not in the cached set: one refetch (a rotated key), unless one was just made.
            return self._client.get_signing_key(kid)
        except PyJWKClientConnectionError as err:
            raise TransientError(f"the issuer's keys cannot be fetched: {err}") from err
        except (PyJWKClientError, PyJWKError):
            return None


class FileKeySource:
    """A JWKS file (the local test issuer's), re-read once its cache time has passed."""

    def __init__(self, path: Path, ttl_seconds: float, clock: Callable[[], float] = time.monotonic):
        self._path = path
        self._ttl = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: PyJWKSet | None = None
        self._loaded_at = 0.0

    def signing_key(self, kid: str) -> PyJWK | None:
        with self._lock:
            if self._keys is None or self._clock() - self._loaded_at >= self._ttl:
                self._keys = self._load()
                self._loaded_at = self._clock()
            return next((k for k in self._keys if k.key_id == kid), None)

    def _load(self) -> PyJWKSet:
        try:
            return PyJWKSet.from_json(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError, PyJWKError) as err:
            raise TransientError(f"JWKS file {self._path} unreadable: {err}") from err


class TokenVerifier:
    """Bearer token in, verified `Identity` out (or `AuthError`)."""

    def __init__(self, config: JwtConfig, keys: KeySource | None = None) -> None:
        self.config = config
        if keys is None:
            keys = (
                FileKeySource(config.jwks_file, config.jwks_ttl_seconds)
                if config.jwks_file is not None
                else UrlKeySource(config)
            )
        self._keys = keys

    def identify(self, authorization: str | None) -> Identity:
        """The identity of an ``Authorization: Bearer <token>`` header's token."""
        return self.verify(bearer_token(authorization))

    def verify(self, token: str) -> Identity:
        claims = self.verified_claims(token)
        return identity_from_claims(claims, self.config.groups_claim)

    def verified_claims(self, token: str) -> dict[str, Any]:
        if len(token) > MAX_TOKEN_CHARS:
            raise AuthError(AuthReason.MALFORMED, "token too long")
        header = _header(token)
        algorithm = header.get("alg")
        if algorithm not in self.config.algorithms:
            raise AuthError(AuthReason.BAD_ALGORITHM, f"algorithm {algorithm!r} not accepted")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise AuthError(AuthReason.MALFORMED, "token has no key id (kid)")
        key = self._keys.signing_key(kid)
        if key is None:
            raise AuthError(AuthReason.UNKNOWN_KEY, "no key of the issuer has this key id")
        if key.algorithm_name != algorithm:
            raise AuthError(AuthReason.BAD_ALGORITHM, f"the key is not for {algorithm}")
        claims = self._decode(token, key, algorithm)
        if claims.get("iss") != self.config.issuer:  # exact, whatever the library allows
            raise AuthError(AuthReason.WRONG_ISSUER)
        by_client_id = self.config.audience_claim == "client_id"
        if by_client_id and claims.get("client_id") != self.config.audience:
            raise AuthError(AuthReason.WRONG_AUDIENCE, "client_id")
        return claims

    def _decode(self, token: str, key: PyJWK, algorithm: str) -> dict[str, Any]:
        by_aud = self.config.audience_claim == "aud"
        required = ["exp", "iss", "sub"] + (["aud"] if by_aud else ["client_id"])
        try:
            return jwt.decode(
                token,
                key=key,
                algorithms=[algorithm],
                audience=self.config.audience if by_aud else None,
                issuer=self.config.issuer,
                leeway=self.config.leeway_seconds,
                options={"require": required, "verify_aud": by_aud},
            )
        except jwt.PyJWTError as err:
            raise _auth_error(err) from None


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization`` header value (scheme ``Bearer``, any case)."""
    if not authorization or not authorization.strip():
        raise AuthError(AuthReason.MISSING, "no Authorization header")
    value = authorization.strip()
    if not value.lower().startswith(_BEARER) or not value[len(_BEARER) :].strip():
        raise AuthError(AuthReason.MALFORMED, "the Authorization header is not 'Bearer <token>'")
    return value[len(_BEARER) :].strip()


def _header(token: str) -> dict[str, Any]:
    try:
        return jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise AuthError(AuthReason.MALFORMED, "not a JWT") from None


_ERRORS: tuple[tuple[type[jwt.PyJWTError], AuthReason], ...] = (
    (jwt.ExpiredSignatureError, AuthReason.EXPIRED),
    (jwt.ImmatureSignatureError, AuthReason.NOT_YET_VALID),
    (jwt.InvalidAudienceError, AuthReason.WRONG_AUDIENCE),
    (jwt.InvalidIssuerError, AuthReason.WRONG_ISSUER),
    (jwt.InvalidSignatureError, AuthReason.BAD_SIGNATURE),
    (jwt.InvalidAlgorithmError, AuthReason.BAD_ALGORITHM),
    (jwt.MissingRequiredClaimError, AuthReason.MALFORMED),
)


def _auth_error(err: jwt.PyJWTError) -> AuthError:
    for kind, reason in _ERRORS:
        if isinstance(err, kind):
            return AuthError(reason, str(err))
    return AuthError(AuthReason.MALFORMED, str(err))
