"""Bearer-token verification (chunkwise.adapters.jwt) with the local test issuer
(chunkwise.localstack.issuer): every way a token is refused, each its own test. The
only I/O is the issuer's key files under pytest's tmp_path."""

from __future__ import annotations

import base64
import json
import stat
import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.exceptions import PyJWKClientConnectionError
from pydantic import ValidationError

from chunkwise.access import AuthError, AuthReason, Identity
from chunkwise.adapters.jwt import (
    MAX_TOKEN_CHARS,
    FileKeySource,
    JwtConfig,
    TokenVerifier,
    UrlKeySource,
    bearer_token,
)
from chunkwise.errors import ConfigError, TransientError
from chunkwise.localstack.issuer import KEY_FILE, LocalIssuer


@pytest.fixture
def issuer(tmp_path: Path) -> LocalIssuer:
    return LocalIssuer.create(tmp_path / "issuer")


@pytest.fixture
def verifier(issuer: LocalIssuer) -> TokenVerifier:
    return TokenVerifier(issuer.verifier_config())


def refusal(verifier: TokenVerifier, token: str) -> AuthError:
    with pytest.raises(AuthError) as info:
        verifier.verify(token)
    return info.value


def segments(token: str) -> list[str]:
    return token.split(".")


def b64(obj: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


# --------------------------------------------------------------------------- accepted


def test_a_token_of_the_issuer_gives_its_identity(
    issuer: LocalIssuer, verifier: TokenVerifier
) -> None:
    token = issuer.mint("alice", ["legal", "auditors"])
    assert verifier.identify(f"Bearer {token}") == Identity(
        "alice", issuer.issuer, frozenset({"legal", "auditors"})
    )
    assert verifier.identify(f"bearer   {token}  ").subject == "alice"


def test_an_audience_list_that_holds_ours_is_accepted(
    issuer: LocalIssuer, verifier: TokenVerifier
) -> None:
    token = issuer.mint("a", ["g"], extra_claims={"aud": ["other", issuer.audience]})
    assert verifier.verify(token).groups == {"g"}


def test_expiry_has_a_small_leeway(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    just_expired = issuer.mint("a", ["g"], ttl_seconds=60, now=time.time() - 65)
    assert verifier.verify(just_expired).subject == "a"  # 5 s late, leeway 10 s
    expired = issuer.mint("a", ["g"], ttl_seconds=60, now=time.time() - 75)
    assert refusal(verifier, expired).reason is AuthReason.EXPIRED


def test_rs256_with_an_rsa_key(tmp_path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    jwks = tmp_path / "jwks.json"
    jwks.write_text(json.dumps({"keys": [{**jwk, "kid": "r1", "use": "sig"}]}))
    config = JwtConfig(issuer="https://i", audience="aud", jwks_file=jwks)
    now = int(time.time())
    claims = {"iss": "https://i", "aud": "aud", "sub": "bob", "exp": now + 60, "groups": ["x"]}
    token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": "r1"})
    assert TokenVerifier(config).verify(token).groups == {"x"}


def test_a_cognito_access_token_is_matched_by_client_id(issuer: LocalIssuer) -> None:
    verifier = TokenVerifier(
        issuer.verifier_config(groups_claim="cognito:groups", audience_claim="client_id",
                               audience="app-client")
    )  # fmt: skip
    good = issuer.mint(
        "c", groups_claim="cognito:groups", groups=["g"],
        extra_claims={"aud": None, "client_id": "app-client", "token_use": "access"},
    )  # fmt: skip
    assert verifier.verify(_without(issuer, good, "aud")).groups == {"g"}
    other = issuer.mint("c", ["g"], extra_claims={"client_id": "another-app"})
    assert refusal(verifier, _without(issuer, other, "aud")).reason is AuthReason.WRONG_AUDIENCE


def _without(issuer: LocalIssuer, token: str, claim: str) -> str:
    """The same claims re-signed by the issuer, minus one (mint always sets aud)."""
    claims = jwt.decode(token, options={"verify_signature": False})
    claims.pop(claim)
    headers = {"kid": issuer.key_id}
    return jwt.encode(claims, issuer.private_key, algorithm="ES256", headers=headers)


# --------------------------------------------------------------------------- refused: 401


def test_a_forged_token_signed_with_another_key_under_our_key_id(
    tmp_path: Path, issuer: LocalIssuer, verifier: TokenVerifier
) -> None:
    forger = LocalIssuer.create(tmp_path / "forger", issuer=issuer.issuer)
    claims = jwt.decode(issuer.mint("mallory", ["admins"]), options={"verify_signature": False})
    forged = jwt.encode(claims, forger.private_key, algorithm="ES256",
                        headers={"kid": issuer.key_id})  # fmt: skip
    assert refusal(verifier, forged).reason is AuthReason.BAD_SIGNATURE


def test_a_token_signed_by_a_key_the_issuer_does_not_have(
    tmp_path: Path, issuer: LocalIssuer, verifier: TokenVerifier
) -> None:
    forger = LocalIssuer.create(tmp_path / "forger", issuer=issuer.issuer)
    token = forger.mint("mallory", ["admins"], audience=issuer.audience)
    error = refusal(verifier, token)
    assert (error.reason, error.status) == (AuthReason.UNKNOWN_KEY, 401)


def test_a_request_that_sets_its_own_groups_breaks_the_signature(
    issuer: LocalIssuer, verifier: TokenVerifier
) -> None:
    head, payload, signature = segments(issuer.mint("alice", ["staff"]))
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["groups"] = ["admins"]
    tampered = f"{head}.{b64(claims)}.{signature}"
    assert refusal(verifier, tampered).reason is AuthReason.BAD_SIGNATURE
    # and groups named in any other claim are not the caller's groups
    token = issuer.mint("alice", [], extra_claims={"roles": ["admins"], "group": "admins"})
    assert verifier.verify(token).groups == frozenset()


def test_an_expired_token(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    token = issuer.mint("a", ["g"], ttl_seconds=3600, now=time.time() - 7200)
    error = refusal(verifier, token)
    assert (error.reason, error.status, error.public) == (
        AuthReason.EXPIRED, 401, "unauthorized (expired)"
    )  # fmt: skip


def test_a_token_not_yet_valid(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    token = issuer.mint("a", ["g"], now=time.time() + 600)
    assert refusal(verifier, token).reason is AuthReason.NOT_YET_VALID


@pytest.mark.parametrize(
    "other",
    ["https://evil.example", "https://issuer.chunkwise.local/", "https://issuer.chunkwise.localx",
     "https://issuer.chunkwise"],
)  # fmt: skip
def test_a_token_from_another_issuer(
    issuer: LocalIssuer, verifier: TokenVerifier, other: str
) -> None:
    token = issuer.mint("a", ["g"], extra_claims={"iss": other})
    assert refusal(verifier, token).reason is AuthReason.WRONG_ISSUER


def test_a_token_for_another_audience(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    token = issuer.mint("a", ["g"], audience="another-service")
    assert refusal(verifier, token).reason is AuthReason.WRONG_AUDIENCE
    assert refusal(verifier, _without(issuer, token, "aud")).reason is AuthReason.MALFORMED


def test_alg_none_is_refused(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    _, payload, _ = segments(issuer.mint("a", ["admins"]))
    unsigned = f"{b64({'alg': 'none', 'typ': 'JWT', 'kid': issuer.key_id})}.{payload}."
    assert refusal(verifier, unsigned).reason is AuthReason.BAD_ALGORITHM
    upper = f"{b64({'alg': 'NONE', 'kid': issuer.key_id})}.{payload}."
    assert refusal(verifier, upper).reason is AuthReason.BAD_ALGORITHM


def test_hs256_with_the_public_key_as_secret_is_refused(
    issuer: LocalIssuer, verifier: TokenVerifier
) -> None:
    public_pem = issuer.private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    claims = jwt.decode(issuer.mint("a", ["admins"]), options={"verify_signature": False})
    head = b64({"alg": "HS256", "typ": "JWT", "kid": issuer.key_id})
    body = b64(claims)
    import hashlib
    import hmac

    mac = hmac.new(public_pem, f"{head}.{body}".encode(), hashlib.sha256).digest()
    token = f"{head}.{body}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    assert refusal(verifier, token).reason is AuthReason.BAD_ALGORITHM


def test_an_algorithm_the_key_is_not_for(issuer: LocalIssuer) -> None:
    verifier = TokenVerifier(issuer.verifier_config(algorithms=("RS256", "ES256")))
    _, payload, signature = segments(issuer.mint("a", ["g"]))
    relabelled = f"{b64({'alg': 'RS256', 'kid': issuer.key_id})}.{payload}.{signature}"
    error = refusal(verifier, relabelled)
    assert error.reason is AuthReason.BAD_ALGORITHM and "not for RS256" in str(error)


@pytest.mark.parametrize("token", ["", "garbage", "a.b", "a.b.c", "x" * (MAX_TOKEN_CHARS + 1)])
def test_what_is_not_a_jwt(verifier: TokenVerifier, token: str) -> None:
    assert refusal(verifier, token).reason is AuthReason.MALFORMED


def test_a_token_without_key_id_or_expiry(issuer: LocalIssuer, verifier: TokenVerifier) -> None:
    claims = jwt.decode(issuer.mint("a", ["g"]), options={"verify_signature": False})
    no_kid = jwt.encode(claims, issuer.private_key, algorithm="ES256")
    assert "key id" in str(refusal(verifier, no_kid))
    assert refusal(verifier, _without(issuer, issuer.mint("a", ["g"]), "exp")).reason is (
        AuthReason.MALFORMED
    )


@pytest.mark.parametrize("header", [None, "", "   ", "Basic dXNlcjpwdw==", "Bearer", "Bearer   "])
def test_the_authorization_header(header: str | None) -> None:
    with pytest.raises(AuthError) as info:
        bearer_token(header)
    expected = AuthReason.MISSING if not (header or "").strip() else AuthReason.MALFORMED
    assert (info.value.reason, info.value.status) == (expected, 401)


# --------------------------------------------------------------------------- refused: 403


@pytest.mark.parametrize(
    "groups", ["admins", [1, 2], {"admins": True}, [["admins"]], "[admins staff]"]
)
def test_a_groups_claim_of_the_wrong_type(
    issuer: LocalIssuer, verifier: TokenVerifier, groups: Any
) -> None:
    token = issuer.mint("a", extra_claims={"groups": groups})
    error = refusal(verifier, token)
    assert (error.reason, error.status, error.public) == (
        AuthReason.BAD_GROUPS_CLAIM, 403, "forbidden"
    )  # fmt: skip


# --------------------------------------------------------------------------- key sources


def test_the_jwks_file_is_reread_after_its_cache_time(tmp_path: Path) -> None:
    first = LocalIssuer.create(tmp_path / "one")
    second = LocalIssuer.create(tmp_path / "two")
    jwks = tmp_path / "jwks.json"
    jwks.write_text(first.jwks_path.read_text())
    now = [0.0]
    source = FileKeySource(jwks, ttl_seconds=300, clock=lambda: now[0])
    assert source.signing_key(first.key_id) is not None
    jwks.write_text(second.jwks_path.read_text())  # the issuer rotated its key
    now[0] = 299.0
    assert source.signing_key(second.key_id) is None
    now[0] = 300.0
    assert source.signing_key(second.key_id) is not None


def test_an_unreadable_jwks_is_transient_not_the_callers_fault(tmp_path: Path) -> None:
    source = FileKeySource(tmp_path / "absent.json", ttl_seconds=300)
    with pytest.raises(TransientError):
        source.signing_key("k")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(TransientError):
        FileKeySource(tmp_path / "bad.json", ttl_seconds=300).signing_key("k")


def test_an_unreachable_jwks_url_is_transient(monkeypatch: pytest.MonkeyPatch) -> None:
    config = JwtConfig(issuer="https://i", audience="a", jwks_url="https://i/.well-known/jwks.json")
    source = UrlKeySource(config)

    def unreachable(*_: Any, **__: Any) -> Any:
        raise PyJWKClientConnectionError("connection refused")

    monkeypatch.setattr(source._client, "fetch_data", unreachable)
    with pytest.raises(TransientError):
        source.signing_key("k")


def test_the_config_is_bounded() -> None:
    base = {"issuer": "https://i", "audience": "a", "jwks_url": "https://i/jwks"}
    assert JwtConfig(**base).algorithms == ("RS256", "ES256")
    for bad in (
        {"algorithms": ("HS256",)},
        {"algorithms": ("none",)},
        {"leeway_seconds": 3600},
        {"jwks_ttl_seconds": 0},
        {"jwks_url": "file:///etc/passwd"},
        {"jwks_file": Path("jwks.json")},  # both sources
        {"jwks_url": None},  # neither
    ):
        with pytest.raises(ValidationError):
            JwtConfig(**{**base, **bad})


# --------------------------------------------------------------------------- the local issuer


def test_the_local_issuer_keeps_its_key_private_and_publishes_only_the_public_half(
    tmp_path: Path,
) -> None:
    issuer = LocalIssuer.create(tmp_path / "iss")
    key_file = tmp_path / "iss" / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    (jwk,) = json.loads(issuer.jwks_path.read_text())["keys"]
    assert set(jwk) == {"kty", "crv", "x", "y", "use", "alg", "kid"}  # no private "d"
    again = LocalIssuer.create(tmp_path / "iss")
    assert again.key_id == issuer.key_id  # made once, loaded afterwards
    key_file.chmod(0o644)
    with pytest.raises(ConfigError, match="readable by others"):
        LocalIssuer.load(tmp_path / "iss")


def test_the_local_issuer_bounds_token_lifetimes(issuer: LocalIssuer) -> None:
    for ttl in (0, -1, 8 * 24 * 3600):
        with pytest.raises(ConfigError):
            issuer.mint("a", ttl_seconds=ttl)
