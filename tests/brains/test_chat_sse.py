"""A ChatOpenAI reply read as raw SSE (chat_sse.py) is the reply LangChain's chunked `.stream()`
built: the same request body, content, tool calls, usage, finish reason, progress ticks and
errors, over what the openai SDK used to handle for us: multi-line `data:` events, `[DONE]` (and
nothing read after it), keep-alive comments, CRLF endings split between reads, UTF-8 split between
reads, `error` events mid-stream, usage in the last chunk, a stream cut before `[DONE]`."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tracers.context import collect_runs

from research.brains.llm import chat_sse
from research.brains.llm.chat_sse import EmptyStream, _lines
from research.brains.llm.llm_brain import LLMBrain, chat_model
from research.brains.llm.model_stream import Progress, _stream_chunks, stream_reply
from research.schemas.state_shapes import ResearcherTask
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.raw_sse_server import RawSSEServer, chunk, sse
from tests.settings_presets import model_call_settings

PROMPT = [HumanMessage("Say something.")]
USAGE = {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}
JSON_SCHEMA = {
    "type": "json_schema",
    "json_schema": {"name": "Answer", "schema": {"type": "object", "properties": {}}, "strict": True},
}
DONE = b"data: [DONE]\n\n"


def _split_inside(data: bytes, char: str) -> list[bytes]:
    """`data` in two reads, split between the bytes of `char`'s UTF-8 encoding."""
    at = data.index(char.encode()) + 1
    return [data[:at], data[at:]]


def _text_script() -> list[bytes]:
    return [
        sse(chunk({"role": "assistant", "content": ""}), end=b"\r\n"),
        b": keep-alive\r\n\r\n",
        sse(chunk({"content": "Héllo, "}), end=b"\r\n")[:-3],  # a CRLF split between two reads
        b"\n",
        b"\r\n",
        *_split_inside(b"event: message\nid: 3\n" + sse(chunk({"content": "wörld"})), "ö"),
        b'data: {"id": "chatcmpl-raw", "object": "chat.completion.chunk", "created": 1,\n'
        b'data:  "model": "raw-model", "choices": [{"index": 0, "delta": {"content": "!"},\n'
        b'data: "finish_reason": null}]}\n\n',  # one event over three data lines
        sse(chunk({}, "stop", system_fingerprint="fp-1")),
        sse(chunk(None, usage=USAGE)),
        DONE,
        b"data: not json at all\n\n",  # after [DONE]: never read
    ]


