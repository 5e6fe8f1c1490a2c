"""The run-control protocol: both managers implement it, the remote one over what it is given (no
runner of its own), and the checks both share live in one ledger."""

from __future__ import annotations

from pathlib import Path

import pytest

from research.api import RunControl, make_manager
from research.runs.ledger import PlanReviewError, RunLedger, RunNotResumableError
from research.runs.manager import RunManager
from research.runs.remote import RemoteRunManager
from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.sources.library.library_store import Library

TOPIC = "How do mRNA vaccines work?"


def _remote_settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path, server_url="http://127.0.0.1:9", llm="offline")


def test_both_managers_are_run_controls_with_the_same_store_library_and_router(runner: ResearchRunner) -> None:
    local: RunControl = RunManager(runner)
    assert local.store is runner.store and local.library is runner.library and local.sources is runner.sources
    assert local.orphan_message is None  # the default message: "stopped when the app that ran it did"
    assert isinstance(make_manager(runner.settings), RunManager)


def test_the_remote_manager_uses_what_it_is_given_and_builds_no_runner(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "given.sqlite")
    library = Library(tmp_path / "given-library.sqlite")
    remote: RunControl = RemoteRunManager(_remote_settings(tmp_path), store=store, library=library, client=object())
    assert remote.store is store and remote.library is library
    assert library.counts()  # the sample documents, as the in-process library has them
    assert not hasattr(remote, "runner")
    assert remote.orphan_message and "http://127.0.0.1:9" in remote.orphan_message


def test_runner_and_remote_manager_take_the_same_given_parts_and_refuse_a_misspelt_one(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "given.sqlite")
    runner = ResearchRunner(_remote_settings(tmp_path), store=store)
    assert runner.store is store
    with pytest.raises(TypeError, match="libary"):
        ResearchRunner(_remote_settings(tmp_path), libary=Library(tmp_path / "l.sqlite"))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="stor"):
        RemoteRunManager(_remote_settings(tmp_path), stor=store, client=object())  # type: ignore[call-arg]


def test_a_paused_runs_plan_is_cancelled_and_checked_by_one_ledger_for_both_managers(
    runner: ResearchRunner, tmp_path: Path
) -> None:
    local = RunManager(runner)
    run_id = local.start(ResearchRequest(topic=TOPIC, review_plan=True))
    assert local.wait(run_id, timeout=60) and runner.store.get_run(run_id).status == "paused"
    # The remote manager reads the same store (a replica): the same checks answer the same way.
    remote = RemoteRunManager(_remote_settings(tmp_path), store=runner.store, client=object())
    edit = remote.ledger.check_plan_edit(run_id, None, "010")
    assert edit.answer() == {"questions": None, "allocation": "010"}
    with pytest.raises(RunNotResumableError, match="waiting for plan review"):
        local.resume(run_id)
    remote.cancel_plan(run_id)
    assert runner.store.get_run(run_id).status == "cancelled"
    with pytest.raises(PlanReviewError):
        local.cancel_plan(run_id)
    with pytest.raises(RunNotResumableError, match="cancelled"):
        RunLedger(runner.settings, runner.store).resumable(run_id)


def test_resume_refuses_an_unknown_run_before_anything_runs(runner: ResearchRunner) -> None:
    with pytest.raises(KeyError):
        RunManager(runner).resume("no-such-run")
