"""The query path's access control from settings: the policy, the token verifier and the
query function's endpoint (chunkwise.search.endpoint) over a searcher."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chunkwise.access import AccessMode, AccessPolicy
from chunkwise.errors import ConfigError
from chunkwise.search.endpoint import QueryEndpoint, SearchBackend

if TYPE_CHECKING:
    from chunkwise.adapters.jwt import JwtConfig, TokenVerifier
    from chunkwise.settings import AccessSettings


def access_policy(settings: AccessSettings) -> AccessPolicy:
    return AccessPolicy(AccessMode(settings.access_control), settings.admin_group)


def jwt_config(settings: AccessSettings) -> JwtConfig:
    """How tokens are verified; ConfigError naming the variable if that cannot work."""
    from pydantic import ValidationError

    from chunkwise.adapters.jwt import JwtConfig

    try:
        return JwtConfig(
            issuer=settings.jwt_issuer,
            audience=settings.jwt_audience,
            audience_claim=settings.jwt_audience_claim,
            groups_claim=settings.jwt_groups_claim,
            jwks_url=settings.jwt_jwks_url or None,
            jwks_file=settings.jwt_jwks_file,
        )
    except ValidationError as exc:
        parts = [
            f"CHUNKWISE_JWT_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']}"
            for e in exc.errors(include_input=False, include_url=False)
        ]
        raise ConfigError("invalid settings: " + "; ".join(parts)) from None


def token_verifier(settings: AccessSettings) -> TokenVerifier | None:
    """The verifier of callers' bearer tokens; None in access mode ``none``. Builds no
    connection: the issuer's keys are fetched on the first token."""
    if settings.access_control == "none":
        return None
    from chunkwise.adapters.jwt import TokenVerifier

    return TokenVerifier(jwt_config(settings))


def query_endpoint(settings: AccessSettings, backend: Callable[[], SearchBackend]) -> QueryEndpoint:
    """The query function's logic, its access control checked now (cold start)."""
    return QueryEndpoint(
        backend,
        policy=access_policy(settings),
        verifier=token_verifier(settings),
        readers_key=settings.readers_key,
        reserved=frozenset({settings.jwt_groups_claim}),
        source_bucket=settings.source_bucket or None,
    )
