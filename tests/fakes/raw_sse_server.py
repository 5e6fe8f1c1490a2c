"""A loopback chat-completions server that answers every POST with a scripted SSE body, byte for
byte: each piece of the script is written and flushed as its own HTTP chunk, so a test can put an
event, a line or a CRLF across reads, send keep-alive comments, multi-line `data:` events, an
`error` event mid-stream, or end the stream before `[DONE]`.

    with RawSSEServer([b'data: {"choices": []}\\n\\n', b"data: [DONE]\\n\\n"]) as server:
        ...  # server.base_url, server.requests (each request's JSON body)
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback_http import Answer, LoopbackHTTPServer


def sse(payload: dict[str, Any] | str, *, end: bytes = b"\n") -> bytes:
    """One `data:` event (a dict is sent as JSON, UTF-8 unescaped) with its blank line; `end` is the
    line ending."""
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return b"data: " + data.encode() + end + end


def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    """A chat.completion.chunk in OpenAI's shape (`delta=None`: a chunk with no choices)."""
    choices = [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    return {
        "id": "chatcmpl-raw",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "raw-model",
        "choices": choices,
        **extra,
    }


class RawSSEServer(LoopbackHTTPServer):
    thread_name = "fake-raw-sse"

    def __init__(self, script: list[bytes], *, hold_open: bool = False) -> None:
        super().__init__()
        self.script = script
        self.hold_open = hold_open  # after the script, keep the response open until the server stops
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"{self.address}/v1"

    def _answers(self) -> dict[str, Answer]:
        return {"POST": self._handle_post}

    def _handle_post(self, http: BaseHTTPRequestHandler) -> None:
        length = int(http.headers.get("Content-Length") or 0)
        body = http.rfile.read(length) if length else b"{}"
        with self._lock:
            self.requests.append(json.loads(body))
        try:
            http.send_response(200)
            http.send_header("Content-Type", "text/event-stream")
            http.send_header("Transfer-Encoding", "chunked")
            http.end_headers()
            for piece in self.script:
                http.wfile.write(f"{len(piece):X}\r\n".encode() + piece + b"\r\n")
                http.wfile.flush()
            if self.hold_open:
                self._stopping.wait()
                return
            http.wfile.write(b"0\r\n\r\n")
            http.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
