"""The peers bench's metering proxy, through the real OpenAI SDK against the loopback fake model:
every request and token counted the same way (equal to the fake's own count), failures counted
with their message, the llama-cpp adapters, embeddings answered locally, the GGUF tokenizer."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from bench.peers.meter import STREAM_CUT, Adapters, MeteringProxy, hashed_embedding, llama_tokenizer
from tests.fakes import FakeServer, json_reply, text_reply
from tests.fakes.openai_server import ChatReply, FakeOpenAIServer

SCHEMA = {"type": "object", "properties": {"queries": {"type": "array", "items": {"type": "string"}}}}


@pytest.fixture
def fake() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def _client(proxy: MeteringProxy) -> openai.OpenAI:
    return openai.OpenAI(base_url=proxy.base_url, api_key="sk-test", max_retries=0)


def test_json_and_streamed_replies_are_counted_as_the_model_counts_them(fake: FakeOpenAIServer) -> None:
    fake.responder = lambda request: "A reply of some forty characters or so."
    with MeteringProxy(fake.base_url) as proxy:
        client = _client(proxy)
        plain = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hello " * 50}])
        streamed = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "stream this " * 30}], stream=True
        )
        text = "".join(chunk.choices[0].delta.content or "" for chunk in streamed if chunk.choices)
        meter = proxy.meter()
    assert plain.choices[0].message.content == text == "A reply of some forty characters or so."
    assert meter.requests == 2 and meter.failed == 0
    assert [c.stream for c in meter.calls] == [False, True]
    assert meter.prompt_tokens == fake.stats.prompt_tokens > 0
    assert meter.completion_tokens == fake.stats.completion_tokens > 0
    assert meter.calls[0].server_usage == {"prompt_tokens": 75, "completion_tokens": 9}
    assert meter.calls[1].server_usage is None  # no include_usage: the meter's own count stands alone


def test_tool_call_arguments_count_as_completion_tokens_in_both_modes(fake: FakeOpenAIServer) -> None:
    fake.responder = lambda request: ChatReply(tool_calls=[("web_search", {"query": "mrna vaccines " * 8})])
    tools = [{"type": "function", "function": {"name": "web_search", "parameters": SCHEMA}}]
    with MeteringProxy(fake.base_url) as proxy:
        client = _client(proxy)
        messages = [{"role": "user", "content": "search"}]
        client.chat.completions.create(model="m", messages=messages, tools=tools)
        for _chunk in client.chat.completions.create(model="m", messages=messages, tools=tools, stream=True):
            pass
        meter = proxy.meter()
    assert [c.tools for c in meter.calls] == [1, 1]
    assert [c.finish_reason for c in meter.calls] == ["tool_calls", "tool_calls"]
    assert meter.calls[0].completion_tokens == meter.calls[1].completion_tokens > 20
    assert meter.completion_tokens == fake.stats.completion_tokens


def test_a_failed_request_is_counted_with_its_message(fake: FakeOpenAIServer) -> None:
    fake.fail_next("500", message="the model fell over")
    with MeteringProxy(fake.base_url) as proxy:
        with pytest.raises(openai.InternalServerError):
            _client(proxy).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        _client(proxy).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        meter = proxy.meter()
    assert (meter.requests, meter.failed) == (2, 1)
    assert meter.errors() == ["HTTP 500: the model fell over"]
    assert meter.as_dict()["failed_requests"] == 1


def test_a_stream_cut_before_done_is_a_failed_request() -> None:
    # llama-cpp-python 0.3.36 answers a streamed prompt longer than its context with HTTP 200 and an
    # empty event stream (checked against the real server; the ValueError is only in its log).
    with FakeServer() as server, MeteringProxy(server.url("/v1")) as proxy:
        server.route("/v1/chat/completions", text_reply("", "text/event-stream"), method="POST")
        chunks = list(
            _client(proxy).chat.completions.create(
                model="m", messages=[{"role": "user", "content": "word " * 900}], stream=True
            )
        )
        meter = proxy.meter()
    assert chunks == []  # the client sees no error at all
    assert (meter.requests, meter.failed) == (1, 1)
    assert meter.errors() == [f"HTTP 200: {STREAM_CUT}"]


def test_json_schema_fails_on_a_llama_cpp_server_unless_the_adapter_rewrites_it(fake: FakeOpenAIServer) -> None:
    fake.like_llama_cpp = True
    fake.responder = lambda request: {"queries": ["a", "b"]}
    response_format = {"type": "json_schema", "json_schema": {"name": "Queries", "schema": SCHEMA}}
    messages = [{"role": "user", "content": "queries please"}]
    with MeteringProxy(fake.base_url) as bare:
        with pytest.raises(openai.InternalServerError):
            _client(bare).chat.completions.create(model="m", messages=messages, response_format=response_format)
        assert bare.meter().failed == 1
    adapters = Adapters(json_object_for_json_schema=True, max_tokens_too=True)
    with MeteringProxy(fake.base_url, adapters=adapters) as adapted:
        reply = _client(adapted).chat.completions.create(
            model="m", messages=messages, response_format=response_format, max_completion_tokens=64
        )
        meter = adapted.meter()
    assert reply.choices[0].message.content == '{"queries": ["a", "b"]}'
    assert meter.failed == 0 and meter.calls[0].response_format == "json_object"
    sent = fake.requests[-1]
    assert sent["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert sent["max_tokens"] == 64
    assert adapters.names() == ["json_object_for_json_schema", "max_tokens_too"]


def test_embeddings_are_answered_by_the_proxy_and_counted_apart(fake: FakeOpenAIServer) -> None:
    with MeteringProxy(fake.base_url) as proxy:
        reply = _client(proxy).embeddings.create(model="e", input=["mrna vaccines work", "mrna vaccines work well"])
        meter = proxy.meter()
    first, second = (d.embedding for d in reply.data)
    assert len(first) == len(second) == 64
    assert sum(a * b for a, b in zip(first, second, strict=True)) > 0.5  # similar texts, similar vectors
    assert first == hashed_embedding("mrna vaccines work")
    assert (meter.embedding_requests, meter.requests) == (1, 0)
    assert fake.stats.calls == 0


def test_the_llama_tokenizer_asks_the_server_for_the_gguf_count() -> None:
    with FakeServer() as server:
        server.route("/extras/tokenize/count", json_reply({"count": 7}), method="POST")
        count = llama_tokenizer(server.url("/v1"))
        assert count("How do mRNA vaccines work?") == 7
        assert count("") == 0  # nothing to ask about
        asked = server.requests("/extras/tokenize/count")
    assert [r.json() for r in asked] == [{"input": "How do mRNA vaccines work?"}]


def test_tokens_are_counted_when_the_meter_is_read_and_estimated_when_the_tokenizer_fails(
    fake: FakeOpenAIServer,
) -> None:
    asked: list[str] = []

    def busy_server(text: str) -> int:  # a llama-cpp server still generating for another client
        asked.append(text)
        raise TimeoutError("the model server is busy")

    with MeteringProxy(fake.base_url, busy_server) as proxy:
        reply = _client(proxy).chat.completions.create(model="m", messages=[{"role": "user", "content": "x" * 80}])
        assert reply.choices[0].message.content  # served without waiting on a count
        assert asked == []
        meter = proxy.meter()
    assert asked == ["x" * 80, reply.choices[0].message.content]
    assert meter.prompt_tokens == fake.stats.prompt_tokens == 20  # the fake's count stands in
    assert meter.as_dict()["estimated_token_counts"] == 1
