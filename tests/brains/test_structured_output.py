"""Structured output through the real ChatOpenAI against a loopback OpenAI-compatible server:
json_schema first, function calling when the server rejects it, then a JSON prompt with one repair
turn; think blocks and fences tolerated; the working method remembered per server + model."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from research.brains.llm.llm_brain import chat_model
from research.brains.llm.model_output import extract_json_object, strict_json_schema, strip_think
from research.brains.llm.structured import (
    StructuredOutputError,
    forget_methods,
    invoke_structured,
    remembered_method,
)
from research.schemas.llm_shapes import AnalystVerdict, QueryPlan, ResearchPlan
from research.schemas.state_shapes import Usage
from research.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer

MESSAGES = [SystemMessage("Role: web researcher writing search queries."), HumanMessage("Research question: x")]
VALID = {"queries": ["rust ownership guide", "rust borrow checker forum"]}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(lambda request: VALID) as fake:
        yield fake


def llm_for(server: FakeOpenAIServer, **overrides: Any):
    settings = Settings(
        openai_base_url=server.base_url, openai_api_key="sk-test-key", model="fake-model", llm_timeout=5, **overrides
    )
    return chat_model(settings, "fake-model", max_retries=0)


def test_json_schema_is_used_first_with_a_strict_schema(server: FakeOpenAIServer) -> None:
    parsed, usage = invoke_structured(llm_for(server), QueryPlan, MESSAGES)

    assert parsed == QueryPlan(**VALID)
    [request] = server.requests
    response_format = request["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "QueryPlan"
    assert response_format["json_schema"]["strict"] is True
    assert "tools" not in request
    assert usage.calls == 1 and usage.prompt_tokens == server.stats.prompt_tokens > 0
    assert remembered_method(llm_for(server)) == "json_schema"


def test_calls_run_on_the_callers_thread(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """No langchain thread pool per call: `with_structured_output(include_raw=True)` started pool
    threads twice per call, which nine researchers calling at once paid on the critical path."""
    import langchain_core.runnables.base as runnable_base

    def no_pool(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a thread pool was started for a model call")

    monkeypatch.setattr(runnable_base, "get_executor_for_config", no_pool)
    server.reject_response_format = True  # the function-calling path too
    parsed, _ = invoke_structured(llm_for(server), QueryPlan, MESSAGES)
    assert parsed.queries == VALID["queries"]
    assert [r.get("response_format", {}).get("type") for r in server.requests] == [
        "json_schema",
        "json_object",
        "json_object",
        None,
    ]


def test_rejected_json_schema_falls_back_to_function_calling_and_is_remembered(server: FakeOpenAIServer) -> None:
    server.reject_response_format = True
    llm = llm_for(server)

    parsed, usage = invoke_structured(llm, QueryPlan, MESSAGES)

    assert parsed == QueryPlan(**VALID)
    first, with_schema, plain_json, second = server.requests
    assert first["response_format"]["type"] == "json_schema"
    assert with_schema["response_format"]["type"] == "json_object" and "schema" in with_schema["response_format"]
    assert plain_json["response_format"] == {"type": "json_object"}
    assert "response_format" not in second
    assert second["tool_choice"]["function"]["name"] == "QueryPlan"
    assert second["tools"][0]["function"]["name"] == "QueryPlan"
    assert usage.calls == 1  # the rejected request produced no reply and no tokens
    assert remembered_method(llm) == "function_calling"

    # Later calls go straight to the method that works: one request, no rejected json_schema first.
    server.reset()
    invoke_structured(llm, QueryPlan, MESSAGES)
    [only] = server.requests
    assert "response_format" not in only and only["tools"]


def test_both_rejected_uses_json_prompt_and_repairs_once() -> None:
    replies = iter(['Here you go: {"queries": "not a list"}', json.dumps(VALID)])
    with FakeOpenAIServer(lambda request: next(replies)) as server:
        server.reject_response_format = True
        server.reject_tools = True
        llm = llm_for(server)

        parsed, usage = invoke_structured(llm, QueryPlan, MESSAGES)

        assert parsed == QueryPlan(**VALID)
        assert len(server.requests) == 6  # json_schema, json_mode, json_object, tools: 400; JSON prompt, repair
        plain, repair = server.requests[4], server.requests[5]
        assert "response_format" not in plain and "tools" not in plain
        assert "JSON schema named QueryPlan" in plain["messages"][-1]["content"]
        # The repair turn replays the bad answer and names the validation problem.
        assert repair["messages"][-2]["role"] == "assistant"
        assert "queries" in repair["messages"][-1]["content"]
        assert "valid list" in repair["messages"][-1]["content"]
        assert usage.calls == 2
        assert remembered_method(llm) == "json_prompt"


def test_repair_that_stays_invalid_raises_structured_output_error() -> None:
    with FakeOpenAIServer(lambda request: "I cannot produce JSON today.") as server:
        server.reject_response_format = True
        server.reject_tools = True

        with pytest.raises(StructuredOutputError) as caught:
            invoke_structured(llm_for(server), QueryPlan, MESSAGES)

        assert "json_schema: HTTP 400" in str(caught.value)
        assert "json_mode: HTTP 400" in str(caught.value)
        assert "function_calling: HTTP 400" in str(caught.value)
        assert "json_prompt: no JSON object" in str(caught.value)
        assert len(server.requests) == 6


def test_invalid_json_from_json_schema_moves_on_to_json_mode(server: FakeOpenAIServer) -> None:
    server.fail_next("invalid_json")

    parsed, usage = invoke_structured(llm_for(server), QueryPlan, MESSAGES)

    assert parsed == QueryPlan(**VALID)
    assert [r["response_format"]["type"] for r in server.requests] == ["json_schema", "json_object"]
    assert usage.calls == 2 and usage.total_tokens == server.stats.total_tokens


def test_think_blocks_and_fences_around_json_are_tolerated() -> None:
    draft = json.dumps({"queries": ["a first idea I will discard"]})
    reply = f"<think>The user wants queries. Draft: {draft}</think>\n```json\n{json.dumps(VALID)}\n```"
    with FakeOpenAIServer(lambda request: reply) as server:
        parsed, _usage = invoke_structured(llm_for(server), QueryPlan, MESSAGES)

        assert parsed == QueryPlan(**VALID)
        assert len(server.requests) == 1  # recovered from the raw reply, no second call


def test_server_errors_are_not_mistaken_for_format_problems(server: FakeOpenAIServer) -> None:
    server.fail_next("500")

    with pytest.raises(openai.InternalServerError):
        invoke_structured(llm_for(server), QueryPlan, MESSAGES)

    assert len(server.requests) == 1  # no function-calling or JSON-prompt attempts after a 500


def test_streaming_requests_parse_through_sse_with_usage() -> None:
    with FakeOpenAIServer(lambda request: VALID) as server:
        settings = Settings(openai_base_url=server.base_url, openai_api_key="sk-test-key", model="fake-model")
        llm = chat_model(settings, "fake-model", max_retries=0, streaming=True)

        parsed, usage = invoke_structured(llm, QueryPlan, MESSAGES)
        server.reject_response_format = True
        forget_methods()
        parsed_by_tool, tool_usage = invoke_structured(llm, QueryPlan, MESSAGES)

        assert parsed == parsed_by_tool == QueryPlan(**VALID)
        assert all(r["stream"] is True for r in server.requests)
        assert all(r["stream_options"] == {"include_usage": True} for r in server.requests)
        assert (usage + tool_usage).total_tokens == server.stats.total_tokens > 0


def test_usage_callback_sees_every_reply_even_when_the_call_finally_fails() -> None:
    seen: list[Usage] = []
    with FakeOpenAIServer(lambda request: "no json here") as server:
        server.reject_response_format = True
        server.reject_tools = True
        with pytest.raises(StructuredOutputError):
            invoke_structured(llm_for(server), QueryPlan, MESSAGES, on_usage=seen.append)

        assert [u.calls for u in seen] == [1, 1]
        assert sum(u.total_tokens for u in seen) == server.stats.total_tokens


def test_before_call_runs_before_every_request(server: FakeOpenAIServer) -> None:
    server.reject_response_format = True
    calls: list[int] = []

    invoke_structured(llm_for(server), QueryPlan, MESSAGES, before_call=lambda: calls.append(len(server.requests)))

    assert calls == [0, 1, 2, 3]  # before each rejected response_format request, and before the tool call


# --- pure helpers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("<think>plan it</think>Answer", "Answer"),
        ("<THINK>\nA\n</THINK>\n<think>B</think> Answer", "Answer"),
        ("the template opened the block</think>\n\nAnswer", "Answer"),
        ("<think>truncated reasoning that never closes", ""),
        ("Answer with <thinking>aside</thinking> kept text", "Answer with  kept text"),
        ("No reasoning at all", "No reasoning at all"),
    ],
)
def test_strip_think(raw: str, expected: str) -> None:
    assert strip_think(raw) == expected


def test_extract_json_object_skips_prose_and_non_objects() -> None:
    assert extract_json_object('Sure: [1, 2] then {"a": {"b": [1]}} trailing') == {"a": {"b": [1]}}
    with pytest.raises(ValueError, match="no JSON object"):
        extract_json_object("nothing here")
    with pytest.raises(ValueError, match="empty"):
        extract_json_object("<think>only thoughts</think>")


def test_strict_schema_requires_everything_and_has_no_defaults() -> None:
    for model in (QueryPlan, ResearchPlan, AnalystVerdict):
        schema = strict_json_schema(model)
        text = json.dumps(schema)
        assert '"default"' not in text
        assert schema["additionalProperties"] is False
        assert set(schema["required"]) == set(schema["properties"])
    coverage = strict_json_schema(AnalystVerdict)["$defs"]["QuestionCoverage"]
    assert coverage["additionalProperties"] is False and "note" in coverage["required"]
