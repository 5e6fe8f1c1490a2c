"""`langgraph dev` (LangGraph's in-memory server) on a free loopback port, serving this project's
langgraph.json, for the server lane and the remote-mode benchmark. Offline settings, a health wait,
and a clean stop of the whole process group."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from tests.streamlit_server import ROOT, free_port, offline_env

LANGGRAPH = Path(sys.executable).with_name("langgraph")


def langgraph_available() -> bool:
    return LANGGRAPH.exists() or shutil.which("langgraph") is not None


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The server's environment: offline brain and library (as the dashboard's tests), no
    LangSmith tracing, no version check (its checkpointer enforces the allow-list itself)."""
    env = offline_env(data_dir, **extra)
    env.pop("LANGGRAPH_STRICT_MSGPACK", None)
    env.update(
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        LANGGRAPH_NO_VERSION_CHECK="true",
        LANGSMITH_API_KEY="",
    )
    env.pop("RESEARCH_SERVER_URL", None)
    return env


def wait_ok(url: str, process: subprocess.Popen, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"langgraph dev exited early with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=1) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"langgraph dev did not answer /ok within {timeout:.0f} s")


@contextmanager
def langgraph_dev(env: dict[str, str], workdir: Path, log_path: Path | None = None) -> Iterator[str]:
    """Yields the server's URL; its log goes to `workdir`. It runs in the project root, as the
    documented command does (langgraph.json's paths are relative to the working directory); its
    in-memory state is flushed to ./.langgraph_api (git-ignored)."""
    port = free_port()
    log = (log_path or workdir / "langgraph.log").open("wb")
    command = [
        str(LANGGRAPH) if LANGGRAPH.exists() else "langgraph",
        "dev",
        "--config",
        str(ROOT / "langgraph.json"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-browser",
        "--no-reload",
    ]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**env, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"},
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ok(url, process)
        yield url
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
        log.close()
