"""One metering proxy in front of the model, shared by the desk and every peer.

Every chat request goes through it to the real server (the scripted fake or llama-cpp-python), so
all systems are counted the same way: each request (failed or not) and its tokens, counted by the
proxy over the same wire text (prompt: contents, tools, response format; reply: content and tool
arguments) in the model's own vocabulary (the GGUF's, via /extras/tokenize/count) or the fake's.
Server-reported usage is kept beside it, never instead (llama-cpp streams none).

Streams are relayed chunk by chunk. One that ends before `[DONE]` failed: llama-cpp-python 0.3.x
answers a streamed over-context prompt with HTTP 200 and an empty stream (the error is only in its
log). Adapters, named in the results: `json_object_for_json_schema` (llama-cpp 0.3.x answers
`json_schema` with HTTP 500, accepts `json_object` with the schema), `max_tokens_too` (it ignores
`max_completion_tokens`). `/v1/embeddings` is answered here with a hashed bag of words, counted apart.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx

from tests.fakes.loopback_http import Answer, LoopbackHTTPServer
from tests.fakes.openai_server import _prompt_text, count_tokens

Tokenizer = Callable[[str], int]
EMBEDDING_DIMENSIONS = 64
MAX_BODY_BYTES = 16 * 1024 * 1024  # a peer's request, bounded
_WORD = re.compile(r"[a-z0-9]+")
STREAM_CUT = "the stream ended before [DONE] (llama-cpp logs why, e.g. a prompt longer than the context)"
_HOP_HEADERS = frozenset({"connection", "content-length", "transfer-encoding", "keep-alive", "host", "accept-encoding"})


def fake_tokenizer(text: str) -> int:
    """The scripted fake's own count (about four characters a token), so the meter and the fake agree."""
    return count_tokens(text)


def llama_tokenizer(server_url: str, *, timeout: float = 600.0) -> Tokenizer:
    """Tokens of `text` in the served GGUF's vocabulary (llama-cpp-python's /extras/tokenize/count)."""
    root = server_url.rstrip("/").removesuffix("/v1")
    client = httpx.Client(timeout=timeout)

    def count(text: str) -> int:
        if not text:
            return 0
        reply = client.post(f"{root}/extras/tokenize/count", json={"input": text})
        reply.raise_for_status()
        return int(reply.json()["count"])

    return count


def reply_text(message: dict[str, Any]) -> str:
    """What a reply's tokens are counted over: its content and its tool calls' arguments."""
    calls = message.get("tool_calls") or []
    arguments = "".join(str((c.get("function") or {}).get("arguments") or "") for c in calls)
    return str(message.get("content") or "") + arguments


@dataclass
class MeteredCall:
    """One chat request as the proxy saw it."""

    status: int  # HTTP status the client got (0: the upstream could not be reached)
    stream: bool
    prompt_text: str = field(repr=False)
    seconds: float
    response_format: str  # text | json_object | json_schema
    tools: int  # tools offered
    finish_reason: str | None = None
    server_usage: dict[str, int] | None = None
    error: str | None = None
    completion_text: str = field(default="", repr=False)
    # Counted when the meter is read, not while the request is served: llama-cpp answers one request
    # at a time, so a count asked of it mid-run would wait behind another peer's generation.
    prompt_tokens: int = -1
    completion_tokens: int = -1
    estimated: bool = False  # the tokenizer failed: the fake's four-characters count stands in

    @property
    def failed(self) -> bool:
        return self.status != 200 or self.error is not None


@dataclass
class Meter:
    """Totals over the metered calls (a snapshot: `MeteringProxy.meter()`)."""

    calls: list[MeteredCall] = field(default_factory=list)
    embedding_requests: int = 0

    @property
    def requests(self) -> int:
        return len(self.calls)

    @property
    def failed(self) -> int:
        return sum(c.failed for c in self.calls)

    @property
    def prompt_tokens(self) -> int:
        return sum(c.prompt_tokens for c in self.calls)

    @property
    def completion_tokens(self) -> int:
        return sum(c.completion_tokens for c in self.calls)

    def errors(self) -> list[str]:
        """Distinct failure messages, in order of first appearance."""
        return list(dict.fromkeys(f"HTTP {c.status}: {c.error}"[:240] for c in self.calls if c.failed))

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "failed_requests": self.failed,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "embedding_requests": self.embedding_requests,
            "streamed_requests": sum(c.stream for c in self.calls),
            "estimated_token_counts": sum(c.estimated for c in self.calls),
            "request_errors": self.errors()[:5],
        }


