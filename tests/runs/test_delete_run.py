"""Delete permanently: the run's checkpoints, stored page texts, events and drafts
are gone, and no byte of its topic or draft is left readable in the SQLite files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from research.runs.purge import delete_run_everywhere
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from tests.finished_run import make_settings

TOPIC = "Quetzalcoatlus wingspan estimates in pterosaur research"


def _files(data: Path) -> bytes:
    return b"".join(
        p.read_bytes() for p in sorted(data.glob("*.sqlite*")) if p.name.startswith(("runs", "checkpoints"))
    )


def test_delete_removes_checkpoints_texts_and_every_trace_in_the_files(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data", tmp_path / "logs")
    runner = ResearchRunner(settings)
    keep = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100"))
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="100"))
    draft = runner.store.latest_draft(run_id)
    assert draft is not None
    line = next(x for x in draft.markdown.splitlines() if len(x) > 60 and "Quetzalcoatlus" not in x)
    with runner.checkpointer() as saver:
        assert saver.get_tuple({"configurable": {"thread_id": run_id}}) is not None
    assert TOPIC.encode() in _files(settings.data_dir)

    delete_run_everywhere(runner.store, settings, run_id)

    assert runner.store.get_run(run_id) is None and runner.store.events(run_id) == []
    with sqlite3.connect(settings.runs_db) as db:
        assert db.execute("SELECT COUNT(*) FROM source_texts WHERE run_id = ?", (run_id,)).fetchone() == (0,)
    with runner.checkpointer() as saver:
        assert saver.get_tuple({"configurable": {"thread_id": run_id}}) is None
        assert saver.get_tuple({"configurable": {"thread_id": keep}}) is not None  # only that run
    files = _files(settings.data_dir)
    assert TOPIC.encode() not in files and b"Quetzalcoatlus" not in files
    assert line.encode() not in files or line in runner.store.latest_draft(keep).markdown
    assert runner.store.get_run(keep) is not None


def test_the_log_names_the_run_by_its_id_not_its_topic(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data", tmp_path / "logs2")
    run_id = ResearchRunner(settings).run(ResearchRequest(topic=TOPIC, allocation="100"))
    log = (tmp_path / "logs2" / "multiagent.log").read_text(encoding="utf-8")
    assert f"run={run_id}" in log
    assert TOPIC.lower() not in log.lower() and "<topic>" in log
