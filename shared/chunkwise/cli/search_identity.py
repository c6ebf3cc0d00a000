"""Who `chunkwise search` searches as: a bearer token, verified exactly as the query
function verifies it, or (development only) a token minted on the spot by the local
test issuer (`chunkwise.localstack.issuer`) for ``--as SUBJECT --groups a,b``.

    --token T               verified against CHUNKWISE_JWT_* (issuer, audience, JWKS),
                            or, when no issuer is configured, the local test issuer's keys
    --as alice --groups legal,staff
                            the local issuer (keys in --issuer-dir, made by `chunkwise
                            local up` or on first use) mints a token, and the verifier
                            of CHUNKWISE_JWT_* checks it (the local stack's environment
                            names the local issuer), else the local issuer's own

With either, the search runs in access mode ``groups`` (the admin group from
``--admin-group`` or CHUNKWISE_ADMIN_GROUP); without, in the configured mode, where
``groups`` then needs one of them.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from chunkwise.access import AccessMode, AccessPolicy, Identity
from chunkwise.errors import ConfigError
from chunkwise.localstack.config import issuer_dir
from chunkwise.settings import AccessSettings, load_settings


def add_identity_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("access control (search as a verified identity)")
    g.add_argument("--token", default=None, help="a bearer token (JWT) to search as")
    g.add_argument(
        "--as",
        dest="as_subject",
        metavar="SUBJECT",
        default=None,
        help="development only: search as SUBJECT with a token of the local test issuer",
    )
    g.add_argument("--groups", default=None, help="with --as: the subject's groups, a,b,c")
    g.add_argument(
        "--issuer-dir",
        type=Path,
        default=None,
        help="the local test issuer's keys (default: .local/issuer of the checkout)",
    )
    g.add_argument("--admin-group", default=None, help="default: $CHUNKWISE_ADMIN_GROUP")


@dataclass(frozen=True)
class SearchAs:
    identity: Identity | None
    policy: AccessPolicy


def search_as(args: argparse.Namespace) -> SearchAs:
    """The identity and access policy of a `chunkwise search` run (ConfigError for a
    contradictory command line; AuthError for a token that does not verify)."""
    settings = load_settings(AccessSettings)
    admin = args.admin_group or settings.admin_group
    if args.token and args.as_subject:
        raise ConfigError("--token and --as: give one")
    if args.groups and not args.as_subject:
        raise ConfigError("--groups goes with --as (a token names its own groups)")
    if args.token:
        identity = _verify(args.token, settings, args.issuer_dir)
    elif args.as_subject:
        identity = _mint_and_verify(args, settings)
    elif settings.access_control == "groups":
        raise ConfigError("CHUNKWISE_ACCESS_CONTROL=groups: search with --token or --as")
    else:
        return SearchAs(None, AccessPolicy(AccessMode.NONE))
    return SearchAs(identity, AccessPolicy(AccessMode.GROUPS, admin))


def _issuer_dir(given: Path | None) -> Path:
    return given or issuer_dir()


def _verify(token: str, settings: AccessSettings, issuer_dir: Path | None) -> Identity:
    from chunkwise.adapters.jwt import TokenVerifier
    from chunkwise.localstack.issuer import LocalIssuer
    from chunkwise.wiring.query import jwt_config

    if settings.jwt_issuer:
        return TokenVerifier(jwt_config(settings)).verify(token)
    directory = _issuer_dir(issuer_dir)
    if not (directory / "issuer.json").exists():
        raise ConfigError(
            f"--token: no CHUNKWISE_JWT_ISSUER configured and no local issuer in {directory}"
        )
    issuer = LocalIssuer.load(directory)
    config = issuer.verifier_config(groups_claim=settings.jwt_groups_claim)
    return TokenVerifier(config).verify(token)


def _mint_and_verify(args: argparse.Namespace, settings: AccessSettings) -> Identity:
    """A token of the local issuer for ``--as``, verified as the query function of these
    settings would verify it (their issuer must then be the local one)."""
    from chunkwise.adapters.jwt import TokenVerifier
    from chunkwise.localstack.issuer import LocalIssuer
    from chunkwise.wiring.query import jwt_config

    issuer = LocalIssuer.create(_issuer_dir(args.issuer_dir))
    groups = [g for g in str(args.groups or "").split(",") if g]
    claim = settings.jwt_groups_claim
    if settings.jwt_issuer and settings.jwt_issuer != issuer.issuer:
        raise ConfigError(
            f"--as mints tokens of the local test issuer ({issuer.issuer}), and "
            f"CHUNKWISE_JWT_ISSUER names another ({settings.jwt_issuer}): use --token"
        )
    jwks = settings.jwt_jwks_file
    if settings.jwt_issuer and (jwks is None or jwks.resolve() != issuer.jwks_path.resolve()):
        raise ConfigError(
            f"--as mints with the keys in {issuer.directory}, and CHUNKWISE_JWT_JWKS_FILE "
            f"names other keys ({jwks or settings.jwt_jwks_url}): its tokens would not verify"
        )
    audience = settings.jwt_audience or issuer.audience
    extra = {"client_id": audience} if settings.jwt_audience_claim == "client_id" else None
    token = issuer.mint(
        args.as_subject,
        groups,
        groups_claim=claim,
        audience=audience,
        ttl_seconds=300,
        extra_claims=extra,
    )
    if settings.jwt_issuer:
        return TokenVerifier(jwt_config(settings)).verify(token)
    return TokenVerifier(issuer.verifier_config(groups_claim=claim)).verify(token)
