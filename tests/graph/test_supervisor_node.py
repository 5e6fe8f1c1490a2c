"""The supervisor in a real (offline) run: who decided the allocation, why, and what happens
when the model's allocation breaks the rules."""

from __future__ import annotations

import pytest

import research.runs.runner
from research.brains.base import Plan
from research.brains.offline.offline_brain import OfflineBrain
from research.runs.runner import ResearchRunner
from research.schemas.researchers import ResearcherAllocation
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.helpers import events_of


class PlanningBrain(OfflineBrain):
    """The offline brain with a scripted allocation, as a model might answer."""

    def __init__(self, allocation: ResearcherAllocation | None) -> None:
        self.scripted = allocation

    def plan(self, topic: str, *, max_researchers: int, wants_allocation: bool) -> Plan:
        plan = super().plan(topic, max_researchers=max_researchers, wants_allocation=wants_allocation)
        plan.allocation = self.scripted
        plan.allocation_reasoning = "scripted"
        plan.origin = "llm"
        return plan


def run_with_brain(settings: Settings, monkeypatch: pytest.MonkeyPatch, brain, **request) -> tuple[ResearchRunner, str]:
    monkeypatch.setattr(research.runs.runner, "make_brain", lambda *args, **kwargs: brain)
    runner = ResearchRunner(settings)
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", max_iterations=0, **request))
    return runner, run_id


def decided(runner: ResearchRunner, run_id: str) -> dict:
    [event] = events_of(runner, run_id, "allocation_decided")
    return event.data.model_dump()


def test_without_a_user_allocation_the_brain_decides_by_the_guidance(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", max_iterations=0))
    data = decided(runner, run_id)
    assert data["allocation"] == {"web": 1, "academic": 2, "book": 0}
    assert data["origin"] == "offline"  # the offline classifier chose it: neither the user nor a model
    assert "Guidance" in data["reasoning"] and "scientific and medical" in data["reasoning"]
    assert "(1,2,0)" in data["reasoning"]
    assert data["research_questions"] and all(q.endswith("?") for q in data["research_questions"])
    record = runner.store.get_run(run_id)
    assert (record.allocation, record.allocation_origin) == ("120", "offline")
    started = {e.researcher_id for e in events_of(runner, run_id, "researcher_started")}
    assert started == {"web-1", "academic-1", "academic-2"}


def test_the_user_allocation_wins(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="003", max_iterations=0))
    data = decided(runner, run_id)
    assert data["allocation"] == {"web": 0, "academic": 0, "book": 3}
    assert data["origin"] == "user" and "003" in data["reasoning"]


def test_an_invalid_model_allocation_falls_back_to_the_default_with_a_warning(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner, run_id = run_with_brain(
        settings, monkeypatch, PlanningBrain(ResearcherAllocation(web=3, academic=3, book=3))
    )
    assert runner.store.get_run(run_id).status == "finished"
    data = decided(runner, run_id)
    assert data["allocation"] == {"web": 1, "academic": 1, "book": 1}
    assert data["origin"] == "default"
    warnings = [e.data for e in events_of(runner, run_id, "warning") if e.data.source == "supervisor"]
    assert len(warnings) == 1
    assert "333" in warnings[0].message and "at most 3" in warnings[0].message
    started = {e.researcher_id for e in events_of(runner, run_id, "researcher_started")}
    assert started == {"web-1", "academic-1", "book-1"}


def test_a_valid_model_allocation_is_used(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    runner, run_id = run_with_brain(settings, monkeypatch, PlanningBrain(ResearcherAllocation(web=3)))
    data = decided(runner, run_id)
    assert (data["allocation"], data["origin"], data["reasoning"]) == (
        {"web": 3, "academic": 0, "book": 0},
        "llm",
        "scripted",
    )


def test_a_higher_cap_lets_the_model_send_more(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    wide = settings.model_copy(update={"max_researchers": 4})
    runner, run_id = run_with_brain(wide, monkeypatch, PlanningBrain(ResearcherAllocation(web=2, academic=2)))
    assert decided(runner, run_id)["origin"] == "llm"
    assert len(events_of(runner, run_id, "researcher_started")) == 4


def test_no_model_allocation_uses_the_default_with_a_warning(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner, run_id = run_with_brain(settings, monkeypatch, PlanningBrain(None))
    data = decided(runner, run_id)
    assert (data["allocation"], data["origin"]) == ({"web": 1, "academic": 1, "book": 1}, "default")
    assert any(e.data.source == "supervisor" for e in events_of(runner, run_id, "warning"))


def test_the_transcript_records_directives_and_closing_messages(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="120", max_iterations=0))
    messages = [e.data for e in events_of(runner, run_id, "message")]
    directives = [m.content for m in messages if m.name == "Supervisor"]
    assert len(directives) == 3
    assert all(d.startswith("Supervisor Directive: ") and d.endswith(". Please address this.") for d in directives)
    assert {d.split()[2] for d in directives} == {"web-1", "academic-1", "academic-2"}
    names = [m.name for m in messages if m.name != "Supervisor"]
    assert sorted(names[:3]) == ["academic-1", "academic-2", "web-1"]
    assert names[3:] == ["analyst", "writer"]
