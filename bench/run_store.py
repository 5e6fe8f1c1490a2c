"""Run-store figure: the cost of one `append_event` (the call on the thread that drives the graph,
once per event) on SQLite through the dialect layer (research/runs/sql.py) and on Postgres (a
throwaway local cluster, when Debian's postgresql is installed), plus a lease renewal."""

from __future__ import annotations

import time
from typing import Any

from bench.harness import BenchContext, median, percentile, rounded


def _append_ms(store, n: int) -> tuple[float, float]:
    from research.events import EventAdapter
    from research.events.payloads import Warning

    store.create_run("bench", "t", None, "offline")
    adapter = EventAdapter("bench")
    events = [adapter.make(Warning(source="runner", message=f"event {i}")) for i in range(n)]
    times = []
    for event in events:
        start = time.perf_counter()
        store.append_event(event)
        times.append((time.perf_counter() - start) * 1000)
    return median(times), percentile(times, 95)


def _renew_ms(store, n: int) -> float:
    store.acquire_lease("bench", "me", 30)
    times = []
    for _ in range(n):
        start = time.perf_counter()
        store.renew_lease("bench", "me", 30)
        times.append((time.perf_counter() - start) * 1000)
    return median(times)


def measure(ctx: BenchContext) -> dict[str, Any]:
    from research.runs.store import RunStore

    n = 300 if ctx.quick else 2000
    out: dict[str, Any] = {"events": n}
    sqlite = RunStore(ctx.scratch("run-store") / "runs.sqlite")
    p50, p95 = _append_ms(sqlite, n)
    out["sqlite_append_event_ms_p50"], out["sqlite_append_event_ms_p95"] = rounded(p50, 4), rounded(p95, 4)
    out["sqlite_renew_lease_ms_p50"] = rounded(_renew_ms(sqlite, 200), 4)
    try:
        from tests.fakes.postgres import PG_BIN, Cluster
    except ImportError:
        return out
    if not (PG_BIN / "initdb").exists():
        out["postgres"] = "skipped: postgresql not installed"
        return out
    cluster = Cluster().start()
    try:
        pg = RunStore(cluster.new_database())
        p50, p95 = _append_ms(pg, n)
        out["postgres_append_event_ms_p50"], out["postgres_append_event_ms_p95"] = rounded(p50, 4), rounded(p95, 4)
        out["postgres_renew_lease_ms_p50"] = rounded(_renew_ms(pg, 200), 4)
        pg.close()
    finally:
        cluster.stop()
    return {"run_store": out}
