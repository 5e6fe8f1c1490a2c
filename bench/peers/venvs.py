"""Each peer, pinned, in a venv of its own made on demand (outside the repo), and one run of it.

Peers never enter requirements*.txt or CI: the bench installs them with pip from the registry the
first time (a marker file says a venv is complete), and a peer that cannot be installed (no
registry, no suitable Python) is a skip with pip's or the finder's own reason. Python for a peer
that needs a newer one than the project's: `PEERS_PYTHON_3_12` (a path), else `python3.12` on
PATH, else pyenv's versions; each candidate is asked its version before it is used.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.harness import clean_environ

DRIVERS = Path(__file__).resolve().parent / "drivers"
INSTALL_SECONDS = 1800
READY_LINE = "bench-driver: ready"


@dataclass(frozen=True)
class PeerSpec:
    name: str
    package: str
    version: str
    python: tuple[int, int]  # the oldest Python it installs on
    driver: str  # a file in bench/peers/drivers, run by the peer's Python

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"

    @property
    def slug(self) -> str:
        return f"{self.package.replace('_', '-')}-{self.version}"


OPEN_DEEP_RESEARCH = PeerSpec("open_deep_research", "open_deep_research", "0.0.16", (3, 11), "odr_driver.py")
GPT_RESEARCHER = PeerSpec("gpt-researcher", "gpt-researcher", "0.16.1", (3, 12), "gptr_driver.py")
PEERS = (OPEN_DEEP_RESEARCH, GPT_RESEARCHER)


class PeerUnavailable(Exception):
    """This peer cannot run here; the message says why (shown in the table)."""


def venv_root() -> Path:
    default = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "research-desk" / "peers"
    return Path(os.environ.get("PEERS_VENV_DIR") or default)


def _version_of(python: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return None
    parts = out.stdout.split()
    return (int(parts[0]), int(parts[1])) if out.returncode == 0 and len(parts) == 2 else None


def find_python(wanted: tuple[int, int]) -> str:
    """A Python of at least `wanted` (this one if it is new enough), or PeerUnavailable."""
    if sys.version_info[:2] >= wanted:
        return sys.executable
    name = f"python{wanted[0]}.{wanted[1]}"
    env_name = f"PEERS_PYTHON_{wanted[0]}_{wanted[1]}"
    pyenv = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    candidates = [os.environ.get(env_name), shutil.which(name)]
    candidates += sorted(glob.glob(f"{pyenv}/versions/{wanted[0]}.{wanted[1]}*/bin/{name}"), reverse=True)
    for candidate in filter(None, candidates):
        version = _version_of(candidate)
        if version is not None and version >= wanted:
            return candidate
    raise PeerUnavailable(f"needs Python {name[6:]}: set {env_name} or put {name} on PATH")


def ensure_venv(spec: PeerSpec, root: Path | None = None) -> Path:
    """The peer's venv, installed now if it is not yet complete; its python's path."""
    home = (root or venv_root()) / spec.slug
    python = home / "bin" / "python"
    marker = home / ".bench-installed"
    if marker.exists() and marker.read_text().strip() == spec.requirement and python.exists():
        return python
    base = find_python(spec.python)
    shutil.rmtree(home, ignore_errors=True)
    home.parent.mkdir(parents=True, exist_ok=True)
    # No pip of its own (ensurepip is the slow half of a venv): the base Python's pip installs into it.
    made = subprocess.run([base, "-m", "venv", "--without-pip", str(home)], capture_output=True, text=True, timeout=300)
    if made.returncode != 0:
        raise PeerUnavailable(f"venv failed: {_last_line(made.stderr)}")
    log = home / "install.log"
    with log.open("w") as out:
        pip = subprocess.run(
            [base, "-m", "pip", "--python", str(python), "install", "--disable-pip-version-check", spec.requirement],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=INSTALL_SECONDS,
        )
    if pip.returncode != 0:
        reason = _last_line(log.read_text(errors="replace"), skip="WARNING")
        raise PeerUnavailable(f"pip could not install {spec.requirement}: {reason}")
    marker.write_text(spec.requirement)
    return python


def installed_version(python: Path, package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    return out.stdout.strip() or "unknown"


def _last_line(text: str, skip: str = "") -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not (skip and ln.startswith(skip))]
    return lines[-1][:300] if lines else "no output"


# --- one run ------------------------------------------------------------------------------------


@dataclass
class DriverRun:
    report: str
    error: str | None
    seconds: float  # from the driver's ready line (imports done) to its exit
    process_seconds: float
    log_tail: str
    timed_out: bool = False  # killed at its ceiling (a request of it may still be on the server)


def peer_environ(extra: dict[str, str]) -> dict[str, str]:
    """A peer's environment: no project configuration, no path into the project, no proxy that
    could reach the internet (everything it needs is on 127.0.0.1), no tracing."""
    env = clean_environ(dead_proxies=True)
    env.pop("PYTHONPATH", None)
    env.update({"LANGCHAIN_TRACING_V2": "false", "LANGSMITH_TRACING": "false", "ANONYMIZED_TELEMETRY": "false"})
    env.update(extra)
    return env


def run_driver(
    python: Path, spec: PeerSpec, config: dict[str, Any], scratch: Path, env: dict[str, str], timeout: float
) -> DriverRun:
    return run_process([str(python), str(DRIVERS / spec.driver)], config, scratch, env, timeout)


def run_process(
    command: list[str], config: dict[str, Any], scratch: Path, env: dict[str, str], timeout: float
) -> DriverRun:
    """`command CONFIG.json OUT.json` in `scratch`, killed at `timeout` seconds (the run's ceiling)."""
    scratch.mkdir(parents=True, exist_ok=True)
    config_path, out_path, log_path = scratch / "config.json", scratch / "out.json", scratch / "driver.log"
    config_path.write_text(json.dumps(config))
    out_path.unlink(missing_ok=True)
    started = time.perf_counter()
    ready: list[float] = []
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [*command, str(config_path), str(out_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            cwd=scratch,
        )
        reader = threading.Thread(target=_copy_lines, args=(process, log, ready), daemon=True)
        reader.start()
        try:
            process.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            timed_out = True
        reader.join(timeout=30)
    ended = time.perf_counter()
    tail = _last_line(log_path.read_text(errors="replace"))
    result: dict[str, Any] = {}
    if out_path.exists():
        result = json.loads(out_path.read_text() or "{}")
    error = f"timed out after {timeout:g} s" if timed_out else result.get("error")
    if not result and not timed_out:
        error = f"the driver exited {process.returncode} without a result: {tail}"
    return DriverRun(
        report=str(result.get("report") or ""),
        error=error,
        seconds=round(ended - (ready[0] if ready else started), 1),
        process_seconds=round(ended - started, 1),
        log_tail=tail,
        timed_out=timed_out,
    )


def _copy_lines(process: subprocess.Popen[str], log: Any, ready: list[float]) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        if not ready and line.startswith(READY_LINE):
            ready.append(time.perf_counter())
        log.write(line)
