"""The overhead accounting of the critical-path bench: phase windows that tile a run, each phase's
ideal, and the per-thread profile that names the functions holding the GIL. No timing asserted."""

from __future__ import annotations

import gc
import threading
from typing import Any

from bench import report
from bench.ab_compare import _ratios, markdown_table
from bench.collector import CollectorTime
from bench.gil_profile import fresh_pools, profiling, summary
from bench.loopback import MODEL_SLOTS, LoopbackWorld
from bench.phases import phase_costs, phase_cpu, phase_table
from research.events import Event


def _at(ts: float, type_: str, researcher_id: str | None = None, iteration: int | None = None, **data) -> Event:
    return Event(type=type_, ts=ts, researcher_id=researcher_id, iteration=iteration, data=data)


_ROW = {"phase": "writer", "measured_s": 1.2, "ideal_s": 0.8, "overhead_s": 0.4}
_CHECKED = {"version": 1, "method": "offline", "claims": [], "precision": None}


def test_phase_windows_tile_the_run_and_each_phase_has_its_own_ideal() -> None:
    events = [
        _at(100.0, "run_started", topic="t"),
        _at(100.1, "phase", iteration=0, phase="supervisor"),
        _at(100.3, "usage", node="supervisor", calls=1),
        _at(100.35, "allocation_decided", origin="user"),
        _at(100.4, "usage", "web-1", node="researcher", calls=2),  # a researcher's: not the node's
        _at(101.5, "phase", iteration=0, phase="analyst"),
        _at(101.8, "usage", node="analyst", calls=1),
        _at(102.0, "phase", iteration=1, phase="writer"),
        _at(102.5, "usage", node="writer", calls=2),
        _at(102.9, "draft_ready", markdown="# d"),
        _at(103.1, "usage", node="claim_check", calls=1),
        _at(103.2, "claims_checked", **_CHECKED),
        _at(103.4, "usage", node="reviewer", calls=1),
        _at(103.6, "usage", node="claim_check", calls=1),
        _at(103.7, "claims_checked", **_CHECKED),
        _at(103.8, "run_finished"),
    ]
    rows = phase_costs(events, started_at=99.9, ended_at=103.9, researcher_rounds=[1.0], model_latency=0.2)
    by_phase = {r.phase: r for r in rows}

    assert [r.phase for r in rows] == [
        "supervisor",
        "researchers 0",
        "analyst 0",
        "writer",
        "claim check",
        "review",
        "runner",
    ]
    assert round(sum(r.measured for r in rows), 6) == round(103.9 - 99.9, 6)  # the windows tile the run
    assert round(by_phase["supervisor"].measured, 3) == 0.45
    assert round(by_phase["supervisor"].ideal, 3) == 0.2
    assert round(by_phase["researchers 0"].ideal, 3) == 1.0  # the round's slowest chain, given
    assert round(by_phase["researchers 0"].overhead, 3) == round(101.5 - 100.35 - 1.0, 3)
    assert round(by_phase["analyst 0"].ideal, 3) == 0.2
    assert round(by_phase["writer"].ideal, 3) == 0.4
    assert round(by_phase["claim check"].ideal, 3) == 0.2
    assert round(by_phase["review"].ideal, 3) == 0.4  # the reviewer and its revision's claim check
    assert by_phase["runner"].ideal == 0.0 and round(by_phase["runner"].measured, 3) == 0.1


def test_cpu_by_phase_reads_the_process_clock_at_each_phases_closing_event() -> None:
    events = [
        _at(100.0, "run_started", topic="t"),
        _at(100.3, "allocation_decided", origin="user"),
        _at(101.0, "phase", iteration=0, phase="analyst"),
        _at(101.2, "phase", iteration=1, phase="writer"),
        _at(101.9, "draft_ready", markdown="# d"),
        _at(102.0, "claims_checked", **_CHECKED),
        _at(102.4, "run_finished"),
    ]
    cpu_at = [10.0, 10.1, 10.5, 10.52, 10.6, 10.61, 10.7]  # the process CPU clock as each event arrived
    cpu = phase_cpu(events, cpu_at, cpu_started=9.95, cpu_ended=10.72)

    assert list(cpu) == ["supervisor", "researchers 0", "analyst 0", "writer", "claim check", "review", "runner"]
    assert {k: round(v, 3) for k, v in cpu.items()} == {
        "supervisor": 0.15,
        "researchers 0": 0.4,
        "analyst 0": 0.02,
        "writer": 0.08,
        "claim check": 0.01,
        "review": 0.09,
        "runner": 0.02,
    }
    assert round(sum(cpu.values()), 6) == round(10.72 - 9.95, 6)  # the windows tile the run's CPU too


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i % 7
    return total


def test_the_profile_counts_the_cpu_of_threads_started_inside_it_and_leaves_the_fakes_out() -> None:
    with profiling() as profiles:
        worker = threading.Thread(target=_spin, args=(300_000,), name="ThreadPoolExecutor-0_0")
        fake = threading.Thread(target=_spin, args=(300_000,), name="Thread-9 (process_request_thread)")
        worker.start(), fake.start()
        worker.join(), fake.join()
    out = summary(profiles.stats())

    spins = [row for row in out["top_self"] if "(_spin)" in row["function"]]
    assert len(spins) == 1 and spins[0]["calls"] == 1  # the worker's call, not the fake's
    assert out["cpu_seconds"] >= spins[0]["self_s"] > 0
    assert profiles.threads() == 3  # this thread, the worker and the fake


