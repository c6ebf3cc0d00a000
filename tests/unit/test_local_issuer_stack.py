"""`chunkwise local up` makes the local test issuer and names it in the stack's
environment, so a token `chunkwise search --as` mints is one the stack's query
function verifies (its settings read from that environment, as on AWS).

Nothing is started: the issuer step runs alone, its keys in a temporary checkout
(CHUNKWISE_REPO)."""

from __future__ import annotations

import argparse
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from chunkwise.access import AuthError
from chunkwise.adapters.jwt import TokenVerifier
from chunkwise.cli.search_identity import search_as
from chunkwise.errors import ConfigError
from chunkwise.localstack import config, stack
from chunkwise.localstack.issuer import LocalIssuer
from chunkwise.settings import AccessSettings, export_env, load_settings, preserved_environment
from chunkwise.wiring.query import jwt_config


@pytest.fixture
def checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    for name in list(os.environ):
        if name.startswith("CHUNKWISE_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CHUNKWISE_REPO", str(tmp_path))
    with preserved_environment():
        yield tmp_path


def _args(**kw: object) -> argparse.Namespace:
    base: dict[str, object] = {
        "token": None,
        "as_subject": None,
        "groups": None,
        "issuer_dir": None,
        "admin_group": None,
    }
    return argparse.Namespace(**{**base, **kw})


def test_up_names_the_issuer_in_the_stack_environment(checkout: Path) -> None:
    cfg = config.StackConfig(access_control="groups")
    issuer = stack.setup_issuer(cfg)
    assert issuer.directory == checkout / ".local" / "issuer"
    env = cfg.env()
    assert env["CHUNKWISE_ACCESS_CONTROL"] == "groups"
    assert env["CHUNKWISE_ADMIN_GROUP"] == "admins"
    assert env["CHUNKWISE_JWT_ISSUER"] == issuer.issuer
    assert env["CHUNKWISE_JWT_AUDIENCE"] == issuer.audience
    assert env["CHUNKWISE_JWT_JWKS_FILE"] == str(issuer.jwks_path)
    assert env["CHUNKWISE_JWT_GROUPS_CLAIM"] == "groups"
    # made once: a second `up` loads the same key
    assert stack.setup_issuer(config.StackConfig()).key_id == issuer.key_id
    # the state file keeps it (a later `chunkwise local env` prints the same lines)
    config.save_state(cfg)
    loaded = config.load_state()
    assert loaded is not None and loaded.env() == env


def test_mode_none_is_not_exported(checkout: Path) -> None:
    cfg = config.StackConfig()
    stack.setup_issuer(cfg)
    env = cfg.env()
    assert env["CHUNKWISE_ACCESS_CONTROL"] == env["CHUNKWISE_ADMIN_GROUP"] == ""  # not exported
    assert env["CHUNKWISE_JWT_ISSUER"]  # the verifier is named all the same


def test_a_token_of_search_as_is_what_the_query_function_accepts(checkout: Path) -> None:
    cfg = config.StackConfig(access_control="groups")
    stack.setup_issuer(cfg)
    export_env(cfg.env())
    who = search_as(_args(as_subject="alice", groups="hr,staff"))
    assert who.identity is not None
    assert (who.identity.subject, who.identity.groups) == ("alice", frozenset({"hr", "staff"}))
    assert who.policy.admin_group == "admins"
    # the query function's own verifier, from the same environment
    settings = load_settings(AccessSettings)
    issuer = LocalIssuer.load(checkout / ".local" / "issuer")
    token = issuer.mint("bob", ["sales"], groups_claim=settings.jwt_groups_claim)
    assert TokenVerifier(jwt_config(settings)).verify(token).groups == frozenset({"sales"})
    # and --token with such a token takes the configured verifier too
    assert search_as(_args(token=token)).identity is not None


def test_search_as_refuses_when_another_issuer_is_configured(checkout: Path) -> None:
    cfg = config.StackConfig(access_control="groups")
    stack.setup_issuer(cfg)
    export_env({**cfg.env(), "CHUNKWISE_JWT_ISSUER": "https://cognito.example"})
    with pytest.raises(ConfigError, match="another"):
        search_as(_args(as_subject="alice", groups="hr"))


def test_search_as_refuses_keys_other_than_the_configured_ones(
    checkout: Path, tmp_path: Path
) -> None:
    cfg = config.StackConfig(access_control="groups")
    stack.setup_issuer(cfg)
    export_env(cfg.env())
    other = tmp_path / "other-issuer"
    with pytest.raises(ConfigError, match="other keys"):
        search_as(_args(as_subject="alice", groups="hr", issuer_dir=other))


def test_a_token_of_a_foreign_key_is_refused(checkout: Path, tmp_path: Path) -> None:
    cfg = config.StackConfig(access_control="groups")
    stack.setup_issuer(cfg)
    export_env(cfg.env())
    forger = LocalIssuer.create(tmp_path / "forger")  # same issuer name, another key
    with pytest.raises(AuthError):
        search_as(_args(token=forger.mint("mallory", ["admins"])))


def test_issuers_made_at_the_same_time_are_one(tmp_path: Path) -> None:
    made: list[str] = []
    lock = threading.Lock()

    def make() -> None:
        kid = LocalIssuer.create(tmp_path / "issuer").key_id
        with lock:
            made.append(kid)

    threads = [threading.Thread(target=make) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(made)) == 1
    assert LocalIssuer.load(tmp_path / "issuer").key_id == made[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["issuer"]  # no temporaries left
