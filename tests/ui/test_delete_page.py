"""History's "Delete permanently" deletes the run's checkpoints too."""

from __future__ import annotations

from research.api import ResearchRequest, ResearchRunner, RunStore
from tests.finished_run import make_settings


def test_history_delete_removes_the_checkpoints(make_app, data_dir, tmp_path) -> None:
    runner = ResearchRunner(make_settings(data_dir, tmp_path / "logs"))
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100"))
    at = make_app().run().switch_page("pages/history.py").run()
    at.session_state["history-table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    next(b for b in at.button if b.label == "Delete permanently").click().run()
    assert not at.exception
    assert RunStore(data_dir / "runs.sqlite").get_run(run_id) is None
    with runner.checkpointer() as saver:
        assert saver.get_tuple({"configurable": {"thread_id": run_id}}) is None
