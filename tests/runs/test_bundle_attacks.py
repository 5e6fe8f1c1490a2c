"""Hostile run bundles: each attack is built here, small on disk, and is
refused with a clear error before anything is written; nothing about it reaches the readers."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from research.runs.bundle import BundleError, export_bundle, import_bundle, read_bundle
from research.runs.bundle_decode import MAX_VALUES, decode_bundle_json
from research.runs.store import RunStore
from research.runs.view import fold, to_json


def _document(finished) -> dict:
    runner, run_id = finished
    return json.loads(gzip.decompress(export_bundle(runner.store, run_id)))


def _object_bomb(count: int) -> bytes:
    return gzip.compress(b'{"format":"research-desk-run","junk":[' + b"{}," * count + b"{}]}", 9)


def test_a_175_kb_object_bomb_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    """60 million empty objects in ~175 KB of gzip: json.loads took gigabytes. Run in a child so its
    peak RSS is its own; the address-space limit turns a regression into a failure, not a dead box."""
    bomb = _object_bomb(60_000_000)
    assert len(bomb) < 200 * 1024
    path = tmp_path / "bomb.rdrun.json.gz"
    path.write_bytes(bomb)
    code = (
        "import resource, sys\n"
        # ru_maxrss carries over the forking parent's RSS (a long pytest session): reset the
        # peak (Linux clear_refs 5) and read VmHWM, so the figure is the child's own.
        "open('/proc/self/clear_refs', 'w').write('5')\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))\n"
        "from research.runs.bundle import BundleError, read_bundle\n"
        "try:\n"
        f"    read_bundle(open({str(path)!r}, 'rb').read())\n"
        "except BundleError as exc:\n"
        "    print('REFUSED', exc)\n"
        "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM'))\n"
        "print('RSS_MB', int(hwm.split()[1]) // 1024)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert f"REFUSED not a Research Desk run bundle: more than {MAX_VALUES:,} JSON values" in out.stdout
    rss = int(out.stdout.split("RSS_MB")[1])
    assert rss < 400, f"peak RSS {rss} MB refusing a 175 KB bundle"


def test_the_cli_refuses_the_object_bomb_with_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "bomb.rdrun.json.gz"
    path.write_bytes(_object_bomb(3_000_000))
    out = subprocess.run(
        [sys.executable, "-m", "research", "import-run", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "RESEARCH_DATA_DIR": str(tmp_path / "data"),
            "RESEARCH_LOG_DIR": str(tmp_path / "logs"),
            "PATH": "/usr/bin:/bin",
        },
    )
    assert out.returncode == 2, out.stderr[-2000:]
    assert "JSON values" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"[" * 200 + b"]" * 200, "nested deeper than 64"),
        (b'"' + b"a" * (21 * 1024 * 1024) + b'"', "a string longer than 20 MB"),
        (b'{"a": 1} {"b": 2}', "neither gzip nor JSON"),
        (b"\xff\xfe{}", "neither gzip nor JSON"),
        (b"", "neither gzip nor JSON"),
    ],
)
def test_the_decoder_names_the_limit_or_fault(payload: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_bundle_json(payload)


def test_the_decoder_reads_what_json_reads() -> None:
    document = {"a": [1, 2.5, "x", {"b": None, "c": True, "d": []}], "é": {"k": -3e10}}
    assert decode_bundle_json(gzip.compress(json.dumps(document).encode())) == document


def test_a_string_version_is_refused(finished, tmp_path: Path) -> None:
    document = {**_document(finished), "version": "99"}
    with pytest.raises(BundleError, match="version must be a whole number"):
        read_bundle(json.dumps(document).encode())


def test_too_many_events_are_refused(finished, monkeypatch: pytest.MonkeyPatch) -> None:
    import research.runs.bundle as bundle_module

    document = _document(finished)
    monkeypatch.setattr(bundle_module, "MAX_BUNDLE_EVENTS", len(document["events"]) - 1)
    with pytest.raises(BundleError, match="events"):
        read_bundle(json.dumps(document).encode())


def _with_event_data(document: dict, event_type: str, **data) -> dict:
    events = [dict(e) for e in document["events"]]
    index = next(i for i, e in enumerate(events) if e["type"] == event_type)
    events[index] = {**events[index], "data": {**events[index]["data"], **data}}
    return {**document, "events": events}


@pytest.mark.parametrize(
    ("event_type", "data", "where"),
    [
        ("run_started", {"topic": ["not", "text"]}, "run_started).data.topic"),
        ("sources_found", {"sources": "a string"}, "sources_found).data.sources"),
        ("sources_found", {"sources": [{"id": "x"}]}, "sources_found).data.sources.0.title"),
        ("draft_ready", {"citations": {"1": 5}}, "draft_ready).data.citations.1"),
        ("draft_ready", {"markdown": 17}, "draft_ready).data.markdown"),
        ("critique_issued", {"missing_topics": "x"}, "critique_issued).data.missing_topics"),
        ("allocation_decided", {"allocation": {"web": "1"}}, "allocation_decided).data.allocation.web"),
        ("researcher_finished", {"seconds": "slow"}, "researcher_finished).data.seconds"),
        ("message", {"content": None}, "message).data.content"),
    ],
)
def test_wrong_typed_event_data_is_refused_and_nothing_is_written(
    finished, tmp_path: Path, event_type: str, data: dict, where: str
) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    hostile = json.dumps(_with_event_data(_document(finished), event_type, **data)).encode()
    with pytest.raises(BundleError, match=r"events\.\d+ \(" + re.escape(where)):
        import_bundle(store, hostile)
    assert store.list_runs() == []


def test_a_bundle_exported_while_running_imports_as_ended(finished, tmp_path: Path) -> None:
    document = _document(finished)
    cut = next(i for i, e in enumerate(document["events"]) if e["type"] == "researcher_started")
    document = {
        **document,
        "events": document["events"][: cut + 1],
        "run": {**document["run"], "status": "running", "finished_at": None},
    }
    store = RunStore(tmp_path / "runs.sqlite")
    run_id = import_bundle(store, json.dumps(document).encode())
    view = fold(store.events(run_id))
    assert view.status == "cancelled" and view.done  # never "running" forever
    assert store.get_run(run_id).status == "interrupted"
    assert "imported unfinished" in store.events(run_id)[-1].data.reason
    to_json(view)


def test_one_parse_per_dashboard_import(finished, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ui/panels/run_import.py hands the parsed bundle on instead of parsing the file again."""
    import research.runs.bundle as bundle_module

    text = (Path(__file__).resolve().parents[2] / "ui/panels/run_import.py").read_text()
    assert text.count("read_bundle(") == 1 and "import_bundle(store, bundle)" in text
    calls: list[int] = []
    real = bundle_module.decode_bundle_json
    monkeypatch.setattr(bundle_module, "decode_bundle_json", lambda data: calls.append(1) or real(data))
    runner, run_id = finished
    bundle = read_bundle(export_bundle(runner.store, run_id))
    assert import_bundle(RunStore(tmp_path / "runs.sqlite"), bundle) == run_id
    assert len(calls) == 1