def _tools_script() -> list[bytes]:
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": ""}}
    second = {"index": 1, "id": "call_2", "type": "function", "function": {"name": "fetch", "arguments": "not"}}
    return [
        sse(chunk({"role": "assistant", "content": None})),
        sse(chunk({"tool_calls": [call]})),
        sse(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"q": "heat'}}]})),
        sse(chunk({"tool_calls": [{"index": 0, "function": {"arguments": ' pumps"}'}}]})),
        sse(chunk({"tool_calls": [second]})),
        sse(chunk({"tool_calls": [{"index": 1, "function": {"arguments": " json"}}]})),  # invalid arguments
        sse(chunk({}, "tool_calls")),
        sse(chunk(None, usage=USAGE)),
        DONE,
    ]


def _cut_script() -> list[bytes]:
    return [sse(chunk({"role": "assistant", "content": ""})), sse(chunk({"content": "half a rep"}))]


def _settings(server: RawSSEServer | FakeOpenAIServer, tmp_path: Path) -> Any:
    return model_call_settings(server.base_url, tmp_path, api_key="sk-test-sse", model="raw-model")


def _both(script: list[bytes], tmp_path: Path, **bound: Any) -> tuple[Any, Any, list[dict[str, Any]]]:
    """(new reply, chunked reply, the two request bodies): each (message, finish, ticks) or the error."""
    with RawSSEServer(script) as server:
        runnable = chat_model(_settings(server, tmp_path), "raw-model").bind(**bound)
        results = []
        for read in (stream_reply, _stream_chunks):
            progress = Progress(None, "raw-model")
            try:
                message, finish = read(runnable, PROMPT, deadline_seconds=60, progress=progress, clock=time.monotonic)
                results.append((message, finish, progress.tokens))
            except Exception as exc:  # noqa: BLE001 - the error is what is compared
                results.append(exc)
        return results[0], results[1], server.requests


def _seen(message: AIMessage) -> tuple[Any, ...]:
    return (message.content, message.tool_calls, message.invalid_tool_calls, message.usage_metadata)


@pytest.mark.parametrize(
    ("script", "bound"),
    [
        (_text_script(), {"max_tokens": 50, "stop": ["\n## Sources"]}),
        (_text_script(), {"response_format": JSON_SCHEMA}),
        (_tools_script(), {"tools": [{"type": "function", "function": {"name": "lookup", "parameters": {}}}]}),
        (_cut_script(), {}),
        (_cut_script(), {"response_format": {"type": "json_object"}}),
    ],
    ids=["text", "response-format", "tool-calls", "cut-before-done", "cut-response-format"],
)
def test_the_raw_reply_is_the_one_the_chunked_stream_built(
    script: list[bytes], bound: dict[str, Any], tmp_path: Path
) -> None:
    new, old, requests = _both(script, tmp_path, **bound)
    assert requests[0] == requests[1]  # the same body: payload, stream options, caps, stops
    assert requests[0]["stream"] is True and requests[0]["stream_options"] == {"include_usage": True}
    (message, finish, ticks), (old_message, old_finish, old_ticks) = new, old
    assert _seen(message) == _seen(old_message)
    assert (finish, ticks) == (old_finish, old_ticks)


def test_what_the_raw_reader_gathers_from_a_full_stream(tmp_path: Path) -> None:
    (message, finish, ticks), _, _ = _both(_text_script(), tmp_path)
    assert message.content == "Héllo, wörld!" and finish == "stop" and ticks == 3
    assert message.usage_metadata is not None and message.usage_metadata["input_tokens"] == 12
    assert message.usage_metadata["output_tokens"] == 7
    assert message.response_metadata["system_fingerprint"] == "fp-1"
    (tools, finish, _), _, _ = _both(_tools_script(), tmp_path)
    assert finish == "tool_calls"
    assert [(c["name"], c["args"], c["id"]) for c in tools.tool_calls] == [("lookup", {"q": "heat pumps"}, "call_1")]
    assert [c["name"] for c in tools.invalid_tool_calls] == ["fetch"]
    (cut, finish, _), _, _ = _both(_cut_script(), tmp_path)
    assert (cut.content, finish, cut.usage_metadata) == ("half a rep", None, None)


def test_a_structured_reply_cut_at_its_cap_raises_as_the_sdk_helper_raised(tmp_path: Path) -> None:
    script = [sse(chunk({"role": "assistant", "content": '{"a": "'})), sse(chunk({}, "length")), DONE]
    new, old, _ = _both(script, tmp_path, response_format=JSON_SCHEMA)
    assert isinstance(new, openai.LengthFinishReasonError) and isinstance(old, openai.LengthFinishReasonError)
    (message, finish, _), _, _ = _both(script, tmp_path)  # without response_format: used as it is
    assert (message.content, finish) == ('{"a": "', "length")


@pytest.mark.parametrize(
    ("error", "said"),
    [
        ({"message": "the model crashed", "type": "server_error"}, "the model crashed"),
        ("overloaded", "An error occurred during streaming"),
    ],
)
def test_an_error_event_mid_stream_raises_as_the_sdk_raised(error: Any, said: str, tmp_path: Path) -> None:
    script = [sse(chunk({"role": "assistant", "content": "Part"})), sse({"error": error}), DONE]
    new, old, _ = _both(script, tmp_path)
    assert type(new) is type(old) and isinstance(new, openai.APIError)
    assert new.message == old.message == said and new.body == old.body == error


def test_an_empty_stream_is_a_failed_call(tmp_path: Path) -> None:
    # llama-cpp-python answers a prompt over its context with 200 and no chunk. LangChain's stream
    # raised "No generation chunks were returned"; the SDK's structured helper failed on an assertion.
    new, old, _ = _both([DONE], tmp_path)
    assert isinstance(new, EmptyStream) and type(old) is ValueError and str(new) == str(old)
    new, old, _ = _both([DONE], tmp_path, response_format={"type": "json_object"})
    assert isinstance(new, EmptyStream) and isinstance(old, AssertionError)


def test_keep_alive_comments_let_the_deadline_cut_a_stream_that_sends_nothing_else(tmp_path: Path) -> None:
    script = [sse(chunk({"role": "assistant", "content": "Wait"})), *[b": ping\n\n"] * 20]
    ticks = iter(range(1000))
    with RawSSEServer(script, hold_open=True) as server:
        runnable = chat_model(_settings(server, tmp_path), "raw-model").bind()
        message, finish = stream_reply(
            runnable, PROMPT, deadline_seconds=5, progress=Progress(None, "m"), clock=lambda: float(next(ticks))
        )
    assert (message.content, finish) == ("Wait", "deadline")


def test_a_line_over_the_bound_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(chat_sse, "MAX_LINE_BYTES", 1000)
    script = [sse(chunk({"role": "assistant", "content": ""})), *[b"data: " + b"x" * 400] * 5, b"\n\n", DONE]
    with RawSSEServer(script) as server:
        runnable = chat_model(_settings(server, tmp_path), "raw-model").bind()
        with pytest.raises(openai.APIError, match="over 1,000 bytes"):
            stream_reply(runnable, PROMPT, deadline_seconds=60, progress=Progress(None, "m"))


@pytest.mark.parametrize(
    ("reads", "lines"),
    [
        ([b"a\r\nb\rc\nd"], [b"a", b"b", b"c", b"d"]),
        ([b"a\r", b"\nb\r", b"c"], [b"a", b"b", b"c"]),
        ([b"a\r", b"", b"\n"], [b"a"]),  # an empty read between CR and LF
        ([b"ab", b"c\r\rd\n\n"], [b"abc", b"", b"d", b""]),
        ([b"x\ry", b"\nz"], [b"x", b"y", b"z"]),  # an LF after a line still arriving is that line's end
    ],
)
def test_lines_end_at_cr_lf_or_crlf_wherever_the_reads_split(reads: list[bytes], lines: list[bytes]) -> None:
    assert list(_lines(iter(reads), None)) == lines


def test_the_brain_never_builds_a_chunk_object(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # LangChain's per-chunk conversion (and with it the SDK's chunk models) is off the brain's path.
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a chunk object was built")

    from langchain_openai.chat_models.base import BaseChatOpenAI

    monkeypatch.setattr(BaseChatOpenAI, "_convert_chunk_to_generation_chunk", refuse)
    task = ResearcherTask(researcher_id="web-1", kind="web", question="How do heat pumps work?", angle="", topic="heat")
    with FakeOpenAIServer() as server:
        brain = LLMBrain(_settings(server, tmp_path))
        assert brain.queries(task, "web")  # structured (response_format json_schema)
        usage = brain.take_usage()
    assert usage.calls == 1 and usage.prompt_tokens > 0 and usage.completion_tokens > 0


def test_a_traced_call_is_one_llm_run_as_before(tmp_path: Path) -> None:
    script = [sse(chunk({"role": "assistant", "content": "Hi"})), sse(chunk({}, "stop")), DONE]
    runs = []
    with RawSSEServer(script) as server:
        runnable = chat_model(_settings(server, tmp_path), "raw-model").bind(max_tokens=5)
        for read in (stream_reply, _stream_chunks):
            with collect_runs() as collected:
                read(runnable, PROMPT, deadline_seconds=60, progress=Progress(None, "m"), clock=time.monotonic)
            runs.append(collected.traced_runs)
    (new,), (old,) = runs
    assert new.run_type == old.run_type == "llm" and new.error is None
    assert new.outputs is not None and new.outputs["generations"][0][0]["text"] == "Hi"
