"""The model relevance judge's batches follow the server's structured-output method: on a server
that takes json_schema (no list bound) twelve sources are one call; on llama-cpp, whose JSON-mode
grammar holds a reply to MAX_ITEMS verdicts, they are three. Real ChatOpenAI against the loopback fake."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from research.brains.llm.llm_brain import LLMBrain
from research.brains.llm.relevance_judge import MAX_PER_CALL
from research.brains.llm.structured import forget_methods, server_key
from research.schemas.state_shapes import Source
from tests.brains.test_local_model_calls import llama_like, settings_for
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, message_texts, requested_schema_name

TOPIC = "How do mRNA vaccines work?"
QUESTION = "How do mRNA vaccines instruct cells?"


@pytest.fixture(autouse=True)
def _fresh_structured_methods():
    forget_methods()
    yield
    forget_methods()


def sources(count: int) -> list[Source]:
    return [
        Source(
            id=f"s{k}", title=f"mRNA paper {k}", url=f"https://e.org/{k}", kind="web", provider="fake", snippet="mRNA"
        )
        for k in range(1, count + 1)
    ]


def shown(request: dict[str, Any]) -> int:
    return len(re.findall(r'<source n="\d+"', "\n".join(message_texts(request, "user"))))


def bounded_judge(request: dict[str, Any]) -> Any:
    """Every source shown is on the subject; no more verdicts than a grammar's list bound lets through."""
    if requested_schema_name(request) != "RelevanceJudgements":
        return ScriptedModel()(request)
    schema = request["response_format"].get("schema") or {}
    bound = schema.get("properties", {}).get("verdicts", {}).get("maxItems", shown(request))
    count = min(shown(request), bound)
    return {"verdicts": [{"source": i, "reason": "on the subject", "relevant": True} for i in range(1, count + 1)]}


def judge_requests(server: Any) -> list[dict[str, Any]]:
    return [r for r, _usage in server.replied if requested_schema_name(r) == "RelevanceJudgements"]


def test_on_a_json_schema_server_twelve_sources_are_one_call(tmp_path: Path) -> None:
    with FakeOpenAIServer(bounded_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        brain.caller.memory.put(server_key(brain._fast), "json_schema")  # what an earlier call learned
        judged = brain.relevance.judge(TOPIC, QUESTION, sources(12))
        answered = judge_requests(server)

    assert [shown(r) for r in answered] == [12]
    assert answered[0]["response_format"]["type"] == "json_schema"
    assert judged.calls == 1 and len(judged.kept) == 12


def test_on_a_json_schema_server_a_batch_stays_within_its_cap(tmp_path: Path) -> None:
    with FakeOpenAIServer(bounded_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        brain.caller.memory.put(server_key(brain._fast), "json_schema")
        judged = brain.relevance.judge(TOPIC, QUESTION, sources(MAX_PER_CALL + 3))
        answered = judge_requests(server)

    assert [shown(r) for r in answered] == [MAX_PER_CALL, 3]
    assert judged.calls == 2


def test_on_llama_cpp_twelve_sources_are_three_calls_within_the_grammar_bound(tmp_path: Path) -> None:
    with llama_like(bounded_judge) as server:
        brain = LLMBrain(settings_for(server, tmp_path), max_retries=0)
        brain.caller.memory.put(server_key(brain._fast), "json_mode")
        judged = brain.relevance.judge(TOPIC, QUESTION, sources(12))
        answered = judge_requests(server)

    assert [shown(r) for r in answered] == [5, 5, 2]
    assert all(r["response_format"]["type"] == "json_object" for r in answered)
    enums = [
        r["response_format"]["schema"]["properties"]["verdicts"]["items"]["properties"]["source"]["enum"]
        for r in answered
    ]
    assert enums == [[1, 2, 3, 4, 5]] * 2 + [[1, 2]]
    assert judged.calls == 3 and len(judged.kept) == 12
