"""A damaged store: a corrupt runs.sqlite or checkpoints.sqlite is one clear line
naming the file (CLI) or a message on the page (dashboard), never a traceback; a 0-byte runs.sqlite
is refused, not read as an empty store; one unreadable event keeps its run readable."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from research.events import Event
from research.runs.runner import ResearchRunner
from research.runs.sql import CorruptStoreError
from research.runs.store import RunStore
from research.runs.view import fold, to_json
from tests.finished_run import make_settings

ROOT = Path(__file__).resolve().parents[2]
GARBAGE = b"this is not a database " * 400


def _cli(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"RESEARCH_DATA_DIR": str(data), "RESEARCH_LOG_DIR": str(data.parent / "logs"), "PATH": "/usr/bin:/bin"}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "research", *args], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT
    )


@pytest.mark.parametrize("content", [GARBAGE, b""], ids=["garbage", "zero-bytes"])
def test_a_corrupt_or_empty_runs_sqlite_is_one_line_naming_it(tmp_path: Path, content: bytes) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "runs.sqlite").write_bytes(content)
    out = _cli(data, "runs")
    assert out.returncode == 1, out
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert str(data / "runs.sqlite") in out.stderr and "not a readable run store" in out.stderr
    assert (data / "runs.sqlite").read_bytes() == content  # left as it was, for the user to look at
    with pytest.raises(CorruptStoreError, match="runs.sqlite"):
        RunStore(data / "runs.sqlite")


def test_a_new_store_is_never_a_zero_byte_file(tmp_path: Path) -> None:
    RunStore(tmp_path / "runs.sqlite").close()
    assert (tmp_path / "runs.sqlite").stat().st_size > 0
    RunStore(tmp_path / "runs.sqlite").list_runs()  # and opens again
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".new")] == []


def test_a_damaged_store_found_mid_use_names_the_file(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    store.close()
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"runs.sqlite{suffix}").unlink(missing_ok=True)
    (tmp_path / "runs.sqlite").write_bytes(GARBAGE)
    with pytest.raises(CorruptStoreError, match=r"runs\.sqlite is not a readable run store"):
        store.list_runs()


def test_a_corrupt_checkpoints_sqlite_is_one_line_naming_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    runner = ResearchRunner(make_settings(data, tmp_path / "logs"))
    run_id = "abc123"
    runner.store.create_run(run_id, "How do heat pumps work?", None, "offline")
    (data / "checkpoints.sqlite").write_bytes(GARBAGE)
    out = _cli(data, "resume", run_id)
    assert out.returncode == 1, out
    assert "Traceback" not in out.stderr, out.stderr[-2000:]
    assert str(data / "checkpoints.sqlite") in out.stderr and "not a readable checkpoint store" in out.stderr


def test_one_event_of_an_unknown_type_keeps_its_run_readable(finished, tmp_path: Path) -> None:
    runner, run_id = finished
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_run(run_id, "copied", None, "offline")
    events = runner.store.events(run_id)
    for event in events:
        store.append_event(event)
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:  # as a newer version would have logged it
        body = json.dumps({"type": "hologram_rendered", "run_id": run_id, "seq": 3, "ts": 1.0, "data": {}})
        db.execute("UPDATE events SET type = 'hologram_rendered', body = ? WHERE seq = 3", (body,))
    read = store.events(run_id)
    assert len(read) == len(events)  # kept in place
    assert read[2].type == "warning" and "'hologram_rendered'" in read[2].data.message
    assert "unknown event type" in read[2].data.message
    view = fold(read)
    assert view.done and view.draft == fold(events).draft
    assert any("hologram_rendered" in w["message"] for w in to_json(view)["warnings"])
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:  # the row itself is untouched
        assert db.execute("SELECT type FROM events WHERE seq = 3").fetchone() == ("hologram_rendered",)
    assert isinstance(read[0], Event)


def test_a_stored_status_outside_the_enum_still_lists_and_deletes(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    store.create_run("good1", "fine", None, "offline")
    store.create_run("bad1", "pwned", None, "offline")
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        db.execute("UPDATE runs SET status = 'pwned' WHERE run_id = 'bad1'")
    assert {r.run_id: r.status for r in store.list_runs()} == {"good1": "running", "bad1": "failed"}
    store.delete_run("bad1")
    assert [r.run_id for r in store.list_runs()] == ["good1"]
