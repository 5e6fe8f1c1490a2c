"""A loopback OpenAI-compatible chat server, for tests and benchmarks of the LLM brain.

It speaks the real wire format, so the real `ChatOpenAI` / OpenAI SDK talk to it over a socket:

    with FakeOpenAIServer() as server:                      # default: the scripted research model
        settings = Settings(openai_base_url=server.base_url, openai_api_key="sk-test", model="fake")
        brain = LLMBrain(settings)
        ...
        assert server.stats.calls == 4

- POST /v1/chat/completions: JSON replies, or SSE with `stream: true` (with a final usage chunk
  when `stream_options.include_usage` is set); `response_format` json_schema answered with JSON
  content; forced tool calls answered with a tool_call whose arguments are the JSON; `usage` in
  every reply.
- GET /v1/models.
- The model is a pluggable `responder(request_json)`: it returns a str (the content, verbatim, even
  where JSON was asked for: script broken output with it), a dict / list / pydantic model (sent
  as JSON content or as tool-call arguments), or a `ChatReply`. Default: `ScriptedModel`.
- Faults: `fail_next("500" | "429" | "timeout" | "invalid_json" | "reject_response_format" |
  "reject_tools", times=n)` scripts the next n calls; `reject_response_format` / `reject_tools`
  attributes make the server permanently refuse those features (any response_format but text)
  with a 400, like many local servers. `like_llama_cpp` behaves as llama-cpp-python 0.3.x does:
  json_schema answered with HTTP 500 and a validation error naming `response_format`, json_object
  (with or without "schema") accepted, `max_tokens` honoured (`max_completion_tokens` ignored),
  a reply cut by it ending with finish_reason "length", and a prompt over `context_tokens`
  answered 400 `context_length_exceeded`.
  Error messages may contain `{api_key}`, replaced by the caller's bearer token (to prove a client
  never leaks what a server echoes).
- `latency` (seconds per call) and counters (`stats`: calls, prompt/completion tokens);
  `replied` holds each 200 reply's request and the usage sent with it, in the order answered.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from pydantic import BaseModel

from tests.fakes.loopback_http import Answer, LoopbackHTTPServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name

Responder = Callable[[dict[str, Any]], Any]
FAULT_KINDS = ("500", "429", "timeout", "invalid_json", "reject_response_format", "reject_tools")

RESPONSE_FORMAT_REJECTION = "Unsupported param: response_format of type 'json_schema' is not supported by this server"
TOOLS_REJECTION = "fake-model does not support tools"
LLAMA_CPP_JSON_SCHEMA_ERROR = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)
INVALID_JSON_CONTENT = 'Sure! Here is the JSON you asked for: {"queries": ["unterminated'


@dataclass
class ChatReply:
    """A full reply: content and/or tool calls (arguments as a JSON string or object): one as
    `tool_name` + `tool_arguments`, or several as `tool_calls` [(name, arguments), ...]."""

    content: str | None = None
    tool_name: str | None = None
    tool_arguments: str | dict[str, Any] | None = None
    tool_calls: list[tuple[str, str | dict[str, Any]]] | None = None


@dataclass
class Fault:
    kind: str
    message: str | None = None


@dataclass
class Stats:
    calls: int = 0  # chat completion requests received, faults included
    replies: int = 0  # successful (200) chat replies
    prompt_tokens: int = 0
    completion_tokens: int = 0
    in_flight: int = 0  # chat requests being answered right now
    max_in_flight: int = 0  # the most answered at once (a per-server concurrency limit shows here)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: about four characters per token."""
    return max(1, len(text) // 4) if text else 0


class FakeOpenAIServer(LoopbackHTTPServer):
    thread_name = "fake-openai"

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        latency: float = 0.0,
        model: str = "fake-model",
        timeout_seconds: float = 30.0,
        retry_after_ms: int | None = 10,
        stream_chunk_chars: int = 24,
    ) -> None:
        super().__init__()
        self.responder: Responder = responder or ScriptedModel()
        self.latency = latency
        self.model = model
        self.timeout_seconds = timeout_seconds  # how long a "timeout" fault hangs
        self.retry_after_ms = retry_after_ms  # sent on 429/5xx so SDK retries stay fast in tests
        self.stream_chunk_chars = stream_chunk_chars
        self.chunk_delay = 0.0  # seconds between streamed chunks (a slow local model)
        self.reject_response_format = False
        self.reject_tools = False
        self.like_llama_cpp = False
        self.context_tokens: int | None = None  # with like_llama_cpp: the n_ctx it enforces
        self.requests: list[dict[str, Any]] = []
        self.replied: list[tuple[dict[str, Any], dict[str, int]]] = []
        self.stats = Stats()
        self._faults: deque[Fault] = deque()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    # --- scripting ------------------------------------------------------------------------------

    def fail_next(self, kind: str, times: int = 1, *, message: str | None = None) -> FakeOpenAIServer:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault {kind!r}; expected one of {FAULT_KINDS}")
        with self._lock:
            self._faults.extend(Fault(kind, message) for _ in range(times))
        return self

    def reset(self) -> None:
        with self._lock:
            self._faults.clear()
            self.requests.clear()
            self.replied.clear()
            self.stats = Stats()

    @property
    def base_url(self) -> str:
        return f"{self.address}/v1"

    def _answers(self) -> dict[str, Answer]:
        return {"GET": self._handle_get, "POST": self._handle_post}

    # --- HTTP -----------------------------------------------------------------------------------

    def _handle_get(self, http: BaseHTTPRequestHandler) -> None:
        if http.path.rstrip("/").endswith("/models"):
            models = {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "fake"}],
            }
            _send_json(http, 200, models)
        else:
            _send_json(http, 404, _error(f"no route for GET {http.path}", "invalid_request_error"))

    def _handle_post(self, http: BaseHTTPRequestHandler) -> None:
        arrived = time.monotonic()
        length = int(http.headers.get("Content-Length") or 0)
        raw = http.rfile.read(length) if length else b""
        if not http.path.rstrip("/").endswith("/chat/completions"):
            _send_json(http, 404, _error(f"no route for POST {http.path}", "invalid_request_error"))
            return
        try:
            request = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            _send_json(http, 400, _error("request body is not JSON", "invalid_request_error"))
            return
        api_key = (http.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        with self._lock:
            self.requests.append(request)
            self.stats.calls += 1
            self.stats.in_flight += 1
            self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
            fault = self._faults.popleft() if self._faults else None
        try:
            self._reply(http, request, fault, api_key, arrived + self.latency)
        finally:
            with self._lock:
                self.stats.in_flight -= 1

    def _reply(
        self, http: BaseHTTPRequestHandler, request: dict[str, Any], fault: Fault | None, api_key: str, due: float
    ) -> None:
        """Answer at `due` (arrival + latency): the reply is worked out and encoded first, so a call
        costs its latency and not the fake's own work too (the benchmarks' ideal counts the
        latency alone; a real server's work is in another process)."""
        format_type = (request.get("response_format") or {}).get("type", "text")
        if fault is None and self.like_llama_cpp and self._send_llama_cpp_error(http, request, format_type, due):
            return
        if fault is None:
            if self.reject_response_format and format_type != "text":
                fault = Fault("reject_response_format")
            elif self.reject_tools and request.get("tools"):
                fault = Fault("reject_tools")
        if fault is not None and self._send_fault(http, fault, api_key, due):
            return
        content, tool = self._answer(request, invalid=fault is not None and fault.kind == "invalid_json")
        finish = "tool_calls" if tool else "stop"
        cap = (
            request.get("max_tokens")
            if self.like_llama_cpp
            else (request.get("max_completion_tokens") or request.get("max_tokens"))
        )
        if cap and content and count_tokens(content) > cap:
            content, finish = content[: int(cap) * 4], "length"  # cut by the cap, as a real server does
        prompt_tokens = count_tokens(_prompt_text(request))
        completion_tokens = count_tokens((content or "") + "".join(args for _name, args in tool))
        with self._lock:
            self.stats.replies += 1
            self.stats.prompt_tokens += prompt_tokens
            self.stats.completion_tokens += completion_tokens
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        with self._lock:
            self.replied.append((request, usage))
        reply_id = f"chatcmpl-fake-{next(self._ids)}"
        if request.get("stream"):
            include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
            events = self._stream_events(reply_id, content, tool, usage if include_usage else None, finish)
            if not self._wait_until(due):
                self._send_stream(http, events)
        else:
            body = json.dumps(self._completion(reply_id, content, tool, usage, finish)).encode()
            if not self._wait_until(due):
                _send_json(http, 200, body)

    def _wait_until(self, due: float) -> bool:
        """Wait for `due` (time.monotonic); True when the server is stopping instead."""
        left = due - time.monotonic()
        return left > 0 and self._stopping.wait(left)

    def _send_llama_cpp_error(
        self, http: BaseHTTPRequestHandler, request: dict[str, Any], format_type: str, due: float
    ) -> bool:
        if format_type not in ("text", "json_object"):
            if not self._wait_until(due):
                _send_json(http, 500, _error(LLAMA_CPP_JSON_SCHEMA_ERROR, "internal_server_error"))
            return True
        prompt = count_tokens(_prompt_text(request))
        wanted = prompt + int(request.get("max_tokens") or 0)
        if self.context_tokens and wanted > self.context_tokens:
            message = (
                f"This model's maximum context length is {self.context_tokens} tokens. However, you "
                f"requested {wanted} tokens ({prompt} in the messages, {request.get('max_tokens')} in the "
                "completion). Please reduce the length of the messages or completion."
            )
            if not self._wait_until(due):
                _send_json(
                    http, 400, _error(message, "invalid_request_error", "context_length_exceeded", param="messages")
                )
            return True
        return False

    def _send_fault(self, http: BaseHTTPRequestHandler, fault: Fault, api_key: str, due: float) -> bool:
        """Answer a scripted fault; False when the fault only changes the content (invalid_json)."""
        if fault.kind == "invalid_json":
            return False
        if self._wait_until(due):
            return True
        retry = {"retry-after-ms": str(self.retry_after_ms)} if self.retry_after_ms is not None else {}

        def message(default: str) -> str:
            return (fault.message or default).replace("{api_key}", api_key)

        if fault.kind == "500":
            _send_json(
                http,
                500,
                _error(message("The server had an error while processing your request."), "server_error"),
                retry,
            )
        elif fault.kind == "429":
            _send_json(
                http, 429, _error(message("Rate limit reached for requests."), "requests", "rate_limit_exceeded"), retry
            )
        elif fault.kind == "reject_response_format":
            _send_json(
                http, 400, _error(message(RESPONSE_FORMAT_REJECTION), "invalid_request_error", param="response_format")
            )
        elif fault.kind == "reject_tools":
            _send_json(http, 400, _error(message(TOOLS_REJECTION), "invalid_request_error", param="tools"))
        elif fault.kind == "timeout":
            self._stopping.wait(self.timeout_seconds)  # the client gives up first; then just hang up
            _close_quietly(http)
        else:
            return False
        return True

    # --- the model ------------------------------------------------------------------------------

    def _answer(self, request: dict[str, Any], *, invalid: bool) -> tuple[str | None, list[tuple[str, str]]]:
        """(content, [(tool_name, arguments_json), ...]) for this request."""
        tool_name = _forced_tool(request)
        if invalid:
            return (None, [(tool_name, INVALID_JSON_CONTENT)]) if tool_name else (INVALID_JSON_CONTENT, [])
        result = self.responder(request)
        if isinstance(result, ChatReply):
            calls = list(result.tool_calls or []) + (
                [(result.tool_name, result.tool_arguments)] if result.tool_name else []
            )
            if calls:
                return result.content, [(n, a if isinstance(a, str) else json.dumps(a)) for n, a in calls]
            return result.content or "", []
        if isinstance(result, BaseModel):
            result = result.model_dump(mode="json")
        text = result if isinstance(result, str) else json.dumps(result)
        if tool_name:
            return None, [(tool_name, text)]
        return text, []

    def _completion(
        self,
        reply_id: str,
        content: str | None,
        tool: list[tuple[str, str]],
        usage: dict,
        finish: str = "stop",
    ) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        if tool:
            message["tool_calls"] = [
                {"id": _call_id(reply_id, i), "type": "function", "function": {"name": name, "arguments": args}}
                for i, (name, args) in enumerate(tool)
            ]
        return {
            "id": reply_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": usage,
        }

    def _stream_events(
        self, reply_id: str, content: str | None, tool: list[tuple[str, str]], usage: dict | None, finish: str
    ) -> list[bytes]:
        """The reply's SSE events, encoded (each `data: {...}` line), ending with [DONE]."""
        created = int(time.time())

        def chunk(delta: dict | None, finish: str | None = None, *, with_usage: dict | None = None) -> dict:
            choices = [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
            return {
                "id": reply_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": self.model,
                "choices": choices,
                "usage": with_usage,
            }

        size = self.stream_chunk_chars
        events = [chunk({"role": "assistant", "content": "" if content is not None else None})]
        for i in range(0, len(content or ""), size):
            events.append(chunk({"content": content[i : i + size]}))
        for index, (name, arguments) in enumerate(tool):
            events.append(
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": _call_id(reply_id, index),
                                "type": "function",
                                "function": {"name": name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            for i in range(0, len(arguments), size):
                events.append(
                    chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[i : i + size]}}]})
                )
        events.append(chunk({}, finish))
        if usage is not None:
            events.append(chunk(None, with_usage=usage))
        return [f"data: {json.dumps(event)}\n\n".encode() for event in events] + [b"data: [DONE]\n\n"]

    def _send_stream(self, http: BaseHTTPRequestHandler, events: list[bytes]) -> None:
        try:
            http.send_response(200)
            http.send_header("Content-Type", "text/event-stream")
            http.send_header("Cache-Control", "no-cache")
            http.send_header("Transfer-Encoding", "chunked")
            http.end_headers()
            for k, event in enumerate(events):
                if k < len(events) - 1 and self.chunk_delay and self._stopping.wait(self.chunk_delay):
                    return
                _write_chunk(http, event)
            http.wfile.write(b"0\r\n\r\n")
            http.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