@dataclass(frozen=True)
class Adapters:
    """Request rewrites for a server that lacks a feature a peer relies on (named in the results)."""

    json_object_for_json_schema: bool = False
    max_tokens_too: bool = False

    def names(self) -> list[str]:
        return [name for name, on in vars(self).items() if on]

    def rewrite(self, request: dict[str, Any]) -> dict[str, Any]:
        out = dict(request)
        response_format = out.get("response_format") or {}
        if self.json_object_for_json_schema and response_format.get("type") == "json_schema":
            schema = (response_format.get("json_schema") or {}).get("schema") or {}
            out["response_format"] = {"type": "json_object", "schema": schema}
        if self.max_tokens_too and out.get("max_completion_tokens") and not out.get("max_tokens"):
            out["max_tokens"] = out["max_completion_tokens"]
        return out


def hashed_embedding(text: str, dimensions: int = EMBEDDING_DIMENSIONS) -> list[float]:
    """A deterministic unit vector from the text's words (similar texts, similar vectors)."""
    vector = [0.0] * dimensions
    for word in _WORD.findall(text.lower()[:200_000]):
        slot = int(hashlib.blake2b(word.encode(), digest_size=4).hexdigest(), 16)
        vector[slot % dimensions] += 1.0 if slot & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class MeteringProxy(LoopbackHTTPServer):
    """`with MeteringProxy(upstream_base_url, tokenizer) as proxy:` point every client at
    `proxy.base_url`; `proxy.meter()` is what they spent, `proxy.reset()` starts a new count."""

    thread_name = "metering-proxy"

    def __init__(
        self,
        upstream: str,
        tokenizer: Tokenizer = fake_tokenizer,
        *,
        adapters: Adapters | None = None,
        timeout: float = 1800.0,
    ) -> None:
        super().__init__()
        self.upstream = upstream.rstrip("/")
        self.tokenizer = tokenizer
        self.adapters = adapters or Adapters()
        self._client = httpx.Client(timeout=httpx.Timeout(timeout, connect=10.0))
        self._lock = threading.Lock()
        self._meter = Meter()

    @property
    def base_url(self) -> str:
        return f"{self.address}/v1"

    def meter(self) -> Meter:
        with self._lock:
            snapshot = Meter(list(self._meter.calls), self._meter.embedding_requests)
        for call in snapshot.calls:
            if call.prompt_tokens < 0:
                call.prompt_tokens = self._count(call, call.prompt_text)
            if call.completion_tokens < 0:
                call.completion_tokens = self._count(call, call.completion_text)
        return snapshot

    def _count(self, call: MeteredCall, text: str) -> int:
        try:
            return self.tokenizer(text)
        except Exception:  # noqa: BLE001 - a count that cannot be had is estimated, and says so
            call.estimated = True
            return fake_tokenizer(text)

    def reset(self) -> None:
        with self._lock:
            self._meter = Meter()

    def stop(self) -> None:
        super().stop()
        self._client.close()

    def _answers(self) -> dict[str, Answer]:
        return {"GET": self._forward_get, "POST": self._handle_post}

    # --- HTTP -----------------------------------------------------------------------------------

    def _upstream_url(self, path: str) -> str:
        return self.upstream + path.removeprefix("/v1")

    def _forward_get(self, http: BaseHTTPRequestHandler) -> None:
        try:
            reply = self._client.get(self._upstream_url(http.path))
            _send(http, reply.status_code, reply.content, reply.headers.get("content-type", "application/json"))
        except httpx.HTTPError as exc:
            _send_error(http, 502, f"upstream unreachable: {type(exc).__name__}")

    def _handle_post(self, http: BaseHTTPRequestHandler) -> None:
        length = min(int(http.headers.get("Content-Length") or 0), MAX_BODY_BYTES)
        raw = http.rfile.read(length) if length else b""
        try:
            request = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            _send_error(http, 400, "request body is not JSON")
            return
        path = http.path.split("?", 1)[0].rstrip("/")
        if path.endswith("/embeddings"):
            self._embeddings(http, request)
        elif path.endswith("/chat/completions"):
            self._chat(http, self.adapters.rewrite(request))
        else:
            _send_error(http, 404, f"no route for POST {http.path}")

    def _embeddings(self, http: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        inputs = request.get("input")
        texts = [inputs] if isinstance(inputs, str) else [str(t) for t in inputs or []]
        with self._lock:
            self._meter.embedding_requests += 1
        data = [{"object": "embedding", "index": i, "embedding": hashed_embedding(t)} for i, t in enumerate(texts)]
        tokens = sum(fake_tokenizer(t) for t in texts)  # not on the meter: no model was asked
        body = {
            "object": "list",
            "data": data,
            "model": request.get("model"),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
        _send(http, 200, json.dumps(body).encode(), "application/json")

    def _chat(self, http: BaseHTTPRequestHandler, request: dict[str, Any]) -> None:
        started = time.monotonic()
        stream = bool(request.get("stream"))
        call = MeteredCall(
            status=0,
            stream=stream,
            prompt_text=_prompt_text(request),
            seconds=0.0,
            response_format=str((request.get("response_format") or {}).get("type", "text")),
            tools=len(request.get("tools") or []),
        )
        headers = {k: v for k, v in http.headers.items() if k.lower() not in _HOP_HEADERS}
        # The call is on the meter before the client has its last byte: whoever reads the meter once
        # a reply arrived sees that reply counted.
        record = _Recorder(self, call, started)
        try:
            with self._client.stream("POST", self._upstream_url(http.path), json=request, headers=headers) as reply:
                call.status = reply.status_code
                if stream and reply.status_code == 200:
                    self._relay_stream(http, reply, call, record)
                else:
                    body = reply.read()
                    self._read_reply(body, call)
                    record()
                    _send(http, reply.status_code, body, reply.headers.get("content-type", "application/json"))
        except httpx.HTTPError as exc:
            call.error = f"upstream: {type(exc).__name__}: {exc}"[:300]
            record()
            _send_error(http, 502, call.error)
        finally:
            record()

    def _append(self, meter: Meter, call: MeteredCall) -> None:
        with self._lock:
            meter.calls.append(call)

    def _read_reply(self, body: bytes, call: MeteredCall) -> None:
        try:
            reply = json.loads(body or b"{}")
        except json.JSONDecodeError:
            call.error = "reply is not JSON"
            return
        if call.status != 200:
            error = reply.get("error") if isinstance(reply, dict) else None
            message = error.get("message") if isinstance(error, dict) else error
            call.error = str(message or reply)[:300]
            return
        choice = (reply.get("choices") or [{}])[0]
        call.finish_reason = choice.get("finish_reason")
        call.completion_text = reply_text(choice.get("message") or {})
        call.server_usage = _usage(reply.get("usage"))

    def _relay_stream(
        self, http: BaseHTTPRequestHandler, reply: httpx.Response, call: MeteredCall, record: _Recorder
    ) -> None:
        content: list[str] = []
        arguments: list[str] = []
        try:
            http.send_response(200)
            http.send_header("Content-Type", reply.headers.get("content-type", "text/event-stream"))
            http.send_header("Cache-Control", "no-cache")
            http.send_header("Transfer-Encoding", "chunked")
            http.end_headers()
            for line in reply.iter_lines():
                data = line[5:].strip() if line.startswith("data:") else ""
                if data == "[DONE]":
                    call.completion_text = "".join(content) + "".join(arguments)
                    record()
                elif data:
                    self._read_chunk(data, call, content, arguments)
                _write_chunk(http, (line + "\n").encode())
            self._cut(call, content, arguments, record, STREAM_CUT)  # no [DONE]: metered before the last byte
            http.wfile.write(b"0\r\n\r\n")
            http.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self._cut(call, content, arguments, record, "the client hung up mid-stream")

    @staticmethod
    def _cut(call: MeteredCall, content: list[str], arguments: list[str], record: _Recorder, why: str) -> None:
        if not record.done:
            call.completion_text = "".join(content) + "".join(arguments)
            call.error = why
            record()

    @staticmethod
    def _read_chunk(data: str, call: MeteredCall, content: list[str], arguments: list[str]) -> None:
        try:
            chunk = json.loads(data)
        except json.JSONDecodeError:
            return
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            content.append(str(delta.get("content") or ""))
            for tool in delta.get("tool_calls") or []:
                arguments.append(str((tool.get("function") or {}).get("arguments") or ""))
            if choice.get("finish_reason"):
                call.finish_reason = choice["finish_reason"]
        if chunk.get("usage"):
            call.server_usage = _usage(chunk["usage"])


class _Recorder:
    """Puts a call once, with its time so far, on the meter of its start (a cut run's late reply is not the next's)."""

    def __init__(self, proxy: MeteringProxy, call: MeteredCall, started: float) -> None:
        self.proxy, self.call, self.started, self.done, self.meter = proxy, call, started, False, proxy._meter

    def __call__(self) -> None:
        if not self.done:
            self.done = True
            self.call.seconds = round(time.monotonic() - self.started, 3)
            self.proxy._append(self.meter, self.call)


def _usage(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    return {k: int(usage[k]) for k in ("prompt_tokens", "completion_tokens") if isinstance(usage.get(k), int)}


def _send(http: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str) -> None:
    try:
        http.send_response(status)
        http.send_header("Content-Type", content_type)
        http.send_header("Content-Length", str(len(body)))
        http.end_headers()
        http.wfile.write(body)
    except (BrokenPipeError, ConnectionResetError):
        pass


def _send_error(http: BaseHTTPRequestHandler, status: int, message: str) -> None:
    body = {"error": {"message": message, "type": "proxy_error", "param": None, "code": None}}
    _send(http, status, json.dumps(body).encode(), "application/json")


def _write_chunk(http: BaseHTTPRequestHandler, data: bytes) -> None:
    http.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
    http.wfile.flush()
