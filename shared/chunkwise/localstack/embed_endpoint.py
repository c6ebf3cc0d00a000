"""The loopback embedding endpoint: the local model, served to the local node's ML Commons.

On AWS the cluster embeds a query by calling Bedrock through an ML Commons connector.
Locally there is no Bedrock, so chunkwise serves its own local model on 127.0.0.1 and
the local node's connector calls it (samdocs/query-from-any-client.md):

    GET  /        {"model": NAME, "dimension": N, "query_prefix": "..."}
    POST /embed   {"texts": ["..."], "prefix": "query: "}
               -> {"model": NAME, "dimension": N, "embeddings": [[...], ...]}
    POST /rerank  Bedrock's rerank request and answer (`chunkwise.localstack.rerank_endpoint`)

Each text is embedded by the model's own query path, `Embedder.embed_query`, which
adds the model's query prefix ("query: " for E5 models): the very call chunkwise makes
for a query, so the cluster and chunkwise get the same vector. The connector's request
template declares the prefix it was built for (from the model spec); a request whose
prefix is not the served model's is refused, so a connector left over from another
model cannot quietly put queries into the wrong vector space.

Why the standard library's ``http.server``: this listens on the loopback interface only,
for one client (the local node) sending one short request per query; a threading server
from the standard library needs no dependency, and nothing here is deployed (the AWS
stack never runs it). The model is loaded and warmed before the port opens, so the
connector's first call does not wait for the weights.

    python -m chunkwise.localstack.embed_endpoint up [--port N]     start in the background
    python -m chunkwise.localstack.embed_endpoint down              stop what `up` started
    python -m chunkwise.localstack.embed_endpoint status            exit 0 if it answers
    python -m chunkwise.localstack.embed_endpoint serve [--port N]  run in the foreground

(`up` is idempotent: it uses an endpoint that answers, and waits for one still starting.)

`chunkwise local up/down` start and stop it with the stack. The port: --port, else
``CHUNKWISE_EMBED_PORT``, else the OpenSearch HTTP port + 200 (9400 for 9200), so two
local stacks on one machine do not collide.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any, Protocol

from chunkwise.errors import ConfigError
from chunkwise.localstack.config import repo_root
from chunkwise.localstack.loopback import HOST, JsonHandler, RunningServer, serve_in_thread

MAX_TEXTS = 256
MAX_BODY_BYTES = 4 * 1024 * 1024


class QueryEncoder(Protocol):
    """What the endpoint needs of a model: its name, size and query path."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed_query(self, text: str) -> list[float]: ...


def local_encoder(spec: str) -> QueryEncoder:
    """The configured embedder, if it is a local model this endpoint can serve."""
    from chunkwise.wiring.embedders import get_embedder

    if spec.startswith("bedrock:"):
        raise ConfigError(
            f"embedder {spec!r} is not a local model: the loopback endpoint serves local "
            "models only (a Bedrock model is called by the cluster's Bedrock connector)"
        )
    return get_embedder(spec)


# --------------------------------------------------------------------------- requests


class BadRequest(ValueError):
    """The request body is not an embedding request."""


def parse_embed_request(body: bytes) -> tuple[str, list[str]]:
    """``{"texts": [str, ...], "prefix": str}`` -> (prefix, texts)."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadRequest(f"body is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BadRequest("body must be a JSON object")
    texts = data.get("texts")
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise BadRequest('"texts" must be a non-empty list of strings')
    if len(texts) > MAX_TEXTS:
        raise BadRequest(f'"texts": at most {MAX_TEXTS} per request, got {len(texts)}')
    prefix = data.get("prefix", "")
    if not isinstance(prefix, str):
        raise BadRequest('"prefix" must be a string')
    return prefix, texts


def describe(encoder: QueryEncoder) -> dict[str, Any]:
    from chunkwise.embedding.embed import query_prefix

    return {
        "model": encoder.name,
        "dimension": encoder.dimension,
        "query_prefix": query_prefix(encoder),
    }


def embed_response(encoder: QueryEncoder, prefix: str, texts: Sequence[str]) -> dict[str, Any]:
    """The model's query vectors; refuses a connector built for another prefix."""
    info = describe(encoder)
    if prefix != info["query_prefix"]:
        raise BadRequest(
            f"the connector sends query prefix {prefix!r}, {encoder.name} expects "
            f"{info['query_prefix']!r}: re-run the query model setup (chunkwise local up)"
        )
    return {**info, "embeddings": [encoder.embed_query(t) for t in texts]}


def _handler_class(encoder: QueryEncoder) -> type[JsonHandler]:
    from chunkwise.localstack.rerank_endpoint import OverlapScorer
    from chunkwise.localstack.rerank_endpoint import handle as rerank

    scorer = OverlapScorer()

    class Handler(JsonHandler):
        server_version = "chunkwise-embed/1"
        service = "embed-endpoint"
        max_body_bytes = MAX_BODY_BYTES

        def do_GET(self) -> None:  # noqa: N802 (http.server dispatches on the name)
            if self.route() in ("", "/health"):
                self.send_json(HTTPStatus.OK, describe(encoder))
            else:
                self.send_json(HTTPStatus.NOT_FOUND, {"error": f"no route {self.path}"})

        def do_POST(self) -> None:  # noqa: N802 (http.server dispatches on the name)
            if self.route() not in ("/embed", "/rerank"):  # rerank: the rerank endpoint's route
                self.send_json(HTTPStatus.NOT_FOUND, {"error": f"no route {self.path}"})
                return
            body = self.read_body()
            if body is None:
                length = self.headers.get("content-length") or 0
                self.send_json(HTTPStatus.BAD_REQUEST, {"error": f"body length {length}"})
            elif self.route() == "/rerank":
                self.send_json(*rerank(scorer, body))
            else:
                self._embed(body)

        def _embed(self, body: bytes) -> None:
            try:
                prefix, texts = parse_embed_request(body)
                payload = embed_response(encoder, prefix, texts)
            except BadRequest as exc:
                self.send_json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
                return
            self.send_json(HTTPStatus.OK, payload)

    return Handler


