"""The local services: the OpenSearch node and the S3/SQS emulator (through their
scripts, which read OPENSEARCH_PORT / LOCALSTACK_PORT), and the embedding endpoint.

A service the environment names (OPENSEARCH_URL, AWS_ENDPOINT_URL) is used as it is:
nothing is started or stopped for it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from chunkwise.errors import ChunkwiseError
from chunkwise.localstack import embed_endpoint
from chunkwise.localstack.config import (
    DEFAULT_ENDPOINT,
    DEFAULT_OPENSEARCH,
    StackConfig,
    local_url,
    repo_root,
    say,
)
from chunkwise.settings import export_env, local_ports, local_stack_env

EMBED_ENDPOINT = "embed-endpoint"


@dataclass(frozen=True)
class Service:
    name: str  # as recorded in the state file's ``started``
    label: str
    script: str  # relative to the checkout; takes up|down|status
    env_var: str  # names another instance: start nothing


OPENSEARCH = Service("opensearch", "OpenSearch", "tools/opensearch/opensearch.sh", "OPENSEARCH_URL")
EMULATOR = Service("localstack", "LocalStack", "scripts/localstack.sh", "AWS_ENDPOINT_URL")
ALL_SERVICES = (EMULATOR.name, OPENSEARCH.name, EMBED_ENDPOINT)


def run_script(script: str, *args: str) -> int:
    return subprocess.call(["bash", script, *args], cwd=repo_root())


def start_services(cfg: StackConfig, on_start: Callable[[], None] | None = None) -> None:
    """OpenSearch + LocalStack, unless the environment names other endpoints.
    ``on_start`` runs after each service this call started (`up` saves its state
    there, so that a `down` after an interrupted `up` still stops it)."""
    env, ports = local_stack_env(), local_ports()
    if cfg.nodes > 1:
        # the node script starts (and `status` checks) the whole cluster
        export_env({"OPENSEARCH_NODES": str(cfg.nodes)})
    cfg.opensearch_url = ensure_service(
        cfg,
        OPENSEARCH,
        env.opensearch_url,
        local_url(ports.opensearch_port, DEFAULT_OPENSEARCH, cfg.nodes),
        on_start,
    )
    cfg.endpoint = ensure_service(
        cfg,
        EMULATOR,
        env.aws_endpoint_url,
        local_url(ports.localstack_port, DEFAULT_ENDPOINT),
        on_start,
    )


def ensure_service(
    cfg: StackConfig,
    service: Service,
    named_url: str,
    default_url: str,
    on_start: Callable[[], None] | None = None,
) -> str:
    """The URL of a service: the one the environment names, else ours, started if
    needed (the scripts wait for a node that an earlier, interrupted start left)."""
    if named_url:
        say(f"{service.label}: using {service.env_var}={named_url}")
        return named_url
    if run_script(service.script, "status") == 0:
        say(f"{service.label}: already running")
        return default_url
    say(f"{service.label}: starting (a minute or two on a busy machine)")
    if run_script(service.script, "up") != 0:
        raise ChunkwiseError(f"{service.label} did not start; see .local/{service.name}/")
    cfg.started_by_up(service.name)
    if on_start is not None:
        on_start()
    return default_url


def stop_services(which: Iterable[str]) -> list[str]:
    """Stop the named services (of `ALL_SERVICES`); returns those it was asked to stop."""
    names = [n for n in ALL_SERVICES if n in set(which)]
    if EMBED_ENDPOINT in names:
        embed_endpoint.down()
    if EMULATOR.name in names:
        run_script(EMULATOR.script, "down")
    if OPENSEARCH.name in names:
        run_script(OPENSEARCH.script, "down")
    return names


def services_running() -> bool:
    """Do the node (unless OPENSEARCH_URL names another) and the emulator answer?"""
    node = run_script(OPENSEARCH.script, "status") == 0 or bool(local_stack_env().opensearch_url)
    emulator = run_script(EMULATOR.script, "status") == 0
    return node and emulator
