"""`streamlit run` on a free loopback port for the browser tests and the dashboard benchmark:
offline settings, a health wait, and a clean stop of the whole process group."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import AbstractContextManager
from pathlib import Path

from tests import child_server
from tests.child_server import ROOT, ServerKind, free_port

_KEYS = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "GITHUB_TOKEN")
STREAMLIT = ServerKind("streamlit", "/_stcore/health", start_timeout=180, poll=0.2, stop_timeout=10)

# ROOT and free_port stay importable from here (the server-lane and login tests take them from here).
__all__ = ["ROOT", "free_port", "offline_env", "start_streamlit", "streamlit_server"]


def offline_env(data_dir: Path, base: dict[str, str] | None = None, **extra: str) -> dict[str, str]:
    """The environment of an offline dashboard or CLI: no keys, the sample library, the offline
    brain; `extra` adds to it or overrides it (a log dir elsewhere)."""
    env = {k: v for k, v in (os.environ if base is None else base).items() if k not in _KEYS}
    env.update(
        RESEARCH_DATA_DIR=str(data_dir),
        RESEARCH_LOG_DIR=str(data_dir / "logs"),
        RESEARCH_SOURCES="library",
        RESEARCH_LLM="offline",
    )
    env.update(extra)
    return env


def _command(port: int, extra_args: tuple[str, ...], launcher: Path | None = None) -> list[str]:
    program = [sys.executable, str(launcher)] if launcher else [sys.executable, "-m", "streamlit"]
    return [
        *program,
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
    ]


def start_streamlit(env: dict[str, str], log_path: Path | None = None) -> tuple[subprocess.Popen, str]:
    """The app, healthy, and its URL; the caller stops it (`child_server.stop_group`)."""
    port = free_port()
    return child_server.start(STREAMLIT, _command(port, ()), port, env, log_path)


def streamlit_server(
    env: dict[str, str],
    log_path: Path | None = None,
    *,
    port: int | None = None,
    extra_args: tuple[str, ...] = (),
    launcher: Path | None = None,
) -> AbstractContextManager[str]:
    """Yields the app's URL; the server (and anything it started) is stopped on exit. `launcher`:
    a script that stands in for `python -m streamlit` (tests/browser/clocked_streamlit.py)."""
    port = port or free_port()
    return child_server.serving(STREAMLIT, _command(port, extra_args, launcher), port, env, log_path)
