"""The peers bench's installs and runs, without installing a peer: Python discovery (env var, PATH,
pyenv, a clear reason when none fits), a complete venv reused, an unreachable registry as a skip
reason, and one driver run (ready line, result, timeout)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from bench.peers import venvs
from bench.peers.venvs import PeerSpec, PeerUnavailable, ensure_venv, find_python, run_driver

NEXT = (sys.version_info[0], sys.version_info[1] + 1)


def _fake_python(path: Path, version: tuple[int, int]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {version[0]} {version[1]}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_pythons(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "pyenv"))
    monkeypatch.delenv(f"PEERS_PYTHON_{NEXT[0]}_{NEXT[1]}", raising=False)
    return tmp_path


def test_this_python_serves_a_peer_it_is_new_enough_for() -> None:
    assert find_python(sys.version_info[:2]) == sys.executable


def test_a_newer_python_is_found_by_env_var_then_pyenv_and_asked_its_version(
    no_pythons: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"python{NEXT[0]}.{NEXT[1]}"
    with pytest.raises(PeerUnavailable, match=f"set PEERS_PYTHON_{NEXT[0]}_{NEXT[1]} or put {name} on PATH"):
        find_python(NEXT)
    too_old = _fake_python(no_pythons / "old" / name, sys.version_info[:2])
    monkeypatch.setenv(f"PEERS_PYTHON_{NEXT[0]}_{NEXT[1]}", str(too_old))
    with pytest.raises(PeerUnavailable):
        find_python(NEXT)  # it says it is older than asked: not used
    pyenv = _fake_python(no_pythons / "pyenv" / "versions" / f"{NEXT[0]}.{NEXT[1]}.1" / "bin" / name, NEXT)
    assert find_python(NEXT) == str(pyenv)
    chosen = _fake_python(no_pythons / "chosen" / name, NEXT)
    monkeypatch.setenv(f"PEERS_PYTHON_{NEXT[0]}_{NEXT[1]}", str(chosen))
    assert find_python(NEXT) == str(chosen)


def test_a_complete_venv_is_reused_and_a_peer_without_python_is_a_reason(no_pythons: Path) -> None:
    spec = PeerSpec("peer", "some_peer", "1.0", sys.version_info[:2], "none.py")
    home = no_pythons / "venvs" / spec.slug
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "python").symlink_to(sys.executable)
    (home / ".bench-installed").write_text(spec.requirement)
    assert ensure_venv(spec, no_pythons / "venvs") == home / "bin" / "python"
    newer = PeerSpec("peer", "other_peer", "2.0", NEXT, "none.py")
    with pytest.raises(PeerUnavailable, match="needs Python"):
        ensure_venv(newer, no_pythons / "venvs")


def test_an_unreachable_registry_is_a_skip_reason_not_a_crash(
    no_pythons: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", os.defpath)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)  # no local indexes or wheel folders
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")  # nothing listens there
    monkeypatch.setenv("PIP_RETRIES", "0")
    monkeypatch.setenv("PIP_TIMEOUT", "2")
    spec = PeerSpec("peer", "research-desk-no-such-peer", "0.0.1", sys.version_info[:2], "none.py")
    with pytest.raises(PeerUnavailable, match="pip could not install research-desk-no-such-peer==0.0.1"):
        ensure_venv(spec, no_pythons / "venvs")
    assert not (no_pythons / "venvs" / spec.slug / ".bench-installed").exists()


DRIVER = """
import json, sys, time
print("loading")
time.sleep(float(json.load(open(sys.argv[1]))["sleep"]))
print("bench-driver: ready", flush=True)
json.dump({"report": "# A report", "error": None}, open(sys.argv[2], "w"))
"""


def test_a_driver_run_is_timed_from_its_ready_line_and_cut_at_its_ceiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "drivers").mkdir()
    (tmp_path / "drivers" / "toy.py").write_text(DRIVER)
    monkeypatch.setattr(venvs, "DRIVERS", tmp_path / "drivers")
    spec = PeerSpec("toy", "toy", "1", sys.version_info[:2], "toy.py")
    python = Path(sys.executable)
    run = run_driver(python, spec, {"sleep": 0.5}, tmp_path / "run", dict(os.environ), timeout=120)
    assert (run.report, run.error) == ("# A report", None)
    assert run.seconds <= run.process_seconds - 0.4  # the import-like wait is not the peer's research time
    assert "loading" in (tmp_path / "run" / "driver.log").read_text()
    slow = run_driver(python, spec, {"sleep": 60}, tmp_path / "slow", dict(os.environ), timeout=1)
    assert slow.error == "timed out after 1 s" and slow.report == ""