def test_the_profile_counts_the_work_of_the_process_wide_pools_whose_threads_started_before_it() -> None:
    import research.graph.nodes.researcher as researcher

    before = researcher._RETRIEVES
    before.submit(_spin, 10).result()  # the pool's thread starts now, before any profiler
    with profiling() as profiles, fresh_pools():
        assert researcher._RETRIEVES is not before
        researcher._RETRIEVES.submit(_spin, 300_000).result()
    assert researcher._RETRIEVES is before  # the process's own pool back, its threads kept
    spins = [row for row in summary(profiles.stats())["top_self"] if "(_spin)" in row["function"]]
    assert len(spins) == 1 and spins[0]["calls"] == 1 and spins[0]["self_s"] > 0


def test_the_report_shows_the_realistic_case_and_the_phase_table() -> None:
    def phases(writer_overhead: float) -> dict[str, dict[str, float | str]]:
        return {
            "supervisor": {"phase": "supervisor", "measured_s": 0.25, "ideal_s": 0.2, "overhead_s": 0.05},
            "writer": {"phase": "writer", "measured_s": 1.2, "ideal_s": 0.8, "overhead_s": writer_overhead},
        }

    doc = {
        "critical_path_efficiency": {"333": 1.2},
        "critical_path_realistic": {"333": 1.04},
        "critical_path_details": {
            "cases": {"333": {"phases": phases(0.4)}},
            "realistic": {"cases": {"333": {"phases": phases(0.3)}}},
            "profile": {"allocation": "333", "cpu_seconds": 4.0, "groups": {"BM25 and snippets": 0.3}},
        },
    }
    text = report.markdown(doc)
    assert (
        "| 1 critical path | the same, allocation 333, realistic latencies (model 1.0 s, search 0.5 s) | 1.040 |"
        in text
    )
    assert "| writer | 1.20 | 0.80 | +0.40 | +0.30 |" in text
    assert "BM25 and snippets 0.30 s" in text


def test_the_alternating_comparison_reports_medians_of_new_over_old() -> None:
    def child(wall: float, writer: float) -> dict[str, Any]:
        return {"333": {"wall": wall, "ideal": 4.0, "status": "finished", "phases": {"writer": writer}}}

    old = [child(8.0, 2.0), child(12.0, 3.0), child(10.0, 2.5)]
    new = [child(6.0, 0.5), child(6.0, 0.7), child(7.0, 0.6)]  # measured in the same rounds as old
    ratios = _ratios(old, new, "333")
    assert ratios["old_wall_s"] == 10.0 and ratios["new_wall_s"] == 6.0
    assert ratios["wall_new_over_old"] == 0.7  # median of 0.75, 0.5, 0.7: per round, then the median
    assert ratios["old_ratio"] == 2.5 and ratios["new_ratio"] == 1.5
    assert ratios["phase_overhead_s"] == {"writer": {"old": 2.5, "new": 0.6}}
    table = markdown_table({"cases": {"333": ratios}})
    assert "| writer | +2.50 | +0.60 |" in table
    assert "| new / old wall time (median of rounds) |  | 0.70 |" in table


def test_the_loopback_world_gives_every_researcher_of_333_a_model_slot(tmp_path) -> None:
    """Nine researchers start their first model call together; with the desk's default 8 slots the
    ninth would wait for one, and the figure would measure the cap instead of the desk."""
    with LoopbackWorld(tmp_path / "data", tmp_path / "logs") as world:
        assert world.settings(max_researchers=9).llm_concurrency >= 9
        assert world.settings(max_researchers=3).llm_concurrency == MODEL_SLOTS


def test_the_comparison_reports_each_runs_cpu_seconds_beside_its_wall_time() -> None:
    def child(wall: float, cpu: float) -> dict[str, Any]:
        return {"333": {"wall": wall, "ideal": 4.0, "status": "finished", "phases": {}, "cpu": cpu}}

    old = [child(8.0, 1.0), child(12.0, 1.2), child(10.0, 1.1)]
    new = [child(9.0, 0.8), child(11.0, 0.6), child(10.0, 0.99)]
    ratios = _ratios(old, new, "333")
    assert ratios["old_cpu_s"] == 1.1 and ratios["new_cpu_s"] == 0.8
    assert ratios["cpu_new_over_old"] == 0.8  # median of 0.8, 0.5, 0.9
    table = markdown_table({"cases": {"333": ratios}})
    assert "| CPU of the run, s (median; the fakes' included) | 1.10 | 0.80 |" in table
    assert "| new / old CPU (median of rounds) |  | 0.80 |" in table
    without = _ratios([child(8.0, 1.0)], [{"333": {"wall": 6.0, "ideal": 4.0, "phases": {}}}], "333")
    assert "cpu_new_over_old" not in without  # no CPU figures in: no CPU rows out


def test_the_collector_meter_counts_the_collections_inside_it_and_the_report_shows_them() -> None:
    gc.collect()  # outside the block: not counted
    with CollectorTime() as collector:
        junk: list[object] = []
        junk.append(junk)  # a cycle only the collector frees
        del junk
        gc.collect()
    gc.collect()
    counted = collector.per_run(2)
    assert collector.collections[2] == counted["full_collections"] == 1  # a young one may also land inside
    assert counted["ms_per_run"] > 0 and counted["longest_full_ms"] >= 0 and counted["runs"] == 2

    doc = {"critical_path_details": {"cases": {"333": {"phases": {"writer": _ROW}}}, "garbage_collector": counted}}
    text = "\n".join(phase_table(doc))
    assert "in the 2 runs above" in text and "1 full collection (the longest" in text
