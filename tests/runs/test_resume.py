"""Resume after interruption: a process killed mid-run, then `python -m research resume RUN_ID`
finishes the run from its last checkpoint without redoing finished work."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.settings import Settings
from tests.helpers import killed_child_run, run_cli
from tests.runs.interrupted_run import KILLED


def interrupt(tmp_path: Path, where: str) -> str:
    return killed_child_run(tmp_path, "tests.runs.interrupted_run", where, killed=KILLED)


def counts(store: RunStore, run_id: str, type_: str) -> Counter:
    return Counter(e.researcher_id for e in store.events(run_id) if e.type == type_)


def assert_complete_log(store: RunStore, run_id: str) -> list:
    events = store.events(run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    types = [e.type for e in events]
    assert types.count("run_started") == 1
    assert types.count("allocation_decided") == 1  # the supervisor did not run again
    assert types[-1] == "run_finished" and "run_failed" not in types
    assert "critique_issued" in types and "draft_ready" in types
    return events


def test_resume_after_a_kill_in_the_analyst(tmp_path: Path) -> None:
    run_id = interrupt(tmp_path, "analyst")
    store = RunStore(tmp_path / "data" / "runs.sqlite")
    before = store.events(run_id)
    assert store.get_run(run_id).status == "running"  # killed: nobody recorded an end
    assert {e.researcher_id for e in before if e.type == "researcher_finished"} == {"web-1", "academic-1"}
    assert not [e for e in before if e.type in ("critique_issued", "draft_ready", "run_finished")]

    result = run_cli(["resume", run_id, "--json"], tmp_path)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["run_id"] == run_id and out["status"] == "finished"
    assert out["draft"] and out["critiques"]

    assert store.get_run(run_id).status == "finished"
    events = assert_complete_log(store, run_id)
    # The researchers of round 0 finished before the kill: they were not started again.
    started = counts(store, run_id, "researcher_started")
    assert started["web-1"] == 1 and started["academic-1"] == 1
    assert any(e.type == "warning" and "Resumed" in e.data.message for e in events)
    # Their closing messages are in the transcript once, not replayed on resume.
    names = Counter(e.data.name for e in events if e.type == "message")
    assert names["web-1"] == 1 and names["academic-1"] == 1, names
    assert [v.note for v in store.draft_versions(run_id)] == ["Writer's draft"]


def test_resume_after_a_kill_mid_research_reruns_only_the_unfinished_researcher(
    tmp_path: Path, session_log_dir: Path
) -> None:
    run_id = interrupt(tmp_path, "academic-retrieve")
    settings = Settings(
        _env_file=None, data_dir=tmp_path / "data", log_dir=session_log_dir, sources="library", llm="offline"
    )
    runner = ResearchRunner(settings)
    before = counts(runner.store, run_id, "researcher_finished")
    assert before == Counter({"web-1": 1})

    runner.resume(run_id)

    assert runner.store.get_run(run_id).status == "finished"
    assert_complete_log(runner.store, run_id)
    assert counts(runner.store, run_id, "researcher_started")["web-1"] == 1  # not redone
    finished = counts(runner.store, run_id, "researcher_finished")
    assert finished["web-1"] == 1 and finished["academic-1"] == 1
    # LangGraph replays web-1's saved writes on resume; its message must not enter the log twice.
    names = Counter(e.data.name for e in runner.store.events(run_id) if e.type == "message")
    assert names["web-1"] == 1 and names["academic-1"] == 1, names


def test_resume_of_an_unknown_run_is_bad_input(tmp_path: Path) -> None:
    result = run_cli(["resume", "nosuchrun"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "nosuchrun" in result.stderr
