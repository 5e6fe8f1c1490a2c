"""One runner per run across processes, reproducing the report's attack: the CLI
runs a run on the data dir while the dashboard's run manager looks at it. Before the lease, the
manager called it orphaned ("This run stopped when the app that ran it did"), Resume ran it in both
processes (two `run_finished`, two drafts), and the CLI's events overwrote the dashboard's."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from research.events import EventAdapter
from research.events.payloads import Warning
from research.runs.lease import RunBusyError, live_lease
from research.runs.manager import RunManager
from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.settings import Settings
from tests.helpers import PYTHON, cli_env, run_cli, start_cli

TOPIC = "How do mRNA vaccines work?"


def _settings(tmp_path: Path, log_dir: Path, **extra) -> Settings:
    return Settings(
        _env_file=None, data_dir=tmp_path / "data", log_dir=log_dir, sources="library", llm="offline", **extra
    )


def _wait_for_run(store_path: Path, min_events: int, timeout: float = 180) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if store_path.exists():
            runs = RunStore(store_path).list_runs()
            if runs and len(RunStore(store_path).events(runs[0].run_id)) >= min_events:
                return runs[0].run_id
        time.sleep(0.1)
    raise AssertionError("the CLI's run did not start")


def test_a_cli_run_is_live_to_the_dashboard_and_cannot_be_resumed_twice(tmp_path: Path, session_log_dir: Path) -> None:
    gate = tmp_path / "let-the-run-finish"
    cli = subprocess.Popen(  # the CLI, held in its analyst until the gate opens: alive however slow a second CLI starts
        [PYTHON, "-m", "tests.runs.gated_cli", str(gate), TOPIC, "--allocation", "110", "--max-iterations", "0"]
        + ["--json", "--quiet"],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        run_id = _wait_for_run(tmp_path / "data" / "runs.sqlite", min_events=3)
        manager = RunManager(ResearchRunner(_settings(tmp_path, session_log_dir)))

        assert manager.is_live(run_id) and not manager.is_active(run_id)  # live, in another process
        assert not manager.is_orphaned(run_id)  # so no "stopped when the app that ran it did"
        with pytest.raises(RunBusyError, match="being run by another process"):
            manager.resume(run_id)
        with pytest.raises(RunBusyError):
            manager.runner.resume(run_id)
        busy = run_cli(["resume", run_id], tmp_path, timeout=300)  # a second CLI is refused too
        assert busy.returncode == 2 and "being run by another process" in busy.stderr

        gate.touch()
        out, err = cli.communicate(timeout=300)
        assert cli.returncode == 0, err
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()
    store = manager.store
    events = store.events(run_id)
    types = Counter(e.type for e in events)
    assert types["run_finished"] == 1 and types["run_started"] == 1
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert [d.note for d in store.draft_versions(run_id)].count("Writer's draft") == 1
    assert not manager.is_live(run_id) and store.get_lease(run_id) is None
    assert not manager.is_orphaned(run_id)  # finished


def test_a_killed_cli_run_is_orphaned_at_once_and_resumes_here(tmp_path: Path, session_log_dir: Path) -> None:
    hold = tmp_path / "hold"  # the CLI's searches wait on it: killed mid-run however slow the machine
    hold.touch()
    cli = start_cli([TOPIC, "--allocation", "110", "--max-iterations", "0", "--quiet"], tmp_path, hold=hold)
    run_id = _wait_for_run(tmp_path / "data" / "runs.sqlite", min_events=3)
    os.kill(cli.pid, signal.SIGKILL)
    cli.wait()
    hold.unlink()
    manager = RunManager(ResearchRunner(_settings(tmp_path, session_log_dir)))
    assert manager.store.get_lease(run_id) is not None  # left behind by the killed process...
    assert manager.is_orphaned(run_id)  # ...but its owner, a process of this host, is gone

    manager.resume(run_id)
    assert manager.wait(run_id, timeout=120)
    types = Counter(e.type for e in manager.store.events(run_id))
    assert types["run_finished"] == 1 and manager.store.get_run(run_id).status == "finished"


def test_a_lease_held_on_another_host_counts_until_it_expires(tmp_path: Path, session_log_dir: Path) -> None:
    manager = RunManager(ResearchRunner(_settings(tmp_path, session_log_dir)))
    store = manager.store
    store.create_run("r1", TOPIC, None, "offline")
    assert store.acquire_lease("r1", "another-host:4242:abcd", 1.0)
    assert manager.is_live("r1") and not manager.is_orphaned("r1")
    with pytest.raises(RunBusyError, match=r"another-host:4242"):
        manager.resume("r1")
    time.sleep(1.1)
    assert live_lease(store, "r1") is None and manager.is_orphaned("r1")  # its heartbeat stopped


def test_a_runner_whose_lease_was_taken_over_stops_writing(tmp_path: Path, session_log_dir: Path) -> None:
    settings = _settings(tmp_path, session_log_dir, run_lease_seconds=1.0, demo_delay=0.3)
    runner = ResearchRunner(settings)
    from research.schemas.state_shapes import ResearchRequest

    run_id = runner.create(ResearchRequest(topic=TOPIC, allocation="110", max_iterations=0))
    manager = RunManager(runner)
    manager._spawn(
        run_id, lambda: runner.run(ResearchRequest(topic=TOPIC, allocation="110", max_iterations=0), run_id=run_id)
    )
    deadline = time.monotonic() + 30
    while len(runner.store.events(run_id)) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    # Another process steals the run (as one would after a lapsed lease) and writes its own event.
    other = RunStore(settings.runs_db)
    other.release_lease(run_id, runner.owner)
    assert other.acquire_lease(run_id, "thief-host:1:x", 60)
    thief = EventAdapter(run_id, start_seq=other.last_seq(run_id) + 1000)
    other.append_event(thief.make(Warning(source="runner", message="the new owner's event")))
    assert manager.wait(run_id, timeout=60)
    events = runner.store.events(run_id)
    assert getattr(events[-1].data, "message", None) == "the new owner's event"  # nothing written after it
    assert "run_finished" not in {e.type for e in events} and other.get_lease(run_id).owner == "thief-host:1:x"


def test_continue_of_a_paused_run_another_process_took_is_refused_before_anything_runs(
    tmp_path: Path, session_log_dir: Path
) -> None:
    from research.schemas.state_shapes import ResearchRequest

    manager = RunManager(ResearchRunner(_settings(tmp_path, session_log_dir)))
    run_id = manager.runner.run(ResearchRequest(topic=TOPIC, allocation="110", max_iterations=0, review_plan=True))
    store = manager.store
    assert store.get_run(run_id).status == "paused" and store.get_lease(run_id) is None  # released at the pause
    before = store.events(run_id)
    assert store.acquire_lease(run_id, "replica-b:77:x", 30)  # replica B pressed Continue first

    with pytest.raises(RunBusyError):
        manager.continue_plan(run_id)
    assert not manager.is_active(run_id) and store.events(run_id) == before
    store.release_lease(run_id, "replica-b:77:x")
    manager.continue_plan(run_id)
    assert manager.wait(run_id, timeout=60) and store.get_run(run_id).status == "finished"


def test_the_heartbeat_keeps_a_long_run_leased_past_the_lease_length(tmp_path: Path, session_log_dir: Path) -> None:
    from research.schemas.state_shapes import ResearchRequest

    settings = _settings(tmp_path, session_log_dir, run_lease_seconds=1.0, demo_delay=5.0)
    manager = RunManager(ResearchRunner(settings))
    run_id = manager.start(
        ResearchRequest(topic="How did the printing press change Europe?", allocation="110", max_iterations=0)
    )
    # (a topic no other test here used: the process-wide search cache would skip the demo delay)
    observer = RunManager(ResearchRunner(settings))  # another process's view of the same store
    time.sleep(2.5)  # well past one lease length
    lease = observer.store.get_lease(run_id)
    assert manager.is_active(run_id), "the run should still be going (demo delay)"
    assert lease and lease.owner == manager.runner.owner and lease.expires_at > time.time()
    assert observer.is_live(run_id) and not observer.is_orphaned(run_id)
    assert manager.wait(run_id, timeout=60)
    assert manager.store.get_run(run_id).status == "finished" and manager.store.get_lease(run_id) is None
