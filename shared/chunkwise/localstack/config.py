"""One local stack: its names and URLs, the environment it gives a process, its state file."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from chunkwise.errors import ConfigError
from chunkwise.settings import (
    Settings,
    export_env,
    load_settings,
    local_ports,
    local_stack_env,
)

DEFAULT_ENDPOINT = "http://127.0.0.1:4566"
DEFAULT_OPENSEARCH = "http://127.0.0.1:9200"
EMULATOR_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}


def repo_root() -> Path:
    """The checkout this package runs from (shared/chunkwise/localstack/config.py ->
    repo), where the local stack keeps its state (.local/) and finds its scripts."""
    env = local_stack_env().chunkwise_repo
    return env if env else Path(__file__).resolve().parents[3]


def state_path() -> Path:
    return repo_root() / ".local" / "chunkwise-local.json"


def issuer_dir() -> Path:
    """Where the local test issuer keeps its keys (`chunkwise.localstack.issuer`): one
    issuer per checkout, shared by every stack of it."""
    return repo_root() / ".local" / "issuer"


def say(msg: str) -> None:
    print(f"chunkwise local: {msg}", file=sys.stderr, flush=True)


def local_url(port: int | None, default: str, nodes: int = 1) -> str:
    """The URL of a service this checkout starts: its scripts listen on ``port``
    (OPENSEARCH_PORT, LOCALSTACK_PORT in the environment), else the default. A local
    cluster of ``nodes`` listens on port, port + 1, ...: all of them, comma-separated
    (the client goes round-robin and sets a lost node aside)."""
    host, default_port = default.rsplit(":", 1)
    first = port or int(default_port)
    if nodes <= 1:
        return f"{host}:{first}" if port else default
    return ",".join(f"{host}:{first + i}" for i in range(nodes))


#: Layout of a generation on the local cluster of N > 1 nodes: one primary per node
#: (up to 3) and one replica, so that losing any one node loses no shard.
def cluster_layout(nodes: int) -> tuple[int, int]:
    return (min(nodes, 3), 1) if nodes > 1 else (1, 0)


def service_urls() -> tuple[str, str]:
    """(S3/SQS endpoint, OpenSearch URL) of the running services: those the environment
    names (AWS_ENDPOINT_URL, OPENSEARCH_URL), else this checkout's, on its ports."""
    env, ports = local_stack_env(), local_ports()
    return (
        env.aws_endpoint_url or local_url(ports.localstack_port, DEFAULT_ENDPOINT),
        env.opensearch_url
        or local_url(ports.opensearch_port, DEFAULT_OPENSEARCH, ports.opensearch_nodes),
    )


