"""A server the tests start as a child process on a free loopback port (`streamlit run`,
`langgraph dev`): it runs in the project root in its own session, so stopping it stops whatever
it started too."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class ServerKind:
    """How one kind of server says it is up, and how long it gets to start and to stop."""

    name: str
    health_path: str
    start_timeout: float
    poll: float
    stop_timeout: float


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_ready(url: str, process: subprocess.Popen, kind: ServerKind) -> None:
    """Returns once `url` answers 200; fails at once if the server exits, or after its start timeout."""
    deadline = time.monotonic() + kind.start_timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{kind.name} exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(kind.poll)
    raise RuntimeError(f"{kind.name} did not answer {url} within {kind.start_timeout:.0f} s")


def stop_group(process: subprocess.Popen, *, sig: int = signal.SIGTERM, timeout: float = 15) -> None:
    """Sends `sig` to the server's process group; one that outlives `timeout` s is killed."""
    try:
        os.killpg(process.pid, sig)
        process.wait(timeout=timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def start(
    kind: ServerKind, command: list[str], port: int, env: dict[str, str], log: Path | None
) -> tuple[subprocess.Popen, str]:
    """Starts the server (its output to `log`, or nowhere) and returns it with its URL once it is up."""
    with log.open("wb") if log else open(os.devnull, "wb") as out:  # the child keeps its own copy
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url + kind.health_path, process, kind)
    except BaseException:
        stop_group(process, timeout=kind.stop_timeout)
        raise
    return process, url


@contextmanager
def serving(kind: ServerKind, command: list[str], port: int, env: dict[str, str], log: Path | None) -> Iterator[str]:
    """Yields the server's URL; the server (and anything it started) is stopped on exit."""
    process, url = start(kind, command, port, env, log)
    try:
        yield url
    finally:
        stop_group(process, timeout=kind.stop_timeout)
