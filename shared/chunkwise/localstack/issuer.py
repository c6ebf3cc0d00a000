"""The local stack's test issuer: a key pair, its JWKS, and tokens for any identity.

Development only (it lives in the local stack's library, which no Lambda package
carries): on AWS the tokens come from the real identity provider (Amazon Cognito or any
OIDC issuer). `chunkwise local up` makes it (`chunkwise.localstack.stack.setup_issuer`,
keys in .local/issuer) and names it in the stack's environment (CHUNKWISE_JWT_*), so
the local query path verifies these tokens with the same code as on AWS
(`chunkwise.adapters.jwt.TokenVerifier`, the JWKS read from ``jwks.json`` here).

    issuer = LocalIssuer.create(Path(".local/issuer"))       # or .load(); keys made once
    token = issuer.mint("alice", groups=["legal"], audience=issuer.audience)
    config = issuer.verifier_config(groups_claim="groups")

Files in the directory: ``signing-key.pem`` (EC P-256 private key, mode 0600, never
leaves the machine), ``jwks.json`` (the public key), ``issuer.json`` (issuer name,
audience, key id).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from chunkwise.adapters.jwt import JwtConfig
from chunkwise.errors import ConfigError

KEY_FILE = "signing-key.pem"
JWKS_FILE = "jwks.json"
INFO_FILE = "issuer.json"
DEFAULT_ISSUER = "https://issuer.chunkwise.local"
DEFAULT_AUDIENCE = "chunkwise-local"
ALGORITHM = "ES256"
MAX_TTL_SECONDS = 7 * 24 * 3600


@dataclass(frozen=True)
class LocalIssuer:
    directory: Path
    issuer: str
    audience: str
    key_id: str
    private_key: ec.EllipticCurvePrivateKey

    @classmethod
    def create(
        cls, directory: Path, *, issuer: str = DEFAULT_ISSUER, audience: str = DEFAULT_AUDIENCE
    ) -> LocalIssuer:
        """The issuer in ``directory``: loaded if its key exists there, else made. Made
        in a temporary directory renamed into place, so processes that create it at
        the same time (test workers, benchmarks) all end with the same one key."""
        if (directory / KEY_FILE).exists():
            return cls.load(directory)
        directory.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent))
        key = ec.generate_private_key(ec.SECP256R1())
        pem = key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        _write_private(tmp / KEY_FILE, pem)
        public = public_jwk(key.public_key())
        (tmp / JWKS_FILE).write_text(json.dumps({"keys": [public]}, indent=2) + "\n")
        info = {"issuer": issuer, "audience": audience, "kid": public["kid"]}
        (tmp / INFO_FILE).write_text(json.dumps(info, indent=2) + "\n")
        try:
            tmp.rename(directory)  # atomic; refused when another process was first
        except OSError:
            shutil.rmtree(tmp, ignore_errors=True)
            return cls.load(directory)
        return cls(directory, issuer, audience, str(public["kid"]), key)

    @classmethod
    def load(cls, directory: Path) -> LocalIssuer:
        path = directory / KEY_FILE
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            raise ConfigError(f"{path}: readable by others (mode {mode:o}); chmod 600 it")
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise ConfigError(f"{path}: not an EC private key")
        info = json.loads((directory / INFO_FILE).read_text(encoding="utf-8"))
        return cls(directory, str(info["issuer"]), str(info["audience"]), str(info["kid"]), key)

    @property
    def jwks_path(self) -> Path:
        return self.directory / JWKS_FILE

    def mint(
        self,
        subject: str,
        groups: Iterable[str] = (),
        *,
        ttl_seconds: int = 3600,
        audience: str | None = None,
        groups_claim: str = "groups",
        now: float | None = None,
        extra_claims: Mapping[str, Any] | None = None,
    ) -> str:
        """A signed token for ``subject`` in ``groups``, valid for ``ttl_seconds``."""
        if not 0 < ttl_seconds <= MAX_TTL_SECONDS:
            raise ConfigError(f"ttl_seconds: must be in 1..{MAX_TTL_SECONDS}")
        issued = int(now if now is not None else time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": subject,
            "aud": audience or self.audience,
            "iat": issued,
            "nbf": issued,
            "exp": issued + ttl_seconds,
            "jti": uuid.uuid4().hex,
            groups_claim: list(groups),
            **(extra_claims or {}),
        }
        headers = {"kid": self.key_id}
        return jwt.encode(claims, self.private_key, algorithm=ALGORITHM, headers=headers)

    def verifier_config(self, *, groups_claim: str = "groups", **overrides: Any) -> JwtConfig:
        """The verifier settings that accept this issuer's tokens."""
        fields: dict[str, Any] = {
            "issuer": self.issuer,
            "audience": self.audience,
            "groups_claim": groups_claim,
            "jwks_file": self.jwks_path,
            "algorithms": (ALGORITHM,),
            **overrides,
        }
        return JwtConfig(**fields)


def public_jwk(public_key: ec.EllipticCurvePublicKey) -> dict[str, str]:
    """The public key as a JWK, its ``kid`` the RFC 7638 thumbprint (stable per key)."""
    raw = jwt.algorithms.ECAlgorithm.to_jwk(public_key, as_dict=True)
    members = {name: raw[name] for name in ("crv", "kty", "x", "y")}
    canonical = json.dumps(members, sort_keys=True, separators=(",", ":")).encode()
    kid = base64.urlsafe_b64encode(hashlib.sha256(canonical).digest()).rstrip(b"=").decode()
    return {**members, "use": "sig", "alg": ALGORITHM, "kid": kid}


def _write_private(path: Path, data: bytes) -> None:
    # Created 0600 from the first byte (not written, then chmod-ed).
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
