"""Figure 4: offline speed. The offline brain on the sample library, no model and no network:
graph wall time per allocation, in process (imports done, library loaded: interpreter start
excluded), and, for the CLI, process start to its first progress line (the `run_started` event)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.harness import BenchContext, Stopwatch, clean_environ, log, median, rounded
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from tests.settings_presets import library_settings
from tests.streamlit_server import offline_env

TOPIC = "How do mRNA vaccines work?"
ALLOCATIONS = [("100", 3), ("111", 3), ("210", 3), ("300", 3), ("333", 9)]
TARGET_SECONDS = 1.0


def graph_seconds(data_dir: Path, log_dir: Path, repeats: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    runners: dict[int, ResearchRunner] = {}
    for allocation, cap in ALLOCATIONS:
        if cap not in runners:
            runners[cap] = ResearchRunner(library_settings(data_dir, log_dir, llm="offline", max_researchers=cap))
            runners[cap].run(ResearchRequest(topic=TOPIC, allocation="111"))  # warm-up: imports, caches
        walls = []
        for _ in range(repeats):
            with Stopwatch() as sw:
                runners[cap].run(ResearchRequest(topic=TOPIC, allocation=allocation))
            walls.append(sw.seconds)
        out[allocation] = {"median": rounded(median(walls)), "max": rounded(max(walls))}
    for runner in runners.values():
        runner.library.close()
    return out


def cli_first_event(data_dir: Path, log_dir: Path) -> dict[str, float]:
    """Seconds from Popen to the CLI's first progress line on stderr, and to its exit."""
    env = offline_env(data_dir, base=clean_environ(dead_proxies=True), RESEARCH_LOG_DIR=str(log_dir))
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "research", TOPIC, "--allocation", "111"],
        cwd=data_dir.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    first_line = proc.stderr.readline()
    first = time.perf_counter() - start
    proc.stderr.read()
    proc.wait(timeout=120)
    total = time.perf_counter() - start
    if proc.returncode != 0 or not first_line.startswith("Run "):
        raise RuntimeError(f"CLI run failed (exit {proc.returncode}): {first_line.strip()[:200]}")
    return {"first_event": first, "exit": total}


def interpreter_start() -> float:
    with Stopwatch() as sw:
        subprocess.run([sys.executable, "-c", "pass"], check=True, env=clean_environ(dead_proxies=True))
    return sw.seconds


def measure(ctx: BenchContext) -> dict[str, Any]:
    repeats = 3 if ctx.quick else 7
    root = ctx.scratch("offline")
    graph = graph_seconds(root / "data", ctx.log_dir, repeats)
    for allocation, times in graph.items():
        log(f"offline graph {allocation}: {times['median']:.3f} s")
    cold = cli_first_event(root / "cli-data", root / "cli-logs")  # first use: loads the sample library
    warm = [cli_first_event(root / "cli-data", root / "cli-logs") for _ in range(2 if ctx.quick else 5)]
    python_start = median([interpreter_start() for _ in range(3)])
    cli = {
        "first_event_seconds": rounded(median([w["first_event"] for w in warm])),
        "exit_seconds": rounded(median([w["exit"] for w in warm])),
        "cold_first_event_seconds": rounded(cold["first_event"]),
        "cold_exit_seconds": rounded(cold["exit"]),
        "python_start_seconds": rounded(python_start),
    }
    log(f"CLI: first event after {cli['first_event_seconds']} s (python itself {cli['python_start_seconds']} s)")
    return {
        "offline_graph_seconds": {a: t["median"] for a, t in graph.items()},
        "offline_details": {
            "topic": TOPIC,
            "repeats": repeats,
            "graph": graph,
            "cli": cli,
            "target_seconds": TARGET_SECONDS,
        },
    }
