"""`streamlit run` on a free loopback port for the browser tests and the dashboard benchmark:
offline settings, a health wait, and a clean stop of the whole process group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_KEYS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "GITHUB_TOKEN")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def offline_env(data_dir: Path, base: dict[str, str] | None = None, **extra: str) -> dict[str, str]:
    """The environment of an offline dashboard: no keys, the sample library, the offline brain."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in _KEYS}
    env.update(
        RESEARCH_DATA_DIR=str(data_dir),
        RESEARCH_LOG_DIR=str(data_dir / "logs"),
        RESEARCH_SOURCES="library",
        RESEARCH_LLM="offline",
        **extra,
    )
    return env


def wait_healthy(url: str, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"streamlit was not healthy within {timeout:.0f} s")


@contextmanager
def streamlit_server(
    env: dict[str, str], log_path: Path | None = None, *, port: int | None = None, extra_args: tuple[str, ...] = ()
) -> Iterator[str]:
    """Yields the app's URL; the server (and anything it started) is stopped on exit."""
    port = port or free_port()
    log = log_path.open("wb") if log_path else None
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "streamlit_app.py",
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
            *extra_args,
        ],
        cwd=ROOT,
        env=env,
        stdout=log or subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, process)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if log:
            log.close()
