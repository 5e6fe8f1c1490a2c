"""The loopback OpenAI-compatible fake itself: what the SDK sees on the wire."""

from __future__ import annotations

import json
import socket
import threading
from urllib.parse import urlsplit

import openai
import pytest
from langchain_core.messages import AIMessageChunk, HumanMessage

from research.brains.llm.llm_brain import chat_model
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer


def test_models_endpoint_and_retry_after_on_429() -> None:
    with FakeOpenAIServer(lambda request: "hello", model="tiny") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=2)
        assert [m.id for m in client.models.list()] == ["tiny"]

        server.fail_next("429")
        reply = client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "hi"}])

        assert reply.choices[0].message.content == "hello"
        assert server.stats.calls == 2 and server.stats.replies == 1  # the SDK retried once
        assert reply.usage.prompt_tokens == server.stats.prompt_tokens


def test_sse_stream_sends_text_in_chunks_then_usage() -> None:
    text = "A streamed answer that is longer than one chunk of the fake server."
    with FakeOpenAIServer(lambda request: text, stream_chunk_chars=10) as server:
        settings = Settings(openai_base_url=server.base_url, openai_api_key="sk-test", model="fake-model")
        chunks = list(chat_model(settings, "fake-model").stream([HumanMessage("hi")]))

        assert sum(1 for c in chunks if c.content) == 7
        merged = sum(chunks[1:], chunks[0])
        assert isinstance(merged, AIMessageChunk) and merged.content == text
        assert merged.usage_metadata["output_tokens"] == server.stats.completion_tokens > 0
        assert server.requests[0]["stream_options"] == {"include_usage": True}


def test_a_reply_is_worked_out_while_its_latency_runs_not_after_it() -> None:
    """The fake answers at arrival + latency with the reply already built, so a benchmark's call
    costs its latency and not the fake's own work on top (bench/critical_path.py's ideal counts
    the latency alone). Shown by state, not by a clock: the responder has run and the reply is
    counted while a long latency has hardly begun, and not a byte has been sent."""
    answered = threading.Event()

    def responder(request: dict) -> str:
        answered.set()
        return "built early"

    with FakeOpenAIServer(responder, latency=600.0) as server:
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        host, port = urlsplit(server.base_url).netloc.split(":")
        with socket.create_connection((host, int(port)), timeout=30) as raw:
            raw.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nHost: fake\r\nContent-Type: application/json\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            assert answered.wait(timeout=30), "the reply was not worked out before the latency ended"
            assert server.stats.replies == 1
            raw.setblocking(False)
            with pytest.raises(BlockingIOError):
                raw.recv(1)  # nothing sent before the latency ends
