"""The part every loopback fake shares: a ThreadingHTTPServer on 127.0.0.1:<free port> in a daemon
thread, started and stopped (or used with `with`); subclasses say which methods they answer."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Answer = Callable[[BaseHTTPRequestHandler], None]


class _QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as real servers set it (uvicorn through asyncio, nginx): without it a reply's last
    # small write (a chunked body's end) waits for the client's delayed ACK, about 40 ms on Linux.
    disable_nagle_algorithm = True

    def handle(self) -> None:
        # The client may hang up mid keep-alive (a size-capped read, a timeout).
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            super().handle()

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass


class _CountingHTTPServer(ThreadingHTTPServer):
    """Counts the connections it accepts (a client that reuses its connections opens few)."""

    connections = 0

    def process_request(self, request: Any, client_address: Any) -> None:
        self.connections += 1
        super().process_request(request, client_address)


class LoopbackHTTPServer:
    thread_name = "fake-http"

    def __init__(self) -> None:
        self._stopping = threading.Event()  # set on stop: wakes handlers sleeping in a slow reply
        self._httpd: _CountingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _answers(self) -> dict[str, Answer]:
        """HTTP method -> what answers it; other methods get http.server's 501."""
        raise NotImplementedError

    @property
    def address(self) -> str:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def connections(self) -> int:
        """TCP connections accepted since the server started."""
        return self._httpd.connections if self._httpd is not None else 0

    def start(self) -> Self:
        methods = {f"do_{method}": _calling(answer) for method, answer in self._answers().items()}
        self._httpd = _CountingHTTPServer(("127.0.0.1", 0), type("_Handler", (_QuietHandler,), methods))
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False  # never wait on a handler that is simulating a hang
        # A short poll interval: shutdown() waits up to one interval (0.5 s by default) per test.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name=self.thread_name, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _calling(answer: Answer) -> Callable[[BaseHTTPRequestHandler], None]:
    """A plain function, so it binds to the handler (a bound method as a class attribute would not)."""

    def do(handler: BaseHTTPRequestHandler) -> None:
        answer(handler)

    return do
