"""A local stack, up and down: `stack_up` (services, resources, index, reconcile,
query model), `stack_down`, `stack_reset`, and `throwaway_stack` for tests and
benchmarks.

Every step of `stack_up` is idempotent, so `up` after `up`, after `down`, after a
`kill -9` of any service or of an earlier `up` ends in the same ready state; a step
that cannot finish raises `StartupError` naming it. The state file is written after
every step, so a `down` after an interrupted `up` still stops what it started.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from chunkwise.errors import ChunkwiseError
from chunkwise.localstack.config import (
    StackConfig,
    apply_env,
    issuer_dir,
    load_state,
    save_state,
    say,
    service_urls,
    state_path,
)
from chunkwise.localstack.index_setup import (
    delete_index_state,
    reconcile_documents,
    setup_index,
    setup_query_model,
)
from chunkwise.localstack.issuer import LocalIssuer
from chunkwise.localstack.resources import create_resources, delete_bucket_and_queues
from chunkwise.localstack.services import ALL_SERVICES, start_services, stop_services
from chunkwise.settings import export_env, preserved_environment

if TYPE_CHECKING:
    from chunkwise.adapters.opensearch.client import Client

T = TypeVar("T")


class StartupError(ChunkwiseError):
    """A step of `chunkwise local up` failed; the message names the step."""


class _Steps:
    """Runs the named steps of `stack_up`: a failure names its step, and ``persist``
    runs after each either way (so the state file knows what a failed step started)."""

    def __init__(self, persist: Callable[[], None]) -> None:
        self.persist = persist

    def __call__(self, name: str, action: Callable[[], T]) -> T:
        try:
            return action()
        except Exception as exc:
            raise StartupError(f"step '{name}' failed: {type(exc).__name__}: {exc}") from exc
        finally:
            self.persist()


def stack_up(
    cfg: StackConfig, *, start: bool = True, persist: Callable[[], None] | None = None
) -> StackConfig:
    """Bring the stack to its ready state. ``start``: start the services unless they
    run (else use those the environment or this checkout's ports name); ``persist``
    runs after every step (the command line saves the state file there)."""
    keep = persist or (lambda: None)
    step = _Steps(keep)
    if start:
        step("services", lambda: start_services(cfg, keep))
    else:
        default_endpoint, default_opensearch = service_urls()
        cfg.endpoint = cfg.endpoint or default_endpoint
        cfg.opensearch_url = cfg.opensearch_url or default_opensearch
    # First: the stack's environment names the issuer (mode groups needs it).
    issuer = step("local issuer", lambda: setup_issuer(cfg))
    say(
        f"local token issuer {issuer.issuer} (audience {issuer.audience}, keys in "
        f"{issuer.directory}); access control: {cfg.access_control}"
    )
    apply_env(cfg.env())
    say(f"bucket s3://{cfg.bucket} (versioning on), queue {cfg.queue} -> DLQ {cfg.dlq}")
    created = step("bucket and queues", lambda: create_resources(cfg))
    info, notes = step("index", lambda: setup_index(cfg, bucket_created=created))
    for note in notes:
        say(note)
    say(
        f"index {info['live_index']} (read alias {info['read_alias']}, write alias "
        f"{info['write_alias']}, {info['embedder']} {info['dimension']}d, "
        f"search pipeline {info['search_pipeline'] or 'client-side fusion'})"
    )
    plan = step("reconcile index with bucket", lambda: reconcile_documents(cfg))
    for note in plan.notes():
        say(note)
    if step("query model", lambda: setup_query_model(cfg, start=start)):
        say(
            f"query model {cfg.query_model_id} answers (the cluster embeds neural queries "
            f"via {cfg.embed_url}); default search pipeline of {cfg.live_index}: hybrid, "
            f"fused by {info['fusion']}"
        )
    return cfg


def setup_issuer(cfg: StackConfig) -> LocalIssuer:
    """The checkout's local test issuer (made once, loaded after), named in ``cfg`` so the
    stack's environment has the query function accept its tokens."""
    issuer = LocalIssuer.create(issuer_dir())
    cfg.jwt_issuer, cfg.jwt_audience = issuer.issuer, issuer.audience
    cfg.jwt_jwks_file = str(issuer.jwks_path)
    return issuer


def up_and_save(cfg: StackConfig) -> StackConfig:
    """`stack_up` with the state file written after every step, remembering what an
    earlier `up` started (so `down` stops it too)."""
    previous = load_state()
    if previous is not None:
        for service in previous.started:
            cfg.started_by_up(service)
    return stack_up(cfg, persist=lambda: save_state(cfg))


def stack_down(all_services: bool = False) -> list[str]:
    """Stop what `up` started (``all_services``: every service); returns what was stopped."""
    cfg = load_state() or StackConfig()
    stopped = stop_services(ALL_SERVICES if all_services else cfg.started)
    cfg.started = [s for s in cfg.started if s not in stopped]
    if state_path().exists():
        save_state(cfg)
    return stopped


def delete_resources(cfg: StackConfig, client: Client) -> list[str]:
    """Undo `stack_up` for this stack's names: bucket with every version, queue and
    DLQ, the prefix's query models, generations and template. Best effort: returns
    what could not be removed."""
    return delete_bucket_and_queues(cfg) + delete_index_state(cfg, client)


def stack_reset(cfg: StackConfig, client: Client) -> list[str]:
    """`chunkwise local reset`: `delete_resources`, then the state file, but for the
    services `up` started (they keep running; `down` still stops them). Returns what
    could not be removed."""
    failures = delete_resources(cfg, client)
    if cfg.started:
        save_state(StackConfig(started=cfg.started))
    else:
        state_path().unlink(missing_ok=True)
    return failures


@contextmanager
def throwaway_stack(label: str, **knobs: Any) -> Iterator[StackConfig]:
    """A stack of unique names on the running services (the environment's, else this
    checkout's ports), removed afterwards with the process environment it changed.
    ``knobs``: `StackConfig` fields (visibility_timeout, endpoint, ...)."""
    from chunkwise.settings import OpenSearchSettings, load_settings
    from chunkwise.wiring import opensearch_client

    with preserved_environment():
        quiet = {"POWERTOOLS_METRICS_DISABLED": "true", "POWERTOOLS_TRACE_DISABLED": "true"}
        export_env(quiet, only_unset=True)
        export_env({"POWERTOOLS_LOG_LEVEL": "WARNING"})
        cfg = stack_up(StackConfig.throwaway(label, **knobs), start=False)
        try:
            yield cfg
        finally:
            # the stack's own URL: the block may have pointed OPENSEARCH_URL elsewhere
            # (the fault suite puts a proxy in front of the node)
            settings = load_settings(OpenSearchSettings, opensearch_url=cfg.opensearch_url)
            for failure in delete_resources(cfg, opensearch_client(settings)):
                say(f"cleanup of {cfg.bucket}: {failure}")
