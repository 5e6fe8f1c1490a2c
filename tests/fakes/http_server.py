"""A real HTTP server on 127.0.0.1 for tests: programmable routes, a request log, scripted faults.

Real client libraries (httpx, requests inside `arxiv`, the OpenAI SDK, ...) talk to it over a real
socket, so tests exercise the same code paths as production, minus the internet.

    with FakeServer() as server:
        server.route("/works", json_reply({"results": []}))            # any method
        server.route("/search", handler, method="POST")                 # one method only
        server.route("/api/query", faults(ok, Reply(500)))             # first call 500, then ok
        settings = Settings(openalex_url=server.url())                  # point a provider at it
        ...
        assert server.requests("/works")[0].query["search"] == ["..."]

A handler is any callable `(FakeRequest) -> Reply`. Helpers build the common ones:
`json_reply`, `text_reply`, `faults` (script the first N calls), `slow` (delay a reply),
`sequence` (a fixed list of replies). Unknown paths answer 404 with a JSON body.
A pytest fixture is a three-liner in the test module:

    @pytest.fixture
    def server():
        with FakeServer() as s:
            yield s
"""

from __future__ import annotations

import json as jsonlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.loopback_http import Answer, LoopbackHTTPServer


@dataclass
class FakeRequest:
    """One request the server received (the log keeps them in arrival order)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes = b""

    def param(self, name: str, default: str | None = None) -> str | None:
        """The first value of a query parameter."""
        values = self.query.get(name)
        return values[0] if values else default

    def json(self) -> Any:
        return jsonlib.loads(self.body or b"null")


@dataclass
class Reply:
    """What a handler answers. `body` may be bytes, str, or any JSON-able object (sent as JSON)."""

    status: int = 200
    body: Any = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds from the request's arrival to the answer (timeouts); cut short when the server stops

    def encoded(self) -> tuple[bytes, dict[str, str]]:
        headers = dict(self.headers)
        if isinstance(self.body, bytes):
            body = self.body
        elif isinstance(self.body, str):
            body = self.body.encode()
            headers.setdefault("Content-Type", "text/plain; charset=utf-8")
        else:
            body = jsonlib.dumps(self.body).encode()
            headers.setdefault("Content-Type", "application/json")
        return body, headers


Handler = Callable[[FakeRequest], Reply]


def json_reply(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Handler:
    """Always answer this JSON document."""
    return lambda _request: Reply(status, payload, dict(headers or {}))


def text_reply(text: str | bytes, content_type: str = "text/plain; charset=utf-8", status: int = 200) -> Handler:
    """Always answer this body with this Content-Type (HTML, Atom XML, a malformed body, ...)."""
    body = text.encode() if isinstance(text, str) else text
    return lambda _request: Reply(status, body, {"Content-Type": content_type})


def sequence(*replies: Reply) -> Handler:
    """Answer these replies in order, then repeat the last one."""
    calls = _Counter()
    return lambda _request: replies[min(calls.next(), len(replies) - 1)]


def faults(then: Handler, *first: Reply) -> Handler:
    """Answer the scripted `first` replies to the first len(first) calls, then delegate to `then`.

    faults(ok, Reply(429, headers={"Retry-After": "1"}))  -> one 429, then normal answers
    faults(ok, *[Reply(500)] * 3)                          -> three 500s, then normal answers
    """
    calls = _Counter()

    def handler(request: FakeRequest) -> Reply:
        n = calls.next()
        return first[n] if n < len(first) else then(request)

    return handler


def slow(then: Handler, seconds: float) -> Handler:
    """Answer like `then`, but only after `seconds` (longer than the client's timeout = a hang)."""

    def handler(request: FakeRequest) -> Reply:
        reply = then(request)
        return Reply(reply.status, reply.body, reply.headers, delay=seconds)

    return handler


class _Counter:
    def __init__(self) -> None:
        self._n = 0
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            n = self._n
            self._n += 1
            return n


class FakeServer(LoopbackHTTPServer):
    """ThreadingHTTPServer on 127.0.0.1:<free port> in a daemon thread. Start/stop or use `with`."""

    def __init__(self) -> None:
        super().__init__()
        self._routes: dict[tuple[str | None, str], Handler] = {}
        self._log: list[FakeRequest] = []
        self._lock = threading.Lock()

    # --- routes and log ---------------------------------------------------------------------------

    def route(self, path: str, handler: Handler | Reply, *, method: str | None = None) -> FakeServer:
        """Answer requests to `path` (exact, query string ignored); a method-specific route wins."""
        if isinstance(handler, Reply):
            reply = handler
            handler = lambda _request: reply  # noqa: E731
        with self._lock:
            self._routes[(method.upper() if method else None, path)] = handler
        return self

    def requests(self, path: str | None = None) -> list[FakeRequest]:
        """Requests received so far (to `path` only, if given)."""
        with self._lock:
            return [r for r in self._log if path is None or r.path == path]

    def clear_log(self) -> None:
        with self._lock:
            self._log.clear()

    def url(self, path: str = "") -> str:
        """Absolute URL of `path` on this server (no trailing slash for the bare base URL)."""
        return f"{self.base_url}{path}"

    @property
    def base_url(self) -> str:
        return self.address

    def _answers(self) -> dict[str, Answer]:
        return dict.fromkeys(("GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"), self._handle)

    # --- request handling -------------------------------------------------------------------------

    def _handle(self, http: BaseHTTPRequestHandler) -> None:
        arrived = time.monotonic()
        parts = urlsplit(http.path)
        length = int(http.headers.get("Content-Length") or 0)
        request = FakeRequest(
            method=http.command,
            path=parts.path,
            query=parse_qs(parts.query, keep_blank_values=True),
            headers={k: v for k, v in http.headers.items()},
            body=http.rfile.read(length) if length else b"",
        )
        with self._lock:
            self._log.append(request)
            handler = self._routes.get((request.method, request.path)) or self._routes.get((None, request.path))
        if handler is None:
            reply = Reply(404, {"error": f"no route for {request.path}"})
        else:
            try:
                reply = handler(request)
            except Exception as exc:  # a broken test handler shows up as a 500, not a hung client
                reply = Reply(500, {"error": f"fake handler raised {type(exc).__name__}: {exc}"})
        # The delay counts from the request's arrival and the body is encoded before it ends: a
        # delayed reply costs its delay, not the fake's own work too (what the benchmarks assume).
        body, headers = reply.encoded()
        left = reply.delay - (time.monotonic() - arrived)
        if reply.delay and left > 0 and self._stopping.wait(left):
            return
        try:
            http.send_response(reply.status)
            for name, value in headers.items():
                http.send_header(name, value)
            http.send_header("Content-Length", str(len(body)))
            http.end_headers()
            if http.command != "HEAD":
                http.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to answer
