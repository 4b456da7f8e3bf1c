"""The inspector page's web server: the standard library's `ThreadingHTTPServer` on loopback.

Requests are answered on their own threads; every memory call runs on one event loop of its own
thread, where the loop and its backend live. Protection for a page that shows private memory:
only loopback addresses, a `Host` check (a rebound DNS name cannot read it), a per-process token
and an `Origin` check on every POST, and a content security policy that runs only the page's
own script (memory text is shown with `textContent`, never parsed as HTML).
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import secrets
import socket
import threading
from collections.abc import Awaitable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

from zepkit.core._inspector.api import ApiError, InspectorApi

T = TypeVar("T")
MAX_BODY = 1 << 20
"""Bytes a POST body may have (a previewed message is far smaller)."""
CALL_TIMEOUT = 120.0
"""Seconds one memory call may take before the request fails (a preview copies the file)."""
TOKEN_HEADER = "X-Zepkit-Token"


def check_loopback(host: str) -> None:
    """Refuse to serve on an address other machines can reach: memory is private."""
    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(host, None)}
    except OSError as exc:
        raise ValueError(f"cannot resolve the host {host!r}: {exc}") from exc
    public = sorted(a for a in addresses if not ipaddress.ip_address(a.split("%")[0]).is_loopback)
    if public:
        raise ValueError(
            f"refusing to serve memory on {host!r} ({', '.join(public)}), which other machines "
            "can reach; the page has no login. Serve on 127.0.0.1 and reach it from elsewhere "
            "through an SSH tunnel (ssh -L PORT:127.0.0.1:PORT HOST)"
        )


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    inspector: InspectorServer

    def server_bind(self) -> None:  # skip the reverse DNS lookup of the base class
        self.socket.bind(self.server_address)
        host, port = self.socket.getsockname()[:2]
        self.server_name, self.server_port = str(host), int(port)


class _HTTPServer6(_HTTPServer):
    address_family = socket.AF_INET6


class InspectorServer:
    """The page and its JSON API on `host:port` (port 0: any free one). `start()` serves on a
    thread of its own, `serve_forever()` on the caller's; `close()` stops and closes the loop."""

    def __init__(self, api: InspectorApi, *, host: str = "127.0.0.1", port: int = 0) -> None:
        check_loopback(host)
        self.api = api
        self.token = secrets.token_urlsafe(32)
        """Every POST carries it: another site's page cannot read it, so cannot act here."""
        server = _HTTPServer6 if ":" in host else _HTTPServer
        try:
            self._httpd = server((host, port), _Handler)
        except OSError as exc:
            raise ValueError(
                f"cannot serve on {host} port {port} ({exc.strerror or exc}); choose another "
                "with --port N (0 picks a free one)"
            ) from exc
        self._httpd.inspector = self
        self.host, self.port = host, self._httpd.server_port
        self.allowed_hosts = {
            f"{name}:{self.port}" for name in ("127.0.0.1", "localhost", "[::1]", _bracket(host))
        }
        self._events = asyncio.new_event_loop()
        self._event_thread = threading.Thread(
            target=self._events.run_forever, name="zepkit-ui-memory", daemon=True
        )
        self._event_thread.start()
        self._serving: threading.Thread | None = None
        self._closed = False

    @property
    def url(self) -> str:
        return f"http://{_bracket(self.host)}:{self.port}/"

    def start(self) -> InspectorServer:
        """Serve on a background thread (tests, embedding in another program)."""
        self._serving = threading.Thread(
            target=self._httpd.serve_forever, name="zepkit-ui", daemon=True
        )
        self._serving.start()
        return self

    def serve_forever(self) -> None:
        """Serve on this thread until `shutdown()` is called from another one."""
        self._httpd.serve_forever()

    def shutdown(self) -> None:
        """Stop serving (returns once the serving loop has ended; never call it from there)."""
        self._httpd.shutdown()

    def close(self) -> None:
        """Stop serving, close the memory loop and the event loop. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        if self._serving is not None:
            self._httpd.shutdown()
            self._serving.join()
        self._httpd.server_close()
        try:
            self.call(self.api.memory.aclose())
        finally:
            self._events.call_soon_threadsafe(self._events.stop)
            self._event_thread.join()
            self._events.close()

    def call(self, work: Awaitable[T]) -> T:
        """Run one memory call on the event loop thread and wait for it."""

        async def run() -> T:
            return await work

        return asyncio.run_coroutine_threadsafe(run(), self._events).result(CALL_TIMEOUT)

    def page(self, nonce: str) -> bytes:
        """The page with this process's token and this response's script nonce filled in."""
        html = resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")
        return html.replace("__TOKEN__", self.token).replace("__NONCE__", nonce).encode()

    def __enter__(self) -> InspectorServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    server_version = "zepkit-ui"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the page's requests are not worth a line each on the terminal."""

    def do_GET(self) -> None:
        if not self._host_ok():
            return
        url = urlsplit(self.path)
        if url.path in ("/", "/index.html"):
            nonce = secrets.token_urlsafe(16)
            self._send(HTTPStatus.OK, self.server.inspector.page(nonce), "text/html", nonce)
        elif url.path.startswith("/api/"):
            query = dict(parse_qsl(url.query, keep_blank_values=True))
            self._answer(self.server.inspector.api.get(url.path[5:], query))
        else:
            self._error(HTTPStatus.NOT_FOUND, "no such page")

    def do_POST(self) -> None:
        if not self._host_ok() or not self._post_ok():
            return
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "the request is too large")
            return
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            self._error(HTTPStatus.BAD_REQUEST, "the request body is not JSON")
            return
        if not isinstance(body, dict) or not url.path.startswith("/api/"):
            self._error(HTTPStatus.BAD_REQUEST, "expected a JSON object sent to /api/...")
            return
        self._answer(self.server.inspector.api.post(url.path[5:], body))

    def _host_ok(self) -> bool:
        """Only the names of this loopback server: a rebound DNS name is refused."""
        if self.headers.get("Host", "") in self.server.inspector.allowed_hosts:
            return True
        self._error(HTTPStatus.MISDIRECTED_REQUEST, "unexpected Host header")
        return False

    def _post_ok(self) -> bool:
        """The page's own POSTs only: its token, JSON, and its origin when the browser says."""
        inspector = self.server.inspector
        token = self.headers.get(TOKEN_HEADER, "")
        origin = self.headers.get("Origin")
        if not hmac.compare_digest(token.encode(), inspector.token.encode()):
            self._error(HTTPStatus.FORBIDDEN, "missing or wrong page token")
        elif origin is not None and urlsplit(origin).netloc not in inspector.allowed_hosts:
            self._error(HTTPStatus.FORBIDDEN, "cross-origin request refused")
        elif (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send application/json")
        else:
            return True
        return False

    def _answer(self, work: Awaitable[Any]) -> None:
        try:
            result = self.server.inspector.call(work)
        except ApiError as exc:
            self._error(HTTPStatus(exc.status), str(exc))
            return
        except Exception as exc:
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(exc).__name__}: {exc}")
            return
        self._send(HTTPStatus.OK, json.dumps(result).encode(), "application/json")

    def _error(self, status: HTTPStatus, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        self._send(status, body, "application/json")

    def _send(self, status: HTTPStatus, body: bytes, kind: str, nonce: str | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        script = f"'nonce-{nonce}'" if nonce else "'none'"
        self.send_header(
            "Content-Security-Policy",
            f"default-src 'none'; script-src {script}; style-src {script}; connect-src 'self'; "
            "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        )
        self.end_headers()
        self.wfile.write(body)
