"""Bundle fields a reader of the store relies on: a status outside the enum,
sequence numbers that are not 1..N, timestamps no calendar holds and unknown event types are refused
before anything is written; an import is one transaction (a SIGKILL mid-import leaves nothing); an
imported run is never resumed; extreme timestamps already stored do not break `runs` or BibTeX."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from research.events import Event
from research.runs.bundle import BundleError, export_bundle, import_bundle, read_bundle
from research.runs.runner import ResearchRunner, RunNotResumableError
from research.runs.store import RunStore
from research.runs.view import fold
from tests.finished_run import make_settings

ROOT = Path(__file__).resolve().parents[2]


def _document(finished) -> dict:
    runner, run_id = finished
    return json.loads(gzip.decompress(export_bundle(runner.store, run_id)))


def _with_events(document: dict, change) -> bytes:
    events = [dict(e) for e in document["events"]]
    change(events)
    return json.dumps({**document, "events": events}).encode()


def _refused(tmp_path: Path, data: bytes, message: str) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    with pytest.raises(BundleError, match=message):
        import_bundle(store, data)
    assert store.list_runs() == []  # nothing written, and every reader of the store still works
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM events").fetchone() == (0,)


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "RESEARCH_DATA_DIR": str(tmp_path / "data"),
        "RESEARCH_LOG_DIR": str(tmp_path / "logs"),
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "research", *args], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT
    )


def test_a_status_outside_the_enum_is_refused(finished, tmp_path: Path) -> None:
    document = _document(finished)
    data = json.dumps({**document, "run": {**document["run"], "status": "pwned"}}).encode()
    _refused(tmp_path, data, r"run\.status: 'pwned' is not a run status")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda ev: ev[0].update(seq=0), "not 1.."),
        (lambda ev: [e.update(seq=e["seq"] - 5) for e in ev], "not 1.."),
        (lambda ev: ev[-1].update(seq=2**63 - 1), "not 1.."),
        (lambda ev: ev[-1].update(seq=2**64), "integer overflow"),  # the decoder refuses it
        (lambda ev: ev[-1].update(seq=ev[-1]["seq"] + 1), "not 1.."),  # a gap
    ],
    ids=["zero", "negative", "last-2^63-1", "2^64", "gap"],
)
def test_sequence_numbers_must_run_1_to_n(finished, tmp_path: Path, change, message) -> None:
    _refused(tmp_path, _with_events(_document(finished), change), message)


@pytest.mark.parametrize("ts", [1e17, 1.7e308, -5.0])
def test_timestamps_outside_1970_2100_are_refused(finished, tmp_path: Path, ts: float) -> None:
    document = _document(finished)
    _refused(tmp_path, _with_events(document, lambda ev: ev[2].update(ts=ts)), r"events\.2\.ts: timestamp")
    run = {**document["run"], "finished_at": ts}
    _refused(tmp_path, json.dumps({**document, "run": run}).encode(), r"run\.finished_at: timestamp")
    drafts = [{**document["drafts"][0], "created_at": ts}]
    _refused(tmp_path, json.dumps({**document, "drafts": drafts}).encode(), r"drafts\.0\.created_at")


def test_non_finite_timestamps_in_plain_json_are_refused(finished, tmp_path: Path) -> None:
    text = json.dumps(_document(finished)).replace('"exported_at": ', '"exported_at": 1e999, "x": ', 1)
    with pytest.raises(BundleError):
        read_bundle(text.encode())


def test_an_unknown_event_type_is_refused_clearly(finished, tmp_path: Path) -> None:
    data = _with_events(_document(finished), lambda ev: ev[4].update(type="telemetry_uploaded"))
    _refused(tmp_path, data, r"events\.4\.type: 'telemetry_uploaded' is not an event type this version knows")


def test_an_event_type_that_is_not_a_string_is_refused_clearly(finished, tmp_path: Path) -> None:
    data = _with_events(_document(finished), lambda ev: ev[4].update(type=["run_started"]))
    _refused(tmp_path, data, r"events\.4\.type: .* is not an event type this version knows")


def test_an_imported_run_is_not_resumed(finished, tmp_path: Path) -> None:
    """A failed run would be resumable where it ran; imported, its checkpoints stayed there."""
    document = _document(finished)
    document["run"]["status"] = "failed"
    settings = make_settings(tmp_path / "data", tmp_path / "logs")
    runner = ResearchRunner(settings)
    run_id = import_bundle(runner.store, json.dumps(document).encode())
    before = len(runner.store.events(run_id))
    with pytest.raises(RunNotResumableError, match="imported from a bundle"):
        runner.resume(run_id)
    assert len(runner.store.events(run_id)) == before
    out = _cli(tmp_path, "resume", run_id)
    assert out.returncode == 2 and "imported from a bundle" in out.stderr, out.stderr[-2000:]


def _big_bundle(document: dict, count: int) -> bytes:
    """The finished run with `count` transcript messages before its end: a long import."""
    events = document["events"]
    head, tail = events[:-1], events[-1]
    filler = [
        {"type": "message", "run_id": tail["run_id"], "seq": 0, "ts": tail["ts"], "data": {"content": "x" * 200}}
        for _ in range(count)
    ]
    numbered = [{**e, "seq": i} for i, e in enumerate([*head, *filler, tail], 1)]
    return gzip.compress(json.dumps({**document, "events": numbered}).encode(), 1)


def test_sigkill_mid_import_leaves_nothing(finished, tmp_path: Path) -> None:
    """The import is one transaction: killed while it writes, the store holds no part of the run.
    The kill waits for the store's write-ahead log to grow (writing has begun), not for a clock."""
    path = tmp_path / "big.rdrun.json.gz"
    path.write_bytes(_big_bundle(_document(finished), 50_000))
    env = {
        "RESEARCH_DATA_DIR": str(tmp_path / "data"),
        "RESEARCH_LOG_DIR": str(tmp_path / "logs"),
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "research", "import-run", str(path)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wal = tmp_path / "data" / "runs.sqlite-wal"
    deadline = time.monotonic() + 240
    while child.poll() is None and time.monotonic() < deadline:
        if wal.exists() and wal.stat().st_size > 1024 * 1024:
            break
        time.sleep(0.005)
    assert child.poll() is None, f"the import ended before it could be killed: {child.communicate()}"
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=60)
    store = RunStore(tmp_path / "data" / "runs.sqlite")
    assert store.list_runs() == []
    with sqlite3.connect(tmp_path / "data" / "runs.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM events").fetchone() == (0,)
    # And it imports whole afterwards.
    out = _cli(tmp_path, "import-run", str(path))
    assert out.returncode == 0, out.stderr[-2000:]
    run_id = out.stdout.strip()
    assert len(store.events(run_id)) == 50_000 + len(_document(finished)["events"])