def start_in_thread(encoder: QueryEncoder, port: int = 0) -> RunningServer:
    """Serve ``encoder`` on 127.0.0.1:``port`` (0: any free port) from a daemon thread."""
    return serve_in_thread(_handler_class(encoder), port)


# --------------------------------------------------------------------------- process


def state_dir() -> Path:
    return repo_root() / ".local" / "embed-endpoint"


def default_port() -> int:
    from chunkwise.settings import local_ports

    ports = local_ports()
    if ports.chunkwise_embed_port:
        return ports.chunkwise_embed_port
    return (ports.opensearch_port or 9200) + 200


def endpoint_url(port: int | None = None) -> str:
    return f"http://{HOST}:{port or default_port()}"


def probe(url: str, timeout: float = 2.0) -> dict[str, Any] | None:
    """The endpoint's description, or None if nothing (or something else) answers."""
    try:
        with urllib.request.urlopen(url + "/", timeout=timeout) as resp:
            data = json.loads(resp.read().decode("utf-8"))
    except (OSError, urllib.error.URLError, ValueError):
        return None
    return data if isinstance(data, dict) and "model" in data else None


def _say(msg: str) -> None:
    print(f"embed-endpoint: {msg}", file=sys.stderr, flush=True)


def _our_pid() -> int | None:
    pidfile = state_dir() / "pid"
    try:
        pid = int(pidfile.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists() and b"chunkwise.localstack.embed_endpoint" not in cmdline.read_bytes():
        return None
    return pid


def up(port: int | None = None, *, timeout: float = 120.0) -> tuple[str, bool]:
    """Start the endpoint in the background unless it runs; returns its URL and
    whether this call started it. One that an interrupted `up` left loading its
    model is waited for, not started twice (the second could not bind the port)."""
    port = port or default_port()
    url = endpoint_url(port)
    pid = _our_pid()
    if pid is not None:
        if probe(url):
            _say(f"already running: {url}")
            return url, False
        _say(f"pid {pid} is still starting; waiting for it")
        _wait_answering(url, timeout, lambda: _our_pid() is None)
        return url, False
    if probe(url):
        _say(f"something already serves an embedding endpoint on {url}; using it")
        return url, False
    d = state_dir()
    d.mkdir(parents=True, exist_ok=True)
    log = (d / "endpoint.log").open("ab")
    proc = subprocess.Popen(
        [sys.executable, "-m", "chunkwise.localstack.embed_endpoint", "serve", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=log,
        start_new_session=True,  # outlives `chunkwise local up`, like the other services
    )
    (d / "pid").write_text(f"{proc.pid}\n")
    (d / "port").write_text(f"{port}\n")
    info = _wait_answering(url, timeout, lambda: proc.poll() is not None)
    _say(f"up: {url} ({info['model']}, {info['dimension']}d, pid {proc.pid})")
    return url, True


def _wait_answering(url: str, timeout: float, exited: Callable[[], bool]) -> dict[str, Any]:
    """The endpoint's description once it answers; ConfigError if its process
    ``exited()`` first or it did not answer within ``timeout`` (then it is stopped)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if exited():
            raise ConfigError(f"embedding endpoint exited during start; see {state_dir()}")
        info = probe(url)
        if info:
            return info
        time.sleep(0.3)
    down()
    raise ConfigError(f"embedding endpoint did not answer on {url} in {timeout:.0f} s")


def down() -> bool:
    """Stop the endpoint `up` started; True if one was running."""
    pid = _our_pid()
    (state_dir() / "pid").unlink(missing_ok=True)
    if pid is None:
        _say("not running")
        return False
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except OSError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
    _say(f"stopped pid {pid}")
    return True


def serve(port: int) -> None:
    """Foreground: load and warm the model, then serve until SIGTERM/SIGINT."""
    from chunkwise.settings import EmbedderSettings, load_settings

    encoder = local_encoder(load_settings(EmbedderSettings).embedder)
    encoder.embed_query("warm up")  # weights loaded before the port opens
    running = start_in_thread(encoder, port)
    _say(f"serving {encoder.name} on {running.url}")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    running.stop()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m chunkwise.localstack.embed_endpoint")
    p.add_argument("cmd", choices=["up", "down", "status", "serve"])
    p.add_argument("--port", type=int, default=None)
    args = p.parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.cmd == "up":
        print(up(args.port)[0])
        return 0
    if args.cmd == "down":
        down()
        return 0
    if args.cmd == "status":
        url = endpoint_url(args.port)
        info = probe(url)
        _say(f"{url}: {info}" if info else f"{url}: not answering")
        return 0 if info else 1
    serve(args.port or default_port())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
