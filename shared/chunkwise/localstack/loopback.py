"""What the two loopback endpoints of the local stack share: JSON replies, bounded
request bodies, and serving from a thread of this process.

The embedding endpoint (`chunkwise.localstack.embed_endpoint`) and the rerank endpoint
(`chunkwise.localstack.rerank_endpoint`) both listen on 127.0.0.1 for one client, the
local node's ML Commons; the standard library's threading server is enough for that
and nothing here is deployed.
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOST = "127.0.0.1"


class JsonHandler(BaseHTTPRequestHandler):
    """A request handler that answers JSON and logs to stderr under its service's name."""

    #: the name in the log lines ("embed-endpoint", "rerank-endpoint")
    service = "loopback"
    #: the largest request body read; a longer one is refused unread
    max_body_bytes = 8 * 1024 * 1024

    def send_json(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def read_body(self) -> bytes | None:
        """The request body, or None when it is empty or over `max_body_bytes`."""
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if 0 < length <= self.max_body_bytes else None

    def route(self) -> str:
        return self.path.rstrip("/")

    def log_message(self, format: str, *args: Any) -> None:
        sys.stderr.write(f"{self.service}: {self.address_string()} {format % args}\n")


@dataclass
class RunningServer:
    """An endpoint serving from a daemon thread of this process (tests, `serve`)."""

    server: ThreadingHTTPServer
    thread: threading.Thread

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def serve_in_thread(handler: type[JsonHandler], port: int = 0) -> RunningServer:
    """Serve ``handler`` on 127.0.0.1:``port`` (0: any free port) from a daemon thread."""
    server = ThreadingHTTPServer((HOST, port), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name=handler.service, daemon=True)
    thread.start()
    return RunningServer(server, thread)
