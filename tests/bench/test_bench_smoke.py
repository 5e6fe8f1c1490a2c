"""Keeps the benchmark code from rotting: the cheapest figure (library scale) at a tiny size, the
critical-path arithmetic on a known event log, and the results writer's file shape and README
section. No timing is asserted: benchmarks are not tests."""

from __future__ import annotations

import json
from pathlib import Path

from bench import report
from bench.critical_path import TARGET, critical_path
from bench.harness import BenchContext, Results
from bench.library_scale import measure as measure_library
from research.events import Event


def _event(type_: str, researcher_id: str | None = None, iteration: int | None = None, **data) -> Event:
    return Event(type=type_, researcher_id=researcher_id, iteration=iteration, data=data)


def test_ideal_is_the_longest_dependent_chain_of_the_run() -> None:
    events = [
        _event("phase", iteration=0, phase="supervisor"),
        _event("usage", node="supervisor", calls=1),
        _event("researcher_started", "web-1", 0),
        _event("researcher_started", "book-1", 0),
        _event("usage", "web-1", node="researcher", calls=1),
        _event("usage", "book-1", node="researcher", calls=1),
        _event("sources_found", "web-1", 0, providers=["tavily"]),
        _event("sources_found", "book-1", 0, providers=["openlibrary", "wikipedia"]),  # 2 dependent requests
        _event("usage", "web-1", node="researcher", calls=1),
        _event("usage", "book-1", node="researcher", calls=1),
        _event("phase", iteration=0, phase="analyst"),
        _event("usage", node="analyst", calls=1),
        _event("phase", iteration=1, phase="researchers"),
        _event("researcher_started", "web-1-r1", 1),
        _event("usage", "web-1-r1", node="researcher", calls=2),
        _event("sources_found", "web-1-r1", 1, providers=["tavily"]),
        _event("phase", iteration=1, phase="analyst"),
        _event("usage", node="analyst", calls=1),
        _event("phase", iteration=1, phase="writer"),
        _event("usage", node="writer", calls=1),
    ]
    path = critical_path(events, model_latency=0.2, search_latency=0.3)
    # supervisor 0.2 + round 0 (book: 2 calls + 2 requests = 1.0; analyst 0.2)
    # + round 1 (2 calls + 1 request = 0.7; analyst 0.2) + writer 0.2
    assert [round(r["researchers"], 3) for r in path.rounds] == [1.0, 0.7]
    assert round(path.seconds, 3) == 2.5


def test_library_figure_and_results_file_shape(tmp_path: Path) -> None:
    ctx = BenchContext(quick=True, root=tmp_path / "scratch")
    results = Results(quick=True)
    results.figures.update(measure_library(ctx, sizes=(60,)))
    results.skipped["dashboard"] = "not measured in the smoke test"
    readme = tmp_path / "README.md"
    readme.write_text("# Project\n\nIntro text.\n")

    report.write(results, json_path=tmp_path / "results.json", md_path=tmp_path / "results.md", readme=readme)

    doc = json.loads((tmp_path / "results.json").read_text())
    assert set(report.REQUIRED_KEYS) <= set(doc)
    assert {"cores", "memory_gb", "python"} <= set(doc["machine"])
    library = doc["library"]["60"]
    assert {"import_seconds", "query_p50_ms", "query_p95_ms"} <= set(library)
    assert library["queries_with_hits"] > 0  # the synthetic queries really find documents
    assert 0 < library["query_p50_ms"] <= library["query_p95_ms"]
    assert doc["skipped"] == {"dashboard": "not measured in the smoke test"}
    assert isinstance(doc["changes"], list)

    # The README gets one Performance section between markers; a second write replaces it in place.
    first = readme.read_text()
    assert first.startswith("# Project\n\nIntro text.\n")
    assert first.count(report.START) == 1 and "| 5 library |" in first
    report.write(results, json_path=tmp_path / "results.json", md_path=tmp_path / "results.md", readme=readme)
    second = readme.read_text()
    assert second.count("## Performance") == 1 and second.count(report.START) == 1
    assert second.split(report.START)[0] == first.split(report.START)[0]


def test_the_cache_off_figure_is_reported_next_to_the_target_rows() -> None:
    doc = {"critical_path_efficiency": {"333": 1.04}, "critical_path_without_search_cache": {"333": 1.11}}
    rows = report.figure_rows(doc)
    assert rows[0][1:] == ("measured / ideal, allocation 333", "1.040", "≤ 1.05", "yes")
    assert "search cache off" in rows[1][1] and rows[1][2] == "1.110" and rows[1][3:] == ("", "")


def test_a_critical_path_above_the_issues_target_is_reported_as_missed() -> None:
    # The target is the issue's 1.05, in the bench and in its table alike; a miss is a row, not a failure.
    assert TARGET == 1.05
    rows = report.figure_rows({"critical_path_efficiency": {"111": 1.05, "333": 1.08}})
    assert [(r.result, r.target, r.met) for r in rows] == [("1.050", "≤ 1.05", "yes"), ("1.080", "≤ 1.05", "**no**")]
