"""Resume from any point: a run killed before its first checkpoint starts again;
a finished run is refused instead of getting a second `run_finished`."""

from __future__ import annotations

from pathlib import Path

import pytest

from research.runs.runner import ResearchRunner, RunNotResumableError
from research.runs.store import RunStore
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.helpers import run_cli
from tests.runs.test_resume import assert_complete_log, interrupt


def test_killed_right_after_run_started_a_run_resumes_by_starting_again(tmp_path: Path) -> None:
    run_id = interrupt(tmp_path, "started")
    store = RunStore(tmp_path / "data" / "runs.sqlite")
    assert [e.type for e in store.events(run_id)] == ["run_started"]  # and no checkpoint yet

    result = run_cli(["resume", run_id], tmp_path)

    assert result.returncode == 0, result.stderr  # was: EmptyInputError: Received no input for __start__
    assert store.get_run(run_id).status == "finished"
    events = assert_complete_log(store, run_id)  # one run_started: not logged again
    # run_started comes from the graph's begin node, whose own checkpoint may land before the kill:
    # the run then resumes from it; otherwise it restarts. Either way it says which, and logs one start.
    said = [e.data.message for e in events if e.type == "warning" and e.data.source == "runner"]
    assert any(m.startswith(("Restarted from the beginning", "Resumed from the last checkpoint")) for m in said), said
    assert store.get_lease(run_id) is None  # released when the run ended


def test_killed_before_any_event_a_run_resumes_and_logs_its_start(tmp_path: Path) -> None:
    run_id = interrupt(tmp_path, "created")
    store = RunStore(tmp_path / "data" / "runs.sqlite")
    assert store.get_run(run_id).status == "running" and store.events(run_id) == []

    result = run_cli(["resume", run_id], tmp_path)

    assert result.returncode == 0, result.stderr
    events = assert_complete_log(store, run_id)
    assert events[0].type == "run_started" and events[0].data.topic == "How do mRNA vaccines work?"


def test_resume_of_a_finished_run_is_refused_and_writes_nothing(tmp_path: Path, session_log_dir: Path) -> None:
    settings = Settings(
        _env_file=None, data_dir=tmp_path / "data", log_dir=session_log_dir, sources="library", llm="offline"
    )
    runner = ResearchRunner(settings)
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100", max_iterations=0))
    before = runner.store.events(run_id)

    with pytest.raises(RunNotResumableError, match="it has finished"):
        runner.resume(run_id)
    result = run_cli(["resume", run_id], tmp_path)

    assert result.returncode == 2
    assert result.stderr.strip() == f"error: Run {run_id} cannot be resumed: it has finished."
    after = runner.store.events(run_id)
    assert after == before and [e.type for e in after].count("run_finished") == 1
    assert runner.store.get_run(run_id).status == "finished"
