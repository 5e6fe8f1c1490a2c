"""Agent mode with the real ChatOpenAI (bind_tools) against the loopback OpenAI server: the
tool-call contract on the wire, invalid arguments, the loop guard, the budget and the fallback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from research.runs.runner import ResearchRunner
from research.runs.view import fold
from tests.fakes.openai_server import ChatReply, FakeOpenAIServer
from tests.fakes.tool_agent_model import ToolAgentModel, directive_topic, tool_results
from tests.graph.agent_runs import TOPIC, run_agent
from tests.helpers import events_of


def _runner(settings, server: FakeOpenAIServer, **overrides) -> ResearchRunner:
    return ResearchRunner(
        settings.model_copy(
            update={
                "llm": "openai",
                "openai_base_url": server.base_url,
                "model": "fake-model",
                **overrides,
            }
        )
    )


def _agent_run(settings, model: ToolAgentModel, **overrides) -> tuple[ResearchRunner, str]:
    """One web researcher (allocation 100) driven by `model` behind the loopback server."""
    with FakeOpenAIServer(model) as server:
        runner = _runner(settings, server, **overrides)
        return runner, run_agent(runner, "100")


def _calling_search_library(arguments: Callable[[int], dict[str, Any]]) -> ToolAgentModel:
    """A model that calls search_library at every step, with `arguments(step)`."""
    return ToolAgentModel(lambda _request, step: ChatReply(tool_calls=[("search_library", arguments(step))]))


def test_the_contract_on_the_wire(settings):
    model = ToolAgentModel()
    runner, run_id = _agent_run(settings, model)
    first, second, last = model.agent_requests
    assert [t["function"]["name"] for t in first["tools"]] == ["search_library"]
    directive = first["messages"][1]
    assert directive["role"] == "user" and directive["name"] == "Supervisor"
    assert directive["content"].startswith("Supervisor Directive: web-1 (web, ") and directive_topic(first) == TOPIC
    # Each tool call came back as a tool message with the same id, after the worker's named AIMessage.
    assistant, tool = second["messages"][2], second["messages"][3]
    assert assistant["role"] == "assistant" and assistant["name"] == "web-1"
    assert assistant["tool_calls"][0]["function"]["name"] == "search_library"
    assert tool["role"] == "tool" and tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert "<<<SOURCES>>>" in tool["content"]
    assert len(tool_results(last)) == 2
    view = fold(runner.store.events(run_id))
    worker = view.researchers["web-1"]
    assert [c.status for c in worker.tool_calls] == ["ok", "ok"]
    assert worker.transcript[-1].content.startswith("- The sources describe Impressionism.")
    assert view.status == "finished" and worker.source_ids
    assert view.usage.by_node["researcher"].calls >= 3  # every agent step is metered


def test_invalid_arguments_are_explained_and_retried_once(settings):
    def script(request, step):
        if step == 0:
            return ChatReply(tool_calls=[("search_library", {"query": "x", "limit": 99})])
        if step == 1:
            assert "Invalid arguments for search_library: query: " in tool_results(request)[0]["content"]
            return ChatReply(tool_calls=[("search_library", {"query": TOPIC})])
        return ChatReply(content="- Done.")

    runner, run_id = _agent_run(settings, ToolAgentModel(script))
    calls = fold(runner.store.events(run_id)).researchers["web-1"].tool_calls
    assert [c.status for c in calls] == ["invalid", "ok"]
    assert "limit: Input should be less than or equal to 10" in calls[0].error


@pytest.mark.parametrize(
    ("arguments", "statuses", "closing", "found"),
    [
        (
            lambda step: {"limit": step},
            ["invalid", "invalid"],
            "its tool arguments stayed invalid after a retry",
            False,
        ),
        (
            lambda _step: {"query": TOPIC},
            ["ok", "repeated", "repeated"],
            "it kept repeating identical tool calls",
            True,
        ),
    ],
    ids=["arguments-that-stay-invalid", "repeated-identical-calls"],
)
def test_the_loop_guard_ends_a_worker_that_goes_nowhere(settings, arguments, statuses, closing, found):
    runner, run_id = _agent_run(settings, _calling_search_library(arguments))
    worker = fold(runner.store.events(run_id)).researchers["web-1"]
    assert [c.status for c in worker.tool_calls] == statuses
    assert worker.transcript[-1].content.startswith(f"Stopped early: {closing}")
    assert bool(worker.source_ids) is found  # closes with what its calls found (none were valid: nothing)


def test_the_token_budget_closes_the_worker(settings):
    # 1 plan call + 2 agent steps, then the budget is spent: the worker closes with what it has.
    runner, run_id = _agent_run(settings, ToolAgentModel(), max_llm_calls=3)
    view = fold(runner.store.events(run_id))
    worker = view.researchers["web-1"]
    assert worker.transcript[-1].content.startswith("Stopped early: Model budget reached: 3 of 3 calls used")
    assert worker.source_ids and view.status == "finished"


def test_a_model_without_tool_calls_falls_back_to_the_pipeline(settings):
    with FakeOpenAIServer(ToolAgentModel()) as server:
        server.reject_tools = True
        runner = _runner(settings, server)
        run_id = run_agent(runner, "100")
    view = fold(runner.store.events(run_id))
    assert any(
        "refused tool calls (HTTP 400)" in w.message and "ran as a pipeline researcher" in w.message
        for w in view.warnings
    )
    worker = view.researchers["web-1"]
    assert worker.status == "done" and worker.source_ids and worker.queries
    assert not events_of(runner, run_id, "tool_called")


@pytest.mark.parametrize("reply", [ChatReply(content="I cannot use tools.")])
def test_a_model_that_ignores_the_tools_falls_back_too(settings, reply):
    runner, run_id = _agent_run(settings, ToolAgentModel(lambda r, s: reply))
    view = fold(runner.store.events(run_id))
    assert any("answered without calling any tool" in w.message for w in view.warnings)
    assert view.researchers["web-1"].source_ids


def test_live_tools_against_the_service_fakes(settings):
    """Academic and book workers choose real providers' tools (arXiv, Open Library) through their
    real clients against loopback fakes; the sources are those providers' normalised results."""
    from tests.fakes import FakeServer, lift_rate_limits
    from tests.fakes.service_fakes import install_academic_book_fakes

    lift_rate_limits()
    model = ToolAgentModel()
    with FakeServer() as services, FakeOpenAIServer(model) as server:
        runner = _runner(settings, server, sources="live", http_timeout=2, **install_academic_book_fakes(services))
        run_id = run_agent(runner, "011", topic="The printing press")
    lift_rate_limits()
    view = fold(runner.store.events(run_id))
    academic = view.researchers["academic-1"]
    assert [c.tool for c in academic.tool_calls] == ["search_arxiv", "search_library"]
    assert academic.tool_calls[0].status == "ok"
    arxiv = [s for s in view.sources.values() if s.provider == "arxiv"]
    assert arxiv and all(s.researcher_id == "academic-1" and s.query == "The printing press" for s in arxiv)
    offered = {tuple(t["function"]["name"] for t in r["tools"]) for r in model.agent_requests}
    assert ("search_arxiv", "search_openalex", "fetch_page", "search_library") in offered
    assert ("search_openlibrary", "search_wikipedia", "search_library") in offered
