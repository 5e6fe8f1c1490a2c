"""`export` and `bundle --out`: a write cut short (here a file-size limit, as a
full disk would) leaves the earlier good file whole and no temporary file behind."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from research.export.atomic_file import write_atomically

ROOT = Path(__file__).resolve().parents[2]


def _cli(data_dir: Path, *args: str, max_file_bytes: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # in the child: writes past the limit fail with EFBIG instead of killing it
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if max_file_bytes is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    env = {
        "RESEARCH_DATA_DIR": str(data_dir),
        "RESEARCH_LOG_DIR": str(data_dir.parent / "logs"),
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [sys.executable, "-m", "research", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
        preexec_fn=limit,
    )


@pytest.mark.parametrize("command", [("export", "--format", "pdf"), ("bundle",)])
def test_a_cut_short_write_leaves_the_earlier_file(finished, tmp_path: Path, command: tuple[str, ...]) -> None:
    runner, run_id = finished
    data_dir = runner.settings.data_dir
    out = tmp_path / "out" / "result.bin"
    out.parent.mkdir()
    name, *options = command
    full = _cli(data_dir, name, run_id, *options, "--out", str(out))
    assert full.returncode == 0, full.stderr[-2000:]
    good = out.read_bytes()
    assert len(good) > 8_000
    os.chmod(out, 0o640)
    cut = _cli(data_dir, name, run_id, *options, "--out", str(out), max_file_bytes=len(good) // 2)
    assert cut.returncode == 2, cut.stderr[-2000:]
    assert "cannot write" in cut.stderr and "Traceback" not in cut.stderr
    assert out.read_bytes() == good  # not truncated to the limit
    assert [p.name for p in out.parent.iterdir()] == ["result.bin"]  # no temporary file left
    assert out.stat().st_mode & 0o777 == 0o640


def test_write_atomically_replaces_whole_and_keeps_the_old_on_failure(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "a.md"
    write_atomically(target, b"first")
    write_atomically(target, b"second")
    assert target.read_bytes() == b"second"

    def refuse(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", refuse)
    with pytest.raises(OSError, match="No space"):
        write_atomically(target, b"third" * 1000)
    assert target.read_bytes() == b"second" and [p.name for p in tmp_path.iterdir()] == ["a.md"]
