"""The local OpenSearch cluster (`chunkwise local up --nodes 3`, OPENSEARCH_NODES=3) as a
library for fault injection: which node holds which primaries, kill or pause a node by
its pid, start what is missing again, wait for a health.

The nodes are those tools/opensearch/opensearch.sh started from this checkout (its
``pids`` command); nothing here touches a process it did not start.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import TYPE_CHECKING, Any

from chunkwise.errors import ChunkwiseError
from chunkwise.localstack.config import repo_root
from chunkwise.settings import child_env, local_ports

if TYPE_CHECKING:
    from chunkwise.adapters.opensearch.client import Client

SCRIPT = "tools/opensearch/opensearch.sh"


def node_pids() -> dict[str, int]:
    """Node name -> pid of every cluster node of this checkout that is alive."""
    out = subprocess.run(
        ["bash", SCRIPT, "pids"], cwd=repo_root(), capture_output=True, text=True, check=True
    ).stdout
    pids = {}
    for line in out.splitlines():
        name, _, pid = line.partition(" ")
        if pid.strip().isdigit():
            pids[name] = int(pid)
    return pids


def primaries(client: Client, index: str) -> dict[str, int]:
    """Node name -> number of started primaries of ``index`` it holds."""
    rows: list[dict[str, Any]] = client.cat.shards(index=index, format="json")
    out: dict[str, int] = {}
    for r in rows:
        if r.get("prirep") == "p" and r.get("state") == "STARTED" and r.get("node"):
            out[r["node"]] = out.get(r["node"], 0) + 1
    return out


def node_with_primaries(client: Client, index: str, avoid: str = "") -> str:
    """A node holding the most primaries of ``index`` (not ``avoid`` if another has some)."""
    held = primaries(client, index)
    if not held:
        raise ChunkwiseError(f"no started primary of {index}")
    ranked = sorted(held, key=lambda n: (n == avoid, -held[n], n))
    return ranked[0]


def signal_node(name: str, sig: signal.Signals) -> int:
    """Send ``sig`` to the node ``name`` (SIGKILL, SIGTERM, SIGSTOP, SIGCONT); its pid."""
    pids = node_pids()
    if name not in pids:
        raise ChunkwiseError(f"{name} is not running (nodes alive: {sorted(pids)})")
    os.kill(pids[name], sig)
    return pids[name]


def kill_node(name: str, *, wait: float = 30.0) -> int:
    """kill -9 of ``name``; returns once the process is gone."""
    pid = signal_node(name, signal.SIGKILL)
    _wait_gone(pid, wait)
    return pid


def stop_node(name: str, *, wait: float = 60.0) -> int:
    """A clean stop (SIGTERM) of ``name``; returns once the process is gone."""
    pid = signal_node(name, signal.SIGTERM)
    _wait_gone(pid, wait)
    return pid


def _wait_gone(pid: int, wait: float) -> None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        # our own child (a test that started the node) stays a zombie until reaped
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:
            pass
        if _zombie(pid):
            return
        time.sleep(0.1)
    raise ChunkwiseError(f"pid {pid} still alive after {wait:.0f} s")


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False


def start_missing(nodes: int = 3) -> None:
    """Start every cluster node that is not running (the script's idempotent ``up``)
    and wait until all ``nodes`` are in the cluster again."""
    env = child_env({"OPENSEARCH_NODES": str(nodes)})
    port = local_ports().opensearch_port
    if port:
        env["OPENSEARCH_PORT"] = str(port)
    env.pop("OPENSEARCH_URL", None)  # the script would start nothing with it set
    rc = subprocess.call(["bash", SCRIPT, "up"], cwd=repo_root(), env=env)
    if rc != 0:
        raise ChunkwiseError(f"{SCRIPT} up (OPENSEARCH_NODES={nodes}) failed: exit {rc}")


def wait_health(
    client: Client, status: str = "green", *, nodes: int = 3, timeout: float = 180.0
) -> float:
    """Wait until the cluster has ``nodes`` nodes and ``status`` (green: every replica
    assigned and recovered); the seconds it took."""
    t0 = time.monotonic()
    last: Any = None
    while time.monotonic() - t0 < timeout:
        try:
            last = client.cluster.health()
            rank = {"red": 0, "yellow": 1, "green": 2}
            if (
                last.get("number_of_nodes") == nodes
                and rank.get(last["status"], -1) >= rank[status]
            ):
                return time.monotonic() - t0
        except Exception as exc:  # a node still joining answers 503s; keep asking
            last = f"{type(exc).__name__}: {exc}"
        time.sleep(0.5)
    raise ChunkwiseError(f"cluster not {status} with {nodes} nodes after {timeout:.0f} s: {last}")
