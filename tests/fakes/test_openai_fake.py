"""The loopback OpenAI-compatible fake itself: what the SDK sees on the wire."""

from __future__ import annotations

import openai
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
