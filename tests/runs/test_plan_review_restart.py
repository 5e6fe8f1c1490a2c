"""Plan review survives a restart: `run_started` records that the run pauses for review, and a run
that stopped before its first checkpoint (so it starts again from its input) still pauses."""

from __future__ import annotations

from pathlib import Path

from research.events import EventAdapter
from research.events.payloads import RunStarted
from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest
from tests.helpers import killed_child_run, run_cli
from tests.runs.interrupted_run import KILLED

TOPIC = "How do mRNA vaccines work?"


def test_run_started_records_plan_review(runner: ResearchRunner) -> None:
    reviewed = runner.run(ResearchRequest(topic=TOPIC, allocation="110", review_plan=True))
    plain = runner.run(ResearchRequest(topic=TOPIC, allocation="100", max_iterations=0))

    started = {run_id: runner.store.events(run_id)[0].data for run_id in (reviewed, plain)}
    assert isinstance(started[reviewed], RunStarted) and started[reviewed].review_plan is True
    assert isinstance(started[plain], RunStarted) and started[plain].review_plan is False


def test_a_run_restarted_from_its_input_keeps_plan_review(runner: ResearchRunner) -> None:
    """The restart path itself: a logged run_started and no checkpoint (as a kill right after the
    begin node's event leaves it, when its checkpoint had not landed)."""
    request = ResearchRequest(topic=TOPIC, allocation="110", review_plan=True)
    run_id = runner.create(request)
    runner.store.append_event(
        EventAdapter(run_id).make(RunStarted(topic=TOPIC, brain="offline", source_mode="library", review_plan=True))
    )

    runner.resume(run_id)

    events = runner.store.events(run_id)
    assert [e.type for e in events].count("run_started") == 1
    assert "plan_review_requested" in [e.type for e in events]
    assert not [e for e in events if e.type in ("researcher_started", "run_finished")]  # it waits for the user
    assert fold(events).paused and runner.store.get_run(run_id).status == "paused"


def test_a_review_plan_run_killed_before_its_first_checkpoint_restarts_with_review(tmp_path: Path) -> None:
    run_id = killed_child_run(tmp_path, "tests.runs.interrupted_review_run", killed=KILLED)
    store = RunStore(tmp_path / "data" / "runs.sqlite")
    assert [e.type for e in store.events(run_id)] == ["run_started"]

    result = run_cli(["resume", run_id], tmp_path)

    assert result.returncode == 0, result.stderr
    types = [e.type for e in store.events(run_id)]
    assert types.count("run_started") == 1 and "plan_review_requested" in types
    assert "run_finished" not in types and store.get_run(run_id).status == "paused"
