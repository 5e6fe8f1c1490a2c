"""Researchers with the longest chains of requests start first, going by how long each kind's
retrieves have been taking; with nothing observed, the plan's order stands."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from research.graph.nodes.supervisor import build_tasks, researcher_sends
from research.runs.runner import ResearchRunner
from research.schemas.researchers import ResearcherAllocation
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.sources.retrieve_timings import SMOOTHING, RetrieveTimings
from tests.helpers import SlowRouter, events_of


class KnownTimesRouter(SlowRouter):
    """A SlowRouter that reports fixed typical retrieve times per kind."""

    def __init__(self, seconds: dict[str, float]) -> None:
        super().__init__(delay=0.01)
        self.seconds = seconds

    def expected_seconds(self, kind: str) -> float | None:
        return self.seconds.get(kind)


def _order(expected: dict[str, float], allocation: ResearcherAllocation) -> list[str]:
    tasks = build_tasks("Heat pumps", allocation, ["How do heat pumps work?"], iteration=0)
    ctx = SimpleNamespace(sources=SimpleNamespace(expected_seconds=expected.get))
    return [send.arg["task"].researcher_id for send in researcher_sends(tasks, ctx)]  # type: ignore[arg-type]


def test_the_slowest_kind_is_sent_first_and_ties_keep_the_plan_order() -> None:
    allocation = ResearcherAllocation(web=2, academic=1, book=2)
    assert _order({"book": 0.9, "academic": 0.4, "web": 0.4}, allocation) == [
        "book-1",
        "book-2",
        "web-1",
        "web-2",
        "academic-1",
    ]


def test_without_observations_the_plan_order_stands() -> None:
    allocation = ResearcherAllocation(web=1, academic=1, book=1)
    assert _order({}, allocation) == ["web-1", "academic-1", "book-1"]


def test_a_run_starts_its_researchers_slowest_kind_first(settings: Settings) -> None:
    # One researcher at a time (max_concurrency=1), so the start order is the dispatch order.
    router = KnownTimesRouter({"book": 2.0, "academic": 1.0, "web": 0.1})
    runner = ResearchRunner(settings.model_copy(update={"max_concurrency": 1}), sources=router)
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="111", max_iterations=0))
    started = [e.researcher_id for e in events_of(runner, run_id, "researcher_started")]
    assert started == ["book-1", "academic-1", "web-1"]


def test_retrieve_timings_follow_recent_retrieves() -> None:
    timings = RetrieveTimings()
    assert timings.expected("book") is None
    timings.record("book", 1.0)
    assert timings.expected("book") == 1.0
    timings.record("book", 2.0)
    assert timings.expected("book") == pytest.approx(1.0 + SMOOTHING * 1.0)
    assert timings.expected("web") is None
