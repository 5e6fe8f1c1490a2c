"""Plan review: the run pauses after the supervisor (LangGraph interrupt), the user edits the
questions and allocation, and the research continues with the edited plan, even in a new process."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from research.graph.nodes.plan_review import MAX_QUESTION_CHARS, PlanEditError, validate_plan_edit
from research.runs.runner import PlanReviewError, ResearchRunner
from research.runs.store import RunStore
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest
from tests.finished_run import TOPIC
from tests.helpers import run_cli

PAUSE_KEYS = {
    "allocation",
    "allocation_notation",
    "allocation_origin",
    "research_questions",
    "max_researchers",
    "max_questions",
    "max_question_chars",
}
EDITED = ["How do lipid nanoparticles deliver mRNA into cells?", "What did the phase 3 trials of mRNA vaccines show?"]


@pytest.mark.timeout(360)  # three CLI processes in a row: over 120 s with every core busy
def test_pause_edit_and_continue_across_a_process_restart(tmp_path: Path) -> None:
    first = run_cli([TOPIC, "--allocation", "110", "--review-plan", "--json"], tmp_path)
    assert first.returncode == 0, first.stderr
    paused = json.loads(first.stdout)
    run_id = paused["run_id"]
    assert paused["status"] == "paused" and paused["researchers"] == [] and paused["draft"] is None
    assert set(paused["plan_review"]) == PAUSE_KEYS
    assert paused["plan_review"]["allocation_notation"] == "110"

    store = RunStore(tmp_path / "data" / "runs.sqlite")
    assert store.get_run(run_id).status == "paused"
    assert store.events(run_id)[-1].type == "plan_review_requested"

    # A new process (the first has exited): edit the plan and continue from the checkpoint.
    second = run_cli(
        ["continue", run_id, "--question", EDITED[0], "--question", EDITED[1], "--allocation", "021", "--json"],
        tmp_path,
    )
    assert second.returncode == 0, second.stderr
    done = json.loads(second.stdout)
    assert done["status"] == "finished" and done["draft"] and done["plan_review"] is None
    assert done["allocation"] == {"web": 0, "academic": 2, "book": 1} and done["allocation_origin"] == "user"
    assert done["research_questions"] == EDITED
    # The researchers ran the edited plan: its kinds, its questions.
    assert sorted(r["id"] for r in done["researchers"] if r["iteration"] == 0) == ["academic-1", "academic-2", "book-1"]
    assert {r["question"] for r in done["researchers"] if r["iteration"] == 0} == set(EDITED)

    types = Counter(e.type for e in store.events(run_id))
    assert types["run_started"] == 1 and types["allocation_decided"] == 1  # the supervisor did not run again
    assert types["plan_review_requested"] == 1 and types["plan_approved"] == 1 and types["run_finished"] == 1
    approved = next(e for e in store.events(run_id) if e.type == "plan_approved")
    assert approved.data.edited is True and approved.data.research_questions == EDITED
    assert not any(e.type == "warning" and "Resumed" in e.data.message for e in store.events(run_id))
    record = store.get_run(run_id)
    assert (record.status, record.allocation, record.allocation_origin) == ("finished", "021", "user")

    # A finished run is not paused any more.
    again = run_cli(["continue", run_id], tmp_path)
    assert again.returncode == 2 and "not waiting for plan review (status: finished)" in again.stderr


def test_continue_without_edits_keeps_the_supervisors_plan(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="110", review_plan=True))
    planned = fold(runner.store.events(run_id)).research_questions
    runner.continue_plan(run_id)
    view = fold(runner.store.events(run_id))
    assert view.status == "finished" and view.research_questions == planned
    assert view.allocation_notation == "110" and view.allocation_origin == "user"
    approved = [e for e in runner.store.events(run_id) if e.type == "plan_approved"]
    assert len(approved) == 1 and approved[0].data.edited is False


def test_without_review_plan_the_run_does_not_pause(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="100"))
    types = {e.type for e in runner.store.events(run_id)}
    assert "plan_review_requested" not in types and "plan_approved" not in types
    assert runner.store.get_run(run_id).status == "finished"


def test_cancel_a_paused_run(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="110", review_plan=True))
    view = fold(runner.store.events(run_id))
    assert view.paused and not view.done and view.plan_review.research_questions

    seen = []
    runner.cancel_plan(run_id, on_event=seen.append)
    assert [e.type for e in seen] == ["run_cancelled"]
    assert runner.store.get_run(run_id).status == "cancelled"
    view = fold(runner.store.events(run_id))
    assert view.status == "cancelled" and view.done and view.plan_review is None and not view.researchers
    with pytest.raises(PlanReviewError, match="status: cancelled"):
        runner.continue_plan(run_id)
    with pytest.raises(PlanReviewError):
        runner.cancel_plan(run_id)
    with pytest.raises(KeyError):
        runner.cancel_plan("missing")


def test_a_bad_edit_is_refused_before_anything_runs(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="110", review_plan=True))
    before = runner.store.last_seq(run_id)
    for questions, allocation, message in [
        (["ok"], "400", "invalid allocation"),
        (["ok"], "000", "invalid allocation: Total must be 1-3"),
        (["  ", ""], None, "at least one research question"),
        ([f"q{i}" for i in range(6)], None, "at most 5 research questions, got 6"),
        (["x" * (MAX_QUESTION_CHARS + 1)], None, "question 1 is too long: 301 characters"),
    ]:
        with pytest.raises(PlanEditError, match=message):
            runner.continue_plan(run_id, questions, allocation)
    assert runner.store.get_run(run_id).status == "paused" and runner.store.last_seq(run_id) == before
    runner.continue_plan(run_id, ["  What is mRNA?  ", ""], "001")  # blank lines dropped, spaces tidied
    view = fold(runner.store.events(run_id))
    assert view.status == "finished" and view.research_questions == ["What is mRNA?"]
    assert [r.kind for r in view.researchers.values() if r.iteration == 0] == ["book"]


def test_validate_plan_edit_keeps_what_is_not_edited() -> None:
    assert validate_plan_edit(None, None, max_researchers=3) == (None, None)
    questions, allocation = validate_plan_edit(["a", "b"], "210", max_researchers=3)
    assert questions == ["a", "b"] and allocation.notation == "210"
    with pytest.raises(PlanEditError, match="Total must be 1-2"):
        validate_plan_edit(None, "210", max_researchers=2)
