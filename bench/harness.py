"""What every figure shares: a clean environment, scratch directories, timing helpers, the machine's
facts, and the collector the figures' results go into (rendered by `bench.report`)."""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = REPO_ROOT / "bench"
_CONFIG_PREFIXES = ("RESEARCH_", "OPENAI_")
_CONFIG_NAMES = ("TAVILY_API_KEY", "GITHUB_TOKEN")
# A port nothing listens on: any request that tries to leave the machine fails at once.
DEAD_PROXY = "http://127.0.0.1:9"


# --- environment -------------------------------------------------------------------------------


_PROXY_NAMES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


def clean_environ(*, dead_proxies: bool = False) -> dict[str, str]:
    """os.environ without engine configuration (so a developer's key or .env settings cannot change
    a figure). `dead_proxies` (for offline subprocesses) also points proxies at a dead loopback
    port, so nothing can reach the internet by accident. Not used in-process: with proxies set,
    every httpx.Client builds one SSL context per proxy, which would inflate the figures."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(_CONFIG_PREFIXES) and k not in _CONFIG_NAMES and k not in _PROXY_NAMES
    }
    if dead_proxies:
        for name in _PROXY_NAMES:
            env[name] = DEAD_PROXY
        env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost,::1"
    env["PYTHONPATH"] = str(REPO_ROOT)
    return env


def isolate_environment() -> None:
    """Apply `clean_environ()` to this process (call once, before the engine is imported)."""
    wanted = clean_environ()
    for name in list(os.environ):
        if name not in wanted:
            del os.environ[name]
    os.environ.update(wanted)


# --- timing ------------------------------------------------------------------------------------


class Stopwatch:
    """`with Stopwatch() as sw: ...` then `sw.seconds` (perf_counter, wall time)."""

    def __enter__(self) -> Stopwatch:
        self.start = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start


def percentile(values: list[float], p: float) -> float:
    """Linear-interpolated percentile (p in 0-100) of a non-empty list."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def rounded(value: float, digits: int = 3) -> float:
    return round(float(value), digits)


# --- the machine ---------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def machine_info() -> dict[str, Any]:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cores": cores,
        "memory_gb": _memory_gb(),
        "python": platform.python_version(),
        "cpu": _cpu_model(),
        "platform": f"{platform.system()} {platform.release()} {platform.machine()}",
        "load_average_1m": load_average(),
    }


# --- the run's context and results -----------------------------------------------------------------


@dataclass
class BenchContext:
    """Passed to every figure: quick mode, and a private scratch directory per figure."""

    quick: bool
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="research-bench-")))

    @property
    def log_dir(self) -> Path:
        # One log dir for the whole process: the engine adds a file handler per log path.
        return self.root / "logs"

    def scratch(self, name: str) -> Path:
        path = self.root / name
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        return path

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


class FigureSkipped(Exception):
    """A figure that cannot be measured here (e.g. no browser); the reason goes into the results."""


@dataclass
class Results:
    """Every figure's output, plus skips, errors and how long each figure took to measure."""

    quick: bool
    machine: dict[str, Any] = field(default_factory=machine_info)
    figures: dict[str, Any] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    # Per figure: when and at what load it was measured, and which keys of the results it wrote.
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    started_at: float = field(default_factory=time.time)

    @property
    def mode(self) -> str:
        return "quick" if self.quick else "full"

    @property
    def measured_at(self) -> str:
        return timestamp(self.started_at)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"machine": self.machine, "mode": self.mode, "measured_at": self.measured_at}
        out.update(self.figures)
        out["skipped"] = dict(self.skipped)
        out["errors"] = dict(self.errors)
        out["bench_seconds"] = {k: round(v, 1) for k, v in self.seconds.items()}
        out["sections"] = {k: dict(v) for k, v in self.sections.items()}
        return out


def timestamp(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(seconds))


def load_average() -> float | None:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


@contextmanager
def figure_timer(results: Results, name: str) -> Iterator[None]:
    """Times one figure and records its own header (time, load at its start, the run it belongs to)."""
    results.sections[name] = {
        "run_started": results.measured_at,
        "measured_at": timestamp(time.time()),
        "mode": results.mode,
        "load_average_1m": load_average(),
    }
    start = time.perf_counter()
    try:
        yield
    finally:
        results.seconds[name] = time.perf_counter() - start


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)
