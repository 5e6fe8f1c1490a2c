"""Every HTTP request to a model is a metered call: the SDK's retries are off, the project retries
transport faults itself, each attempt (failed ones included) reserves a budget unit, so the model
server receives exactly the calls the meter counts and RESEARCH_MAX_LLM_CALLS is a true cap."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from research.brains.base import BudgetExceeded
from research.brains.llm.llm_brain import LLMBrain, chat_model
from research.brains.llm.tool_agent import LLMToolAgent
from research.schemas.state_shapes import ResearcherTask
from research.settings import Settings
from tests.fakes.openai_server import ChatReply, FakeOpenAIServer
from tests.settings_presets import model_call_settings

TASK = ResearcherTask(
    researcher_id="web-1", kind="web", question="How do heat pumps work?", angle="basics", topic="heat pumps"
)


def settings_for(server: FakeOpenAIServer, tmp_path, **overrides: Any) -> Settings:
    return model_call_settings(server.base_url, tmp_path, api_key="sk-test-meter", model="main-model", **overrides)


def quiet(brain: LLMBrain) -> list[float]:
    waits: list[float] = []
    brain.caller.sleep = waits.append
    return waits


def test_the_sdk_never_retries_on_its_own(tmp_path) -> None:
    with FakeOpenAIServer() as server:
        assert chat_model(settings_for(server, tmp_path), "m").max_retries == 0
        brain = LLMBrain(settings_for(server, tmp_path))
        assert brain._main.max_retries == 0 and brain._fast.max_retries == 0


def test_retried_faults_are_each_a_metered_call(tmp_path) -> None:
    with FakeOpenAIServer() as server:
        server.fail_next("500", times=2)
        brain = LLMBrain(settings_for(server, tmp_path))
        waits = quiet(brain)
        assert brain.queries(TASK, "web")
        assert server.stats.calls == 3 == brain.meter.reserved
        usage = brain.take_usage()
        assert usage.calls == 3 and usage.failed_calls == 2
        assert waits == [0.01, 0.01]  # the server's retry-after-ms, honoured
        assert [c.failed for c in brain.meter.calls] == [True, True, False]


def test_the_call_cap_holds_exactly_against_a_failing_server(tmp_path) -> None:
    with FakeOpenAIServer() as server:
        server.fail_next("429", times=10_000)
        brain = LLMBrain(settings_for(server, tmp_path, max_llm_calls=4))
        quiet(brain)
        with pytest.raises(Exception, match="429|Rate limit"):
            brain.queries(TASK, "web")  # three attempts: the first and two retries
        with pytest.raises(BudgetExceeded):
            brain.queries(TASK, "web")  # one attempt left, then the cap: no fifth request
        assert server.stats.calls == 4 == brain.meter.reserved
        usage = brain.take_usage()
        assert usage.calls == 4 and usage.failed_calls == 4


def test_shape_rejections_are_not_retried_as_faults(tmp_path) -> None:
    with FakeOpenAIServer() as server:
        server.reject_response_format = True  # structured.py moves on to the next method instead
        brain = LLMBrain(settings_for(server, tmp_path))
        quiet(brain)
        assert brain.queries(TASK, "web")
        assert server.stats.calls == brain.meter.reserved
        assert brain.take_usage().calls == server.stats.calls


def test_agent_tool_steps_are_retried_and_metered_the_same_way(tmp_path) -> None:
    @tool
    def search_library(query: str) -> str:
        """Search the local library."""
        return query

    reply = ChatReply(tool_name="search_library", tool_arguments={"query": "heat pumps"})
    with FakeOpenAIServer(lambda request: reply) as server:
        server.fail_next("500", times=2)
        brain = LLMBrain(settings_for(server, tmp_path))
        llm, meter = brain.tool_chat()
        agent = LLMToolAgent(llm, meter)
        agent.sleep = lambda _s: None
        message = agent.step([HumanMessage("find sources on heat pumps")], [search_library])
        assert message.tool_calls and message.tool_calls[0]["name"] == "search_library"
        assert server.stats.calls == 3 == meter.reserved
        usage = meter.take()
        assert usage.calls == 3 and usage.failed_calls == 2
