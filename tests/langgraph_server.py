"""`langgraph dev` (LangGraph's in-memory server) on a free loopback port, serving this project's
langgraph.json, for the server lane and the remote-mode benchmark. Offline settings, a health wait,
and a clean stop of the whole process group."""

from __future__ import annotations

import json
import os
import shutil
import sys
from contextlib import AbstractContextManager
from pathlib import Path

from tests import child_server
from tests.child_server import ROOT, ServerKind, free_port
from tests.streamlit_server import offline_env

LANGGRAPH = Path(sys.executable).with_name("langgraph")
LANGGRAPH_DEV = ServerKind("langgraph dev", "/ok", start_timeout=240, poll=0.3, stop_timeout=15)


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


def langgraph_dev(
    env: dict[str, str], workdir: Path, log_path: Path | None = None, *, held: bool = False
) -> AbstractContextManager[str]:
    """Yields the server's URL; its log goes to `workdir`. It runs in the project root, as the
    documented command does (langgraph.json's paths are relative to the working directory); its
    in-memory state is flushed to ./.langgraph_api (git-ignored). `held` serves tests/held_graph.py
    instead, whose library searches wait on env's RESEARCH_TEST_HOLD_FILE."""
    port = free_port()
    config = ROOT / "langgraph.json"
    if held:
        settings = json.loads(config.read_text())
        settings["graphs"] = {"research": str(ROOT / "tests" / "held_graph.py") + ":make_graph"}
        settings["checkpointer"]["path"] = str(ROOT / "research" / "runs" / "server.py") + ":checkpointer"
        settings["dependencies"] = [str(ROOT)]
        settings.pop("env", None)
        config = workdir / "langgraph-held.json"
        config.write_text(json.dumps(settings))
    command = [
        str(LANGGRAPH) if LANGGRAPH.exists() else "langgraph",
        "dev",
        "--config",
        str(config),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-browser",
        "--no-reload",
    ]
    env = {**env, "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
    return child_server.serving(LANGGRAPH_DEV, command, port, env, log_path or workdir / "langgraph.log")
