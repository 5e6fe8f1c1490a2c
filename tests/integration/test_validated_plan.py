"""The model's plan is a SupervisorDecision: an invalid one is repaired once, then the default
with a warning; the origin says truthfully who chose the allocation (through the real ChatOpenAI)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel, requested_schema_name
from tests.integration.runs import run_once, run_settings
from tests.integration.services import ServiceFakes

STRAY = {
    "action": "research_complete",
    "reasoning": "Nothing to do.",
    "research_questions": ["How do lipid nanoparticles deliver mRNA?"],
}


def with_plan(plan_replies: list[Any]):
    scripted = ScriptedModel(approve_from_round=1)
    replies = iter(plan_replies)

    def responder(request: dict[str, Any]) -> Any:
        if requested_schema_name(request) == "SupervisorDecision":
            return next(replies)
        return scripted(request)

    return responder


def allocation_decided(outcome) -> dict[str, Any]:
    [event] = [e for e in outcome.events if e.type == "allocation_decided"]
    return event.data.model_dump()


def test_a_stray_research_complete_is_repaired_once_then_the_default_with_a_warning(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer
) -> None:
    model.responder = with_plan([STRAY, STRAY])
    outcome = run_once(run_settings(tmp_path, services, model))

    data = allocation_decided(outcome)
    assert (data["allocation"], data["origin"]) == ({"web": 1, "academic": 1, "book": 1}, "default")
    assert data["research_questions"] == ["How do lipid nanoparticles deliver mRNA?"]
    [warning] = outcome.warnings_from("supervisor")
    assert "invalid after one repair turn" in warning and "research_complete" in warning and "111" in warning
    plan_calls = [r for r in model.requests if requested_schema_name(r) == "SupervisorDecision"]
    assert len(plan_calls) == 2
    assert "Your plan could not be used" in plan_calls[1]["messages"][-1]["content"]
    assert outcome.result["allocation_origin"] == "default"


def test_a_repaired_plan_is_the_models(tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer) -> None:
    good = ScriptedModel(allocation=(2, 1, 0)).plan("How do mRNA vaccines work?")
    model.responder = with_plan([STRAY, good])
    outcome = run_once(run_settings(tmp_path, services, model))

    data = allocation_decided(outcome)
    assert (data["allocation"], data["origin"]) == ({"web": 2, "academic": 1, "book": 0}, "llm")
    assert outcome.warnings_from("supervisor") == []


def test_when_the_plan_step_falls_back_to_offline_the_origin_says_offline(
    tmp_path: Path, services: ServiceFakes, model: FakeOpenAIServer
) -> None:
    model.responder = with_plan(["not json at all"] * 6)
    outcome = run_once(run_settings(tmp_path, services, model))

    assert allocation_decided(outcome)["origin"] == "offline"
    assert outcome.result["allocation_origin"] == "offline"
    assert any("plan" in message for message in outcome.warnings_from("openai")), outcome.warnings
