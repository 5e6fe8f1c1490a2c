"""Shared helpers for the engine tests: a clean environment for subprocesses, the final graph
state of a run, and stub source routers (objects with `.retrieve(kind, query, limit)` and
`.describe(kind)`, which is all the graph asks of a router)."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research.graph.builder import build_graph
from research.runs.runner import ResearchRunner
from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import Source
from research.sources.provider_base import Retrieval
from tests.environment import clean_environ

REPO_ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable


def cli_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Environment for a subprocess run: tmp data and logs, library sources, offline brain, and
    proxies pointed at a dead loopback port so an accidental HTTP call fails instead of leaving."""
    env = clean_environ()
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        RESEARCH_DATA_DIR=str(tmp_path / "data"),
        RESEARCH_LOG_DIR=str(tmp_path / "logs"),
        RESEARCH_SOURCES="library",
        RESEARCH_LLM="offline",
        HTTP_PROXY="http://127.0.0.1:9",
        HTTPS_PROXY="http://127.0.0.1:9",
        ALL_PROXY="http://127.0.0.1:9",
        NO_PROXY="",
    )
    env.update(extra)
    return env


def start_cli(args: list[str], tmp_path: Path, *, hold: Path | None = None, **extra_env: str) -> subprocess.Popen:
    """`python -m research args`; with `hold`, its library searches wait on that file
    (tests/held_search.py), so the run is still running when the test acts on it."""
    command = [PYTHON, "-m", "research"] if hold is None else [PYTHON, str(REPO_ROOT / "tests" / "held_cli.py")]
    if hold is not None:
        extra_env = {**extra_env, "RESEARCH_TEST_HOLD_FILE": str(hold)}
    return subprocess.Popen(
        [*command, *args],
        cwd=tmp_path,
        env=cli_env(tmp_path, **extra_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_cli(args: list[str], tmp_path: Path, timeout: float = 60, **extra_env: str) -> subprocess.CompletedProcess:
    proc = start_cli(args, tmp_path, **extra_env)
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def killed_child_run(tmp_path: Path, module: str, *args: str, killed: int) -> str:
    """Run `python -m module DATA_DIR *args`, a child that starts a run and kills itself at a set
    point with exit code `killed`; the id of the run it left behind."""
    proc = subprocess.run(
        [PYTHON, "-m", module, str(tmp_path / "data"), *args],
        cwd=tmp_path,
        env=cli_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == killed, proc.stderr
    return proc.stdout.split()[0]


def final_state(runner: ResearchRunner, run_id: str) -> dict[str, Any]:
    """The run's last checkpointed graph state (what the nodes actually produced)."""
    with runner.checkpointer() as saver:
        graph = build_graph(max_consecutive_same=runner.settings.max_consecutive_same, checkpointer=saver)
        return graph.get_state({"configurable": {"thread_id": run_id}}).values


def events_of(runner: ResearchRunner, run_id: str, type_: str | None = None):
    events = runner.store.events(run_id)
    return [e for e in events if type_ is None or e.type == type_]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


@dataclass
class Call:
    kind: str
    query: str
    start: float
    end: float


class SlowRouter:
    """Every retrieve takes `delay` seconds and returns two on-topic sources per query; the
    start/end of each call is recorded, so tests can measure how calls overlapped."""

    def __init__(self, delay: float = 0.5) -> None:
        self.delay = delay
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def describe(self, kind: ResearcherKind) -> list[str]:
        return ["slow-stub"]

    def expected_seconds(self, kind: ResearcherKind) -> float | None:
        return None  # no history: researchers start in the plan's order

    def retrieve(self, kind: ResearcherKind, query: str, limit: int, topic: str | None = None) -> Retrieval:
        start = time.monotonic()
        time.sleep(self.delay)
        sources = [
            Source(
                title=f"{query} ({kind} {i})",
                url=f"https://{kind}{i}.example.org/{slug(query)}",
                kind=kind,
                provider="slow-stub",
                snippet=f"Notes on {query}. Source {i} explains it.",
            )
            for i in (1, 2)
        ]
        with self._lock:
            self.calls.append(Call(kind, query, start, time.monotonic()))
        return Retrieval(sources=sources, providers_used=["slow-stub"])
