"""Why research stopped: the loop guard, the iteration cap and the budget each say so in the
agent log, as a warning event and as the run's `stop_reason` (a real offline run)."""

from __future__ import annotations

import itertools

import pytest

import research.runs.runner
from research.brains.base import BudgetExceeded, JudgeRequest
from research.brains.offline.offline_brain import OfflineBrain
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas.llm_shapes import AnalystVerdict
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.helpers import events_of

TOPIC = "How do mRNA vaccines work?"


class NeverSatisfied(OfflineBrain):
    """Always NEEDS_IMPROVEMENT; the same gap every time, or a new one each round."""

    def __init__(self, *, same_gaps: bool, budget_at: int | None = None) -> None:
        self.same_gaps, self.budget_at, self.rounds = same_gaps, budget_at, itertools.count(1)

    def judge(self, request: JudgeRequest) -> AnalystVerdict:
        n = next(self.rounds)
        if self.budget_at == n:
            raise BudgetExceeded("the run's budget of 3 calls is spent")
        gap = "long-term safety" if self.same_gaps else f"gap {n}"
        return AnalystVerdict(
            status="NEEDS_IMPROVEMENT",
            critique=["thin"],
            missing_topics=[gap],
            recommended_queries=[f"mRNA vaccines {gap}"],
        )


def run(settings: Settings, monkeypatch: pytest.MonkeyPatch, brain, **request) -> tuple[ResearchRunner, str]:
    monkeypatch.setattr(research.runs.runner, "make_brain", lambda *args, **kwargs: brain)
    runner = ResearchRunner(settings)
    return runner, runner.run(ResearchRequest(topic=TOPIC, allocation="100", **request))


def stopped(runner: ResearchRunner, run_id: str) -> tuple[dict, list[str], dict]:
    [event] = events_of(runner, run_id, "research_stopped")
    warnings = [e.data.message for e in events_of(runner, run_id, "warning") if e.data.source == "research"]
    return (
        {**event.data.model_dump(), "iteration": event.iteration},
        warnings,
        to_json(fold(runner.store.events(run_id))),
    )


def log_text(settings: Settings) -> str:
    return (settings.log_dir / "multiagent.log").read_text(encoding="utf-8")


def test_the_iteration_cap_says_why_research_stopped(settings, monkeypatch) -> None:
    runner, run_id = run(settings, monkeypatch, NeverSatisfied(same_gaps=False), max_iterations=1)

    data, warnings, result = stopped(runner, run_id)
    assert data["reason"] == "iteration_cap" and result["stop_reason"] == "iteration_cap"
    assert warnings == [data["message"]]
    assert "iteration cap (1 follow-up round(s))" in data["message"] and data["message"].endswith("Gaps left: gap 2.")
    assert data["message"] in log_text(settings)


def test_the_loop_guard_on_repeated_gaps_says_so(settings, monkeypatch) -> None:
    runner, run_id = run(settings, monkeypatch, NeverSatisfied(same_gaps=True), max_iterations=4)

    data, warnings, result = stopped(runner, run_id)
    assert (data["reason"], result["stop_reason"], data["iteration"]) == ("loop_guard", "loop_guard", 1)
    assert "loop guard: a follow-up round reported the same gaps" in data["message"]
    assert warnings == [data["message"]] and data["message"] in log_text(settings)


def test_the_loop_guard_on_consecutive_rounds_names_the_setting(settings, monkeypatch) -> None:
    tight = settings.model_copy(update={"max_consecutive_same": 2})
    runner, run_id = run(tight, monkeypatch, NeverSatisfied(same_gaps=False), max_iterations=5)

    data, _warnings, _result = stopped(runner, run_id)
    assert data["reason"] == "loop_guard"
    assert "2 follow-up rounds in a row (RESEARCH_MAX_CONSECUTIVE_SAME=2)" in data["message"]


def test_the_budget_says_research_stopped(settings, monkeypatch) -> None:
    runner, run_id = run(settings, monkeypatch, NeverSatisfied(same_gaps=False, budget_at=1), max_iterations=3)

    data, warnings, result = stopped(runner, run_id)
    assert data["reason"] == "budget" and result["stop_reason"] == "budget"
    assert "model budget was reached" in warnings[0]


class Satisfied(OfflineBrain):
    def judge(self, request: JudgeRequest) -> AnalystVerdict:
        return AnalystVerdict(status="APPROVED")


def test_an_approved_run_stops_without_a_warning(settings, monkeypatch) -> None:
    runner, run_id = run(settings, monkeypatch, Satisfied(), max_iterations=2)

    data, warnings, result = stopped(runner, run_id)
    assert (data["reason"], result["stop_reason"], warnings) == ("approved", "approved", [])
