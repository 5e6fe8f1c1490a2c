"""How the raw SSE reader (chat_sse.py, chat_request.py) sends a request and leaves its connection: the body is the
one the SDK's `create` would send (its per-call transform skipped, because it is the identity for
these payloads), and after [DONE] the body's end is read, bounded, so the next call reuses the
connection instead of paying a new handshake."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from openai._utils import maybe_transform
from openai.resources.chat.completions import Completions
from openai.types.chat import completion_create_params

from research.brains.llm import chat_request
from research.brains.llm.chat_request import CREATE_ARGUMENTS, body_of
from research.brains.llm.chat_sse import ChatStream, direct_model
from research.brains.llm.llm_brain import chat_model
from research.brains.llm.model_stream import Progress, stream_reply
from tests.fakes.raw_sse_server import RawSSEServer, chunk, sse
from tests.settings_presets import model_call_settings

PROMPT = [SystemMessage("You write notes."), HumanMessage("Say something.")]
REPLY = [sse(chunk({"role": "assistant", "content": ""})), sse(chunk({"content": "Hi."}, "stop")), b"data: [DONE]\n\n"]
TOOL = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}
SCHEMA = {
    "type": "json_schema",
    "json_schema": {"name": "Answer", "schema": {"type": "object", "properties": {}}, "strict": True},
}


class CountingServer(RawSSEServer):
    """A RawSSEServer that notes the client port of every request: one port, one connection."""

    def __init__(self, script: list[bytes], **kwargs: Any) -> None:
        super().__init__(script, **kwargs)
        self.ports: list[int] = []

    def _handle_post(self, http: BaseHTTPRequestHandler) -> None:
        self.ports.append(http.client_address[1])
        super()._handle_post(http)


def _call(server: RawSSEServer, tmp_path: Path, **settings: Any) -> str:
    llm = chat_model(model_call_settings(server.base_url, tmp_path, api_key="sk-conn", model="m", **settings), "m")
    message, _finish = stream_reply(
        llm.bind(max_tokens=20), PROMPT, deadline_seconds=60, progress=Progress(None, "m"), clock=time.monotonic
    )
    return str(message.content)


@pytest.fixture
def patient_drain(monkeypatch: pytest.MonkeyPatch) -> None:
    """A drain that waits long for the body's end: on a busy machine the fake's last write may come
    later than the real 0.1 s bound, and these tests are about reuse, not that bound."""
    monkeypatch.setattr(chat_request, "DRAIN_SECONDS", 30.0)


@pytest.mark.usefixtures("patient_drain")
def test_consecutive_calls_share_one_connection(tmp_path: Path) -> None:
    with CountingServer(REPLY) as server:
        replies = [_call(server, tmp_path) for _ in range(3)]
    assert replies == ["Hi."] * 3
    assert len(server.ports) == 3 and len(set(server.ports)) == 1


@pytest.mark.usefixtures("patient_drain")
def test_more_than_the_drain_bound_after_done_closes_the_connection_not_the_reply(tmp_path: Path) -> None:
    junk = [b": " + b"x" * 16_000 + b"\n\n"] * 5  # 80 KB after [DONE]: never parsed, never all read
    with CountingServer([*REPLY, *junk]) as server:
        replies = [_call(server, tmp_path) for _ in range(2)]
    assert replies == ["Hi."] * 2
    assert len(set(server.ports)) == 2  # the first connection was given up, not reused


def test_a_server_that_holds_the_body_open_after_done_does_not_hold_the_reply(tmp_path: Path) -> None:
    with RawSSEServer(REPLY, hold_open=True) as server:
        started = time.monotonic()
        reply = _call(server, tmp_path, llm_timeout=60)
        waited = time.monotonic() - started
    assert reply == "Hi."
    assert waited < 30  # the drain's own read bound (0.1 s), not the client's 60 s read timeout


@pytest.mark.parametrize(
    "bound",
    [
        {"max_tokens": 50, "stop": ["\n## Sources"], "temperature": 0.2},
        {"response_format": SCHEMA, "max_tokens": 50},
        {"tools": [TOOL], "tool_choice": "lookup", "parallel_tool_calls": False},
        {"extra_body": {"dry_multiplier": 0.8}},
    ],
    ids=["text", "json-schema", "tools", "extra-body"],
)
def test_the_sdk_transform_skipped_is_the_identity_for_what_langchain_sends(
    bound: dict[str, Any], tmp_path: Path
) -> None:
    llm = chat_model(model_call_settings("http://127.0.0.1:9/v1", tmp_path, api_key="sk-conn", model="m"), "m")
    direct = direct_model(llm.bind(**bound))
    assert direct is not None
    model, kwargs = direct
    stream = ChatStream(model, kwargs, PROMPT)
    body = body_of(stream.payload)
    stream.close()
    assert set(stream.payload) <= CREATE_ARGUMENTS
    assert maybe_transform(body, completion_create_params.CompletionCreateParamsStreaming) == body


def test_the_request_goes_out_without_the_sdk_create(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("create (and its per-call transform) was called")

    monkeypatch.setattr(Completions, "create", refuse)
    with RawSSEServer(REPLY) as server:
        assert _call(server, tmp_path) == "Hi."
        assert server.requests[0]["messages"][0] == {"role": "system", "content": "You write notes."}