def _call_id(reply_id: str, index: int) -> str:
    return f"call_{reply_id}" if index == 0 else f"call_{reply_id}_{index}"


def _forced_tool(request: dict[str, Any]) -> str | None:
    """The tool the client forces (tool_choice), or the only tool offered; None without tools."""
    if not request.get("tools"):
        return None
    choice = request.get("tool_choice")
    if isinstance(choice, dict):
        return (choice.get("function") or {}).get("name")
    return requested_schema_name(request)


def _prompt_text(request: dict[str, Any]) -> str:
    parts: list[str] = []
    for message in request.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    for extra in ("tools", "response_format"):
        if request.get(extra):
            parts.append(json.dumps(request[extra]))
    return "\n".join(parts)


def _error(message: str, type_: str, code: str | None = None, *, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _send_json(http: BaseHTTPRequestHandler, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
    """`payload` as JSON (bytes: already encoded)."""
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    try:
        http.send_response(status)
        http.send_header("Content-Type", "application/json")
        http.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            http.send_header(name, value)
        http.end_headers()
        http.wfile.write(body)
    except (BrokenPipeError, ConnectionResetError):
        pass


def _write_chunk(http: BaseHTTPRequestHandler, data: bytes) -> None:
    http.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
    http.wfile.flush()


def _close_quietly(http: BaseHTTPRequestHandler) -> None:
    http.close_connection = True