@dataclass
class StackConfig:
    """Names and knobs of one local stack (tests use unique names)."""

    bucket: str = "chunkwise-local"
    queue: str = "chunkwise-ingest"
    dlq: str = "chunkwise-ingest-dlq"
    input_prefix: str = "incoming/"
    artifacts_prefix: str = "extracted/"
    index_prefix: str = "chunks"
    visibility_timeout: int = 60
    max_receive_count: int = 3
    region: str = "us-east-1"
    endpoint: str = ""
    opensearch_url: str = ""
    queue_url: str = ""
    dlq_url: str = ""
    live_index: str = ""
    # The loopback embedding endpoint and the ML Commons model the cluster embeds
    # `neural` queries with (empty: the cluster has no ML Commons, or a Bedrock embedder).
    embed_url: str = ""
    query_model_id: str = ""
    # Access control of the query path: "groups" verifies callers' tokens (the local
    # issuer's, below) and filters by readers; "none" (default) searches everything.
    access_control: str = "none"
    admin_group: str = "admins"
    # The local test issuer whose tokens the stack's query function accepts (made by
    # `up` under .local/issuer; samdocs/metadata-and-access.md, "The local test issuer").
    jwt_issuer: str = ""
    jwt_audience: str = ""
    jwt_jwks_file: str = ""
    jwt_groups_claim: str = "groups"
    # OpenSearch nodes `up` starts (`--nodes`): 1, or a local cluster whose generations
    # get `cluster_layout` (3 shards, 1 replica on 3 nodes).
    nodes: int = 1
    started: list[str] = field(default_factory=list)

    @classmethod
    def throwaway(cls, label: str, **knobs: Any) -> StackConfig:
        """A stack of unique names (``label``-<random>) for a test or a benchmark."""
        name = f"{label}-{uuid.uuid4().hex[:8]}"
        return cls(
            bucket=name, queue=f"{name}-ingest", dlq=f"{name}-dlq", index_prefix=name, **knobs
        )

    @property
    def endpoint_url(self) -> str | None:
        """The S3/SQS endpoint; None = AWS itself (``endpoint`` "aws")."""
        return None if self.endpoint in ("", "aws") else self.endpoint

    def env(self) -> dict[str, str]:
        """What the handler / CLI read (chunkwise.settings.Settings) for this stack."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint_url or "",
            "AWS_DEFAULT_REGION": self.region,
            "AWS_REGION": self.region,
            "OPENSEARCH_URL": self.opensearch_url,
            "CHUNKWISE_BUCKET": self.bucket,
            "CHUNKWISE_INPUT_PREFIX": self.input_prefix,
            "CHUNKWISE_ARTIFACTS_PREFIX": self.artifacts_prefix,
            "CHUNKWISE_INDEX_PREFIX": self.index_prefix,
            "CHUNKWISE_QUEUE_URL": self.queue_url,
            **self.layout_env(),
            # Mode "none" is the settings' default: neither it nor the admin group is
            # exported then, so they never override what is set outside.
            "CHUNKWISE_ACCESS_CONTROL": "groups" if self.groups_mode else "",
            "CHUNKWISE_ADMIN_GROUP": self.admin_group if self.groups_mode else "",
            **self.issuer_env(),
        }

    def layout_env(self) -> dict[str, str]:
        """The layout of new generations on a local cluster (one node: the settings'
        defaults, 1/0, nothing exported)."""
        if self.nodes <= 1:
            return {}
        shards, replicas = cluster_layout(self.nodes)
        return {
            "OPENSEARCH_NODES": str(self.nodes),
            "CHUNKWISE_INDEX_SHARDS": str(shards),
            "CHUNKWISE_INDEX_REPLICAS": str(replicas),
        }

    @property
    def groups_mode(self) -> bool:
        return self.access_control == "groups"

    def issuer_env(self) -> dict[str, str]:
        """How the stack's query function verifies tokens (empty before `up` made the
        issuer)."""
        if not self.jwt_issuer:
            return {}
        return {
            "CHUNKWISE_JWT_ISSUER": self.jwt_issuer,
            "CHUNKWISE_JWT_AUDIENCE": self.jwt_audience,
            "CHUNKWISE_JWT_JWKS_FILE": self.jwt_jwks_file,
            "CHUNKWISE_JWT_GROUPS_CLAIM": self.jwt_groups_claim,
        }

    def started_by_up(self, service: str) -> None:
        if service not in self.started:
            self.started.append(service)


def is_emulator(endpoint: str) -> bool:
    return endpoint.startswith(("http://127.", "http://localhost"))


def apply_env(env: Mapping[str, str]) -> None:
    """Point this process at the stack; dummy credentials for an emulator only."""
    export_env(env)
    if is_emulator(env.get("AWS_ENDPOINT_URL", "")):
        export_env(EMULATOR_CREDENTIALS, only_unset=True)


def save_state(cfg: StackConfig, path: Path | None = None) -> None:
    p = path or state_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")  # a killed `up` leaves the old file or the new one, never half
    tmp.write_text(json.dumps(asdict(cfg), indent=2) + "\n", encoding="utf-8")
    tmp.replace(p)


def load_state(path: Path | None = None) -> StackConfig | None:
    p = path or state_path()
    if not p.exists():
        return None
    return StackConfig(**json.loads(p.read_text(encoding="utf-8")))


def require_state() -> StackConfig:
    cfg = load_state()
    if cfg is None:
        raise ConfigError(f"no local stack state ({state_path()}); run `chunkwise local up`")
    return cfg


def use_stack_env() -> None:
    """Point this process at the local stack, unless CHUNKWISE_BUCKET names another."""
    if not local_stack_env().chunkwise_bucket:
        cfg = load_state()
        if cfg is not None:
            apply_env(cfg.env())
    apply_env({"AWS_ENDPOINT_URL": local_stack_env().aws_endpoint_url})


def stack_settings() -> Settings:
    """The settings of the local stack's environment (see `use_stack_env`)."""
    use_stack_env()
    return load_settings()
