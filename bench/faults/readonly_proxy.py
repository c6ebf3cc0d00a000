"""A loopback HTTP proxy in front of OpenSearch: refuses what the query role may not do,
and can play a node that stops answering.

The query function's role allows ``es:ESHttpGet``, ``es:ESHttpHead`` and
``es:ESHttpPost``, and ``es:ESHttpDelete`` on ``_search/point_in_time`` alone (a read
deletes the point in time it opened, template.yaml); a managed domain answers anything
else with 403. This
proxy does the same for a local node, so the query path can be tested against
the permissions it ships with. Every request is recorded (method, path, status).
"""

from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

READ_METHODS = frozenset({"GET", "HEAD", "POST"})
#: The one DELETE the query role may send: a read's own point in time, no index.
PIT_PATH = "/_search/point_in_time"


def is_pit_delete(method: str, path: str) -> bool:
    return method == "DELETE" and path.split("?")[0] == PIT_PATH


_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length"})


@dataclass
class ProxyLog:
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, method: str, path: str, status: int) -> None:
        with self.lock:
            self.requests.append((method, path, status))

    def refused(self) -> list[tuple[str, str, int]]:
        with self.lock:
            return [r for r in self.requests if r[2] == 403]

    def writes(self) -> list[tuple[str, str, int]]:
        with self.lock:
            return [
                r for r in self.requests if r[0] not in READ_METHODS and not is_pit_delete(*r[:2])
            ]


class ReadOnlyProxy:
    """``with ReadOnlyProxy(upstream) as proxy: connect(proxy.url)``."""

    def __init__(self, upstream: str, allowed: frozenset[str] = READ_METHODS) -> None:
        parsed = urllib.parse.urlsplit(upstream)
        self.upstream_host = parsed.hostname or "127.0.0.1"
        self.upstream_port = parsed.port or 9200
        self.allowed = allowed
        self.log = ProxyLog()
        # Outage switch: while down, every request is dropped without an answer (the
        # client sees the connection close, as from a node that was stopped).
        self.down = False
        self._down_after: int | None = None
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def go_down_after(self, requests: int) -> None:
        """Forward ``requests`` more requests, then stop answering (mid-operation)."""
        self._down_after = len(self.log.requests) + requests

    def _is_down(self) -> bool:
        if self._down_after is not None and len(self.log.requests) >= self._down_after:
            self.down, self._down_after = True, None
        return self.down

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ReadOnlyProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return None  # quiet: the proxy log records every request

            def _relay(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                if proxy._is_down():
                    proxy.log.add(self.command, self.path, 0)
                    self.close_connection = True
                    return
                if self.command not in proxy.allowed and not is_pit_delete(self.command, self.path):
                    self._answer(403, _refusal(self.command, self.path))
                    return
                conn = http.client.HTTPConnection(
                    proxy.upstream_host, proxy.upstream_port, timeout=60
                )
                try:
                    headers = {
                        k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP
                    }
                    conn.request(self.command, self.path, body=body or None, headers=headers)
                    resp = conn.getresponse()
                    data = resp.read()
                    self._answer(resp.status, data, resp.getheader("content-type"))
                finally:
                    conn.close()

            def _answer(self, status: int, data: bytes, ctype: str | None = None) -> None:
                proxy.log.add(self.command, self.path, status)
                self.send_response(status)
                self.send_header("content-type", ctype or "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            # http.server dispatches on do_<METHOD>: every method goes through _relay.
            do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = _relay  # noqa: N815

        return Handler


def _refusal(method: str, path: str) -> bytes:
    # The shape of a managed domain's IAM refusal (opensearch-py: AuthorizationException).
    message = (
        "User: arn:aws:sts::000000000000:assumed-role/query-role is not authorized to perform: "
        f"es:ESHttp{method.capitalize()} on {path.split('?')[0]}"
    )
    return json.dumps({"Message": message}).encode()
