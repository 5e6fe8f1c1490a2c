"""One answer to "is this run live?" for every view: live, paused, ended or orphaned."""

from __future__ import annotations

import pytest

from research.events.status import TERMINAL_STATUSES, RunLiveness, RunStatus, display_status, liveness


@pytest.mark.parametrize(
    ("status", "running", "expected"),
    [
        ("running", True, RunLiveness.LIVE),
        ("running", False, RunLiveness.ORPHANED),
        ("pending", False, RunLiveness.ORPHANED),
        ("paused", False, RunLiveness.PAUSED),
        ("finished", False, RunLiveness.ENDED),
        ("failed", False, RunLiveness.ENDED),
        ("cancelled", False, RunLiveness.ENDED),
        ("interrupted", False, RunLiveness.ENDED),
    ],
)
def test_liveness(status: str, running: bool, expected: RunLiveness) -> None:
    assert liveness(status, running_somewhere=running) is expected


def test_an_orphaned_run_reads_interrupted_and_unknown_statuses_are_refused() -> None:
    assert display_status("running", running_somewhere=False) is RunStatus.INTERRUPTED
    assert display_status("running", running_somewhere=True) is RunStatus.RUNNING
    assert RunStatus.FINISHED.terminal and not RunStatus.PAUSED.terminal
    assert RunStatus.INTERRUPTED in TERMINAL_STATUSES
    with pytest.raises(ValueError):
        liveness("exploded", running_somewhere=False)


def test_the_manager_answers_from_the_store_and_its_threads(runner) -> None:
    from research.runs.manager import RunManager
    from research.schemas.state_shapes import ResearchRequest

    manager = RunManager(runner)
    run_id = runner.create(ResearchRequest(topic="How do mRNA vaccines work?"))
    assert manager.liveness(run_id) is RunLiveness.LIVE  # registered: its creator holds the run's lease
    assert manager.liveness("nope") is None
    runner.run(ResearchRequest(topic="How do mRNA vaccines work?"), run_id=run_id)
    record = runner.store.get_run(run_id)
    assert manager.liveness(run_id) is RunLiveness.ENDED and manager.display_status(record) is RunStatus.FINISHED
