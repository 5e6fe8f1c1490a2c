"""A loopback LangSmith endpoint that records what a client sends (runs arrive in batches, as
multipart or JSON, possibly zstd-compressed): tests assert on the decoded bodies."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

from tests.fakes.loopback_http import Answer, LoopbackHTTPServer

# What GET /info answers: the batch settings the client's background thread reads.
INFO = {
    "version": "fake",
    "batch_ingest_config": {
        "use_multipart_endpoint": True,
        "scale_up_qsize_trigger": 1000,
        "scale_up_nthreads_limit": 4,
        "scale_down_nempty_trigger": 4,
        "size_limit": 100,
        "size_limit_bytes": 20_971_520,
    },
}


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class FakeLangSmith(LoopbackHTTPServer):
    thread_name = "fake-langsmith"

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self.received: list[Received] = []

    def _answers(self) -> dict[str, Answer]:
        return {"GET": self._get, "POST": self._write, "PATCH": self._write, "PUT": self._write}

    def text(self) -> str:
        """Everything received, decoded, as one string."""
        with self._lock:
            return "\n".join(r.body.decode("utf-8", errors="replace") for r in self.received)

    def _get(self, http: BaseHTTPRequestHandler) -> None:
        self._reply(http, json.dumps(INFO).encode())

    def _write(self, http: BaseHTTPRequestHandler) -> None:
        length = int(http.headers.get("Content-Length") or 0)
        body = http.rfile.read(length) if length else b""
        if (http.headers.get("Content-Encoding") or "").lower() == "zstd":
            import zstandard

            body = zstandard.ZstdDecompressor().decompressobj().decompress(body)
        with self._lock:
            self.received.append(Received(http.command, http.path, dict(http.headers.items()), body))
        self._reply(http, b"{}", status=202 if "multipart" in http.path or "batch" in http.path else 200)

    @staticmethod
    def _reply(http: BaseHTTPRequestHandler, payload: bytes, status: int = 200) -> None:
        http.send_response(status)
        http.send_header("Content-Type", "application/json")
        http.send_header("Content-Length", str(len(payload)))
        http.end_headers()
        http.wfile.write(payload)
