"""`make test-busy`'s wrapper (scripts/busy.sh): the command's exit status is kept and the busy
loops never outlive it, whether it passes, fails or the wrapper is stopped."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "busy.sh"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")  # a zombie waiting for its reaper is dead


def _loop_pids(stderr: str) -> list[int]:
    match = re.search(r"busy loops \(pids ([\d ]+)\)", stderr)
    assert match, stderr
    return [int(p) for p in match.group(1).split()]


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHON=sys.executable, BUSY_LOOPS="2")
    return subprocess.run(["bash", str(SCRIPT), *command], env=env, capture_output=True, text=True, timeout=60)


def test_the_command_status_is_kept_and_the_loops_are_killed() -> None:
    for status in (0, 3):
        done = _run(sys.executable, "-c", f"import sys; sys.exit({status})")
        assert done.returncode == status
        pids = _loop_pids(done.stderr)
        assert len(pids) == 2 and not any(_alive(p) for p in pids)


def test_a_stopped_wrapper_kills_its_loops_and_its_command(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    env = dict(os.environ, PYTHON=sys.executable, BUSY_LOOPS="1")
    child = f"import pathlib, os, time; pathlib.Path({str(marker)!r}).write_text(str(os.getpid())); time.sleep(120)"
    wrapper = subprocess.Popen(
        ["bash", str(SCRIPT), sys.executable, "-c", child], env=env, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not marker.exists() or not marker.read_text():  # wait for the command to be running, however slow the machine
        assert time.monotonic() < deadline and wrapper.poll() is None
        time.sleep(0.05)
    wrapper.send_signal(signal.SIGTERM)
    _, stderr = wrapper.communicate(timeout=60)
    assert wrapper.returncode == 143
    assert not any(_alive(p) for p in _loop_pids(stderr))
    assert not _alive(int(marker.read_text()))
