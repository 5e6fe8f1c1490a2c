"""Which functions hold the GIL during a run: cProfile in every thread, timed by that thread's CPU clock.

Pure Python code runs only while its thread holds the GIL, so a thread's CPU time is (to the C
calls that release it: socket waits, SQLite's own work, compression) the time it held the GIL.
Summed over the desk's threads, the self time of each function says what competes with the model
calls and searches for the one interpreter. The loopback fakes' own request threads are left out:
they stand for the network, not for the desk.

The engine's process-wide pools (a researcher's retrieves, provider searches, Open Library's
descriptions) keep their threads from run to run, so threads started before the profiler would go
unprofiled: `fresh_pools` gives the profiled run new pools, whose threads start inside it.

Under the profiler a run is slower (every call is counted), so this explains a figure; it is not one.
"""

from __future__ import annotations

import cProfile
import importlib
import pstats
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from research.sources.context_pool import ContextPool

# The engine's process-wide pools: (module, attribute) of each.
PROCESS_POOLS = (
    ("research.graph.nodes.researcher", "_RETRIEVES"),
    ("research.sources.router", "_PROVIDER_SEARCHES"),
    ("research.sources.providers.openlibrary", "_DESCRIPTIONS"),
)
# The fakes' threads (socketserver names them after process_request_thread).
FAKE_THREADS = ("process_request_thread",)
# Self time grouped by where the code lives (first match wins; the rest is "other").
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("tokenising and stemming", ("research/text/tokens.py",)),
    ("sentence splitting", ("research/text/sentences.py",)),
    ("BM25 and snippets", ("research/text/bm25.py", "research/text/snippets.py")),
    ("relevance scoring", ("research/relevance/",)),
    ("writer and claim check (desk code)", ("research/brains/", "research/drafts/")),
    ("event serialisation and stream adaptation", ("research/events/", "pydantic")),
    ("event log and source store (SQLite)", ("research/runs/store", "sqlite3", "research/runs/event_effects")),
    ("checkpoint writes", ("langgraph/checkpoint", "ormsgpack")),
    ("LangGraph scheduling", ("langgraph/",)),
    ("model client (openai, langchain)", ("openai/", "langchain_core/", "langchain_openai/")),
    ("HTTP (httpx, http.client, ssl)", ("httpx", "httpcore", "http/client", "ssl.py")),
    ("other desk code", ("research/",)),
)


class ThreadProfiles:
    """`with ThreadProfiles() as prof: ...` profiles the calling thread and every thread started inside."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.profiles: list[tuple[str, cProfile.Profile]] = []

    def _start_here(self, frame: FrameType, event: str, arg: Any) -> None:
        profile = cProfile.Profile(time.thread_time)
        with self._lock:
            self.profiles.append((threading.current_thread().name, profile))
        profile.enable()  # replaces this hook in this thread

    def __enter__(self) -> ThreadProfiles:
        main = cProfile.Profile(time.thread_time)
        self.profiles.append((threading.current_thread().name, main))
        threading.setprofile(self._start_here)
        main.enable()
        return self

    def __exit__(self, *exc: object) -> None:
        threading.setprofile(None)  # type: ignore[arg-type]
        with self._lock:
            for _, profile in self.profiles:
                profile.disable()

    def stats(
        self, keep: Callable[[str], bool] = lambda name: not any(f in name for f in FAKE_THREADS)
    ) -> pstats.Stats:
        merged: pstats.Stats | None = None
        for name, profile in self.profiles:
            if not keep(name):
                continue
            try:
                merged = pstats.Stats(profile) if merged is None else merged.add(profile)
            except TypeError:  # a thread that never ran a profiled call
                continue
        if merged is None:
            raise ValueError("nothing was profiled")
        return merged

    def threads(self) -> int:
        return len(self.profiles)


@contextmanager
def fresh_pools() -> Iterator[None]:
    """New, empty process-wide pools inside (the old ones back after), so their threads start
    under a profiler started outside (`with profiling() as p, fresh_pools():`). They are shut down
    before the profiler stops: a thread still blocked in its queue when its profile is disabled
    from another thread would be charged that thread's clock."""
    kept: list[tuple[Any, str, ContextPool]] = []
    for name, attribute in PROCESS_POOLS:
        module = importlib.import_module(name)
        old: ContextPool = getattr(module, attribute)
        kept.append((module, attribute, old))
        fresh = ContextPool(max_workers=old._max_workers, thread_name_prefix=old._thread_name_prefix)
        setattr(module, attribute, fresh)
    try:
        yield
    finally:
        for module, attribute, old in kept:
            getattr(module, attribute).shutdown(wait=True)
            setattr(module, attribute, old)


@contextmanager
def profiling() -> Iterator[ThreadProfiles]:
    with ThreadProfiles() as profiles:
        yield profiles


def _where(key: tuple[str, int, str]) -> str:
    filename, line, name = key
    if filename == "~":  # a C function: pstats names it "<built-in method ...>"
        return name
    for marker in ("/site-packages/", "/research/", "/bench/", "/lib/python"):
        if marker in filename:
            tail = filename.split(marker, 1)[1]
            prefix = marker.strip("/") + "/" if marker in ("/research/", "/bench/") else ""
            return f"{prefix}{tail}:{line}({name})"
    return f"{filename}:{line}({name})"


def _group(location: str) -> str:
    for label, markers in GROUPS:
        if any(m in location for m in markers):
            return label
    return "other (stdlib, C calls)"


def summary(stats: pstats.Stats, top: int = 15) -> dict[str, Any]:
    """CPU seconds by group (self time, so the groups add up), the top functions by self time, and the
    desk's top entry points by cumulative time (these overlap: a caller includes its callees)."""
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, Any]] = stats.stats  # type: ignore[attr-defined]
    groups: dict[str, float] = {}
    rows = []
    for key, (_, calls, self_s, cum_s, _) in raw.items():
        where = _where(key)
        group = "C functions (str methods, regex, len, ...)" if key[0] == "~" else _group(where)
        groups[group] = groups.get(group, 0.0) + self_s
        rows.append((where, calls, self_s, cum_s))
    total = sum(groups.values())
    by_self = sorted(rows, key=lambda r: r[2], reverse=True)[:top]
    desk = [r for r in rows if r[0].startswith("research/")]
    by_cum = sorted(desk, key=lambda r: r[3], reverse=True)[:top]
    return {
        "cpu_seconds": round(total, 3),
        "groups": {k: round(v, 3) for k, v in sorted(groups.items(), key=lambda kv: kv[1], reverse=True)},
        "top_self": [{"function": w, "calls": c, "self_s": round(s, 3)} for w, c, s, _ in by_self],
        "top_cumulative": [{"function": w, "calls": c, "cumulative_s": round(cu, 3)} for w, c, _, cu in by_cum],
    }
