"""The run manager: runs off the caller's thread, plan review continued in the background."""

from __future__ import annotations

import pytest

from research.graph.nodes.plan_review import PlanEditError
from research.runs.manager import RunManager
from research.schemas.state_shapes import ResearchRequest


def _wait_for_status(manager: RunManager, run_id: str, status: str) -> None:
    assert manager.wait(run_id, timeout=60), "the run did not stop in time"
    assert manager.store.get_run(run_id).status == status


def test_start_returns_at_once_and_the_run_finishes_in_the_background(runner):
    manager = RunManager(runner)
    run_id = manager.start(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))
    _wait_for_status(manager, run_id, "finished")
    assert not manager.is_active(run_id)
    assert manager.store.latest_draft(run_id) is not None


def test_a_bad_plan_edit_is_refused_before_anything_runs_and_a_good_one_continues(runner):
    manager = RunManager(runner)
    run_id = manager.start(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111", review_plan=True))
    _wait_for_status(manager, run_id, "paused")

    with pytest.raises(PlanEditError):
        manager.continue_plan(run_id, allocation="900")
    assert manager.store.get_run(run_id).status == "paused"  # nothing lost, still waiting

    manager.continue_plan(run_id, questions=["How do lipid nanoparticles deliver mRNA?"], allocation="010")
    _wait_for_status(manager, run_id, "finished")
    researchers = [e for e in manager.store.events(run_id) if e.type == "researcher_started"]
    assert [e.researcher_id for e in researchers if not e.iteration] == ["academic-1"]
    assert researchers[0].data.question == "How do lipid nanoparticles deliver mRNA?"


def test_cancel_marks_a_paused_run_cancelled(runner):
    manager = RunManager(runner)
    run_id = manager.start(ResearchRequest(topic="How do mRNA vaccines work?", review_plan=True))
    _wait_for_status(manager, run_id, "paused")
    manager.cancel_plan(run_id)
    assert manager.store.get_run(run_id).status == "cancelled"
