"""How the raw SSE reader (chat_sse.py) sends one chat-completions request and leaves its connection.

- `streamed`: what `client.with_streaming_response.create(**payload)` sends, on the same client
  (base URL, headers, auth, timeout, retries), minus the SDK's per-call transform of the body: a
  walk of every message against the params' TypedDicts, about a quarter of a call's client CPU,
  and the identity for what langchain-openai sends (tests/brains/test_chat_sse_connection.py checks
  the identity, test_chat_sse.py the bodies sent).
- `drained`: after [DONE], the body's end is read so the HTTP/1.1 connection goes back to the
  client's pool, as the SDK's async stream does. A response closed before its end closes its
  connection, and the next call paid a new TCP handshake (against a hosted API, a TLS one too).
"""

from __future__ import annotations

import contextlib
import heapq
import inspect
import itertools
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, cast

import openai
from openai._base_client import make_request_options
from openai._constants import RAW_RESPONSE_HEADER
from openai._httpx2 import request_exceptions, timeout_exceptions
from openai._response import APIResponse, ResponseContextManager
from openai._types import NotGiven, Omit
from openai.resources.chat.completions import Completions
from openai.types.chat import ChatCompletion, ChatCompletionChunk

# What is read (never parsed) after [DONE]; a server that sends more than this, or takes longer
# than DRAIN_SECONDS to end the body, has the connection closed instead (the SDK's drain: 0.1 s).
MAX_DRAIN_BYTES = 64 * 1024
DRAIN_SECONDS = 0.1
# `create`'s arguments that shape the request rather than its JSON body, and all it takes.
_REQUEST_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")
CREATE_ARGUMENTS = frozenset(inspect.signature(Completions.create).parameters) - {"self"}


def body_of(payload: dict[str, Any]) -> dict[str, Any]:
    """The JSON body `create(**payload)` sends (its transform being the identity here)."""
    return {
        key: value
        for key, value in payload.items()
        if key not in _REQUEST_OPTIONS and not isinstance(value, NotGiven | Omit)
    }


def streamed(client: Any, payload: dict[str, Any]) -> ResponseContextManager[APIResponse[Any]]:
    """`client.with_streaming_response.create(**payload)` without the body's transform; a payload
    `create` would not take, or another client, goes through `create` itself."""
    if not isinstance(client, Completions) or not set(payload) <= CREATE_ARGUMENTS:
        return client.with_streaming_response.create(**payload)  # type: ignore[no-any-return]
    body = body_of(payload)
    options = make_request_options(
        extra_headers={**(payload.get("extra_headers") or {}), RAW_RESPONSE_HEADER: "stream"},
        extra_query=payload.get("extra_query"),
        extra_body=payload.get("extra_body"),
        timeout=payload.get("timeout", NotGiven()),
        security={"bearer_auth": True},
    )

    def send() -> APIResponse[Any]:
        # The raw-response header makes the SDK answer with the APIResponse, not a Stream.
        response: Any = client._post(  # noqa: SLF001 - what `create` calls, with its body as is
            "/chat/completions",
            body=body,
            options=options,
            cast_to=ChatCompletion,
            stream=True,
            stream_cls=openai.Stream[ChatCompletionChunk],
        )
        return cast(APIResponse[Any], response)

    return ResponseContextManager(send)


def drained(http: Any, chunks: Iterator[bytes]) -> Iterator[None]:
    """The body's end after [DONE] (usually only the chunked encoding's last, empty chunk), read and
    discarded. Bounded by MAX_DRAIN_BYTES and by DRAIN_SECONDS, after which the socket is shut down
    (a blocked read returns; httpcore drops the connection). Each read ticks, so the caller's
    deadline still applies; a failure here only costs the connection, the reply is complete."""
    stream = http.extensions.get("network_stream") if http.http_version == "HTTP/1.1" else None
    sock = stream.get_extra_info("socket") if stream is not None else None
    if not isinstance(sock, socket.socket):
        return
    ticket = _WATCHDOG.arm(sock)
    size = 0
    try:
        for chunk in chunks:
            size += len(chunk)
            if size > MAX_DRAIN_BYTES:
                return
            yield None
    except (*timeout_exceptions(), *request_exceptions()):
        return
    finally:
        _WATCHDOG.disarm(ticket)


class _Watchdog:
    """One daemon thread for every drain in the process (not a timer thread per call): it shuts
    down the socket of a drain still running DRAIN_SECONDS after it began."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._due: list[tuple[float, int]] = []  # (deadline, ticket), a heap
        self._armed: dict[int, socket.socket] = {}
        self._tickets = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, sock: socket.socket) -> int:
        with self._cv:
            ticket = next(self._tickets)
            self._armed[ticket] = sock
            heapq.heappush(self._due, (time.monotonic() + DRAIN_SECONDS, ticket))
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="sse-drain-watchdog", daemon=True)
                self._thread.start()
            if self._due[0][1] == ticket:  # the nearest deadline now: the watchdog must wait less
                self._cv.notify()
            return ticket

    def disarm(self, ticket: int) -> None:
        with self._cv:  # after this, the watchdog never touches that socket
            self._armed.pop(ticket, None)

    def _watch(self) -> None:
        with self._cv:
            while True:
                while self._due and self._due[0][1] not in self._armed:
                    heapq.heappop(self._due)  # finished in time
                if not self._due:
                    self._cv.wait()
                    continue
                left = self._due[0][0] - time.monotonic()
                if left > 0:
                    self._cv.wait(left)
                    continue
                _, ticket = heapq.heappop(self._due)
                with contextlib.suppress(OSError):
                    self._armed.pop(ticket).shutdown(socket.SHUT_RDWR)


_WATCHDOG = _Watchdog()