def _store_with_extreme_times(tmp_path: Path, finished, ts: float, run_ts: float) -> str:
    """A run already in a store (written before imports were checked) whose times are extreme."""
    runner, run_id = finished
    store = RunStore(tmp_path / "data" / "runs.sqlite")
    store.create_run(run_id, "extreme", None, "offline")
    for event in runner.store.events(run_id):
        store.append_event(event.model_copy(update={"ts": ts}))
    for draft in runner.store.draft_versions(run_id):
        store.save_draft_version(run_id, draft.markdown, note=draft.note)
    store.update_run(run_id, status="finished", finished_at=run_ts)
    with sqlite3.connect(tmp_path / "data" / "runs.sqlite") as db:
        db.execute("UPDATE runs SET created_at = ?", (run_ts,))
    return run_id


@pytest.mark.parametrize(("ts", "run_ts"), [(1e17, 1e17), (1.7e308, 1.7e308), (1e17, float("inf"))])
def test_runs_and_bibtex_survive_extreme_stored_timestamps(finished, tmp_path: Path, ts: float, run_ts: float) -> None:
    run_id = _store_with_extreme_times(tmp_path, finished, ts, run_ts)
    out = _cli(tmp_path, "runs", "--json")
    assert out.returncode == 0, out.stderr[-2000:]
    rows = json.loads(out.stdout, parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"))
    assert rows[0]["run_id"] == run_id
    table = _cli(tmp_path, "runs")
    assert table.returncode == 0 and run_id in table.stdout, table.stderr[-2000:]
    bib = _cli(tmp_path, "export", run_id, "--format", "bib", "--out", str(tmp_path / "out.bib"))
    assert bib.returncode == 0, bib.stderr[-2000:]
    assert "@" in (tmp_path / "out.bib").read_text()


def test_a_finished_bundle_still_imports_whole(finished, tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = import_bundle(store, export_bundle(finished[0].store, finished[1]))
    assert store.is_imported(run_id)
    assert fold(store.events(run_id)).done and store.get_run(run_id).status == "finished"
    assert [e.seq for e in store.events(run_id)] == list(range(1, len(store.events(run_id)) + 1))
    assert isinstance(store.events(run_id)[0], Event)
