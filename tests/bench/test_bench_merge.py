"""A partial bench run (`python -m bench --only NAME`) merges into bench/results.json: the header
stays the full run's, each figure keeps its own time and load, the rows of peers not re-run stay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import report
from bench.harness import Results, figure_timer
from bench.peers.figure import merged_rows


def _run(tmp_path: Path, *, load: float, started_at: float, figures: dict[str, dict[str, Any]], merge: bool,
         skipped: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    results = Results(quick=False, started_at=started_at)
    results.machine["load_average_1m"] = load
    for name, values in figures.items():
        with figure_timer(results, name):
            results.figures.update(values)
        results.sections[name]["keys"] = sorted(values)
    for name, reason in (skipped or {}).items():
        with figure_timer(results, name):
            results.skipped[name] = reason
    return report.write(
        results, merge=merge, json_path=tmp_path / "results.json", md_path=tmp_path / "results.md", readme=None
    )


def test_a_partial_run_keeps_the_header_and_records_its_own_time_and_load(tmp_path: Path) -> None:
    full = _run(
        tmp_path,
        load=0.1,
        started_at=1_800_000_000.0,
        figures={"fanout": {"fanout_ratio": {"3": 1.1}}, "local_model": {"remote_mode_note": {"calls": 13}}},
        skipped={"dashboard": "no browser"},
        merge=False,
    )
    header = {key: full[key] for key in report.HEADER_KEYS}
    assert header["machine"]["load_average_1m"] == 0.1

    later = _run(
        tmp_path,
        load=7.5,
        started_at=1_800_003_600.0,
        figures={"local_model": {"remote_mode_note": {"calls": 12}}},
        merge=True,
    )

    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc == later
    assert {key: doc[key] for key in report.HEADER_KEYS} == header  # not the partial run's
    assert doc["fanout_ratio"] == {"3": 1.1} and doc["remote_mode_note"] == {"calls": 12}
    assert doc["skipped"] == {"dashboard": "no browser"}  # another figure's skip stays
    assert set(doc["bench_seconds"]) == {"fanout", "local_model", "dashboard"}
    local = doc["sections"]["local_model"]
    assert local["run_started"] != header["measured_at"] and local["keys"] == ["remote_mode_note"]
    assert doc["sections"]["fanout"]["run_started"] == header["measured_at"]
    apart = report.measured_apart(doc)
    assert len(apart) == 1 and apart[0].startswith("local_model ") and "full mode" in apart[0]
    written = (tmp_path / "results.md").read_text()
    assert "Measured by later partial runs" in written
    (tmp_path / "results.md").write_text("stale")
    report.render(json_path=tmp_path / "results.json", md_path=tmp_path / "results.md", readme=None)
    assert (tmp_path / "results.md").read_text() == written  # `--render`: the same tables, nothing measured


def test_a_figure_run_again_replaces_its_own_skip() -> None:
    previous = {"measured_at": "t0", "mode": "full", "machine": {"cores": 2}, "skipped": {"local_model": "no venv"}}
    results = Results(quick=False)
    with figure_timer(results, "local_model"):
        results.figures["local_model_run"] = {"calls": 1}
    doc = report.results_document(results, previous)
    assert doc["skipped"] == {} and doc["measured_at"] == "t0"
    assert report.measured_apart(doc)[0].startswith("local_model ")


def _peer(setting: str, system: str, topic: str, seconds: float) -> dict[str, Any]:
    return {"setting": setting, "system": system, "topic": topic, "seconds": seconds}


def test_a_narrowed_peers_run_replaces_only_the_rows_it_measured() -> None:
    previous = [
        _peer("scripted", "desk", "covered topic", 1.0),
        _peer("smollm2", "desk", "covered topic", 100.0),
        _peer("smollm2", "gpt-researcher", "covered topic", 300.0),
        _peer("smollm2", "desk", "near-miss topic", 90.0),
    ]
    measured = [_peer("smollm2", "desk", "near-miss topic", 80.0), _peer("smollm2", "desk", "uncovered topic", 70.0)]
    rows = merged_rows(previous, measured)
    assert [(r["setting"], r["system"], r["topic"], r["seconds"]) for r in rows] == [
        ("scripted", "desk", "covered topic", 1.0),
        ("smollm2", "desk", "covered topic", 100.0),  # same setting, another topic: kept
        ("smollm2", "gpt-researcher", "covered topic", 300.0),
        ("smollm2", "desk", "near-miss topic", 80.0),  # re-measured: replaced in place
        ("smollm2", "desk", "uncovered topic", 70.0),
    ]


def test_peers_groups_choose_the_topics_of_a_narrowed_run(monkeypatch) -> None:
    from bench.peers.figure import _topics_for

    monkeypatch.setenv("PEERS_GROUPS", "near-miss,uncovered")
    monkeypatch.delenv("PEERS_TOPICS", raising=False)
    assert [t.group for t in _topics_for("smollm2", quick=False)] == ["near-miss", "uncovered"]
    monkeypatch.setenv("PEERS_GROUPS", "covered,near-miss")
    monkeypatch.setenv("PEERS_TOPICS", "qwen:1")  # a count of each group's topics
    assert [t.group for t in _topics_for("qwen", quick=False)] == ["covered", "near-miss"]


def test_each_peers_run_shows_its_own_date_and_load() -> None:
    from bench.peers import report as peers_report

    base = dict(group="covered", finished=True, requests=4, failed_requests=0, prompt_tokens=10, completion_tokens=1,
                searches=2, sources_cited=1, invented_citations=0, off_subject_citations=0, cited_sentences=1,
                supported_sentences=1, cites_nothing=False, report_words=20, error=None)  # fmt: skip
    rows = [
        {**_peer("smollm2", "desk", "t1", 5.0), **base, "measured_at": "2026-12-02 02:20 UTC", "load_average_1m": [9.0, 20.5]},
        {**_peer("qwen", "desk", "t1", 9.0), **base, "measured_at": "2026-12-02 03:05 UTC", "load_average_1m": [3.25, 4.0]},
    ]  # fmt: skip
    doc = {"peers": rows, "peers_details": {"machine": {"cores": 2, "load_average_1m": 0.5}}}
    assert "1-minute load average 3.2-20.5 over the runs that recorded it" in peers_report.section(doc)
    table = peers_report.run_rows(doc)
    assert "| 2026-12-02 02:20 UTC (9.0-20.5) |" in table and "| 2026-12-02 03:05 UTC (3.25-4.0) |" in table


def test_the_server_log_names_why_a_run_failed_counting_only_its_own_lines(tmp_path: Path) -> None:
    from bench.peers.figure import ModelSetting

    log_file = tmp_path / "server.log"
    log_file.write_text("ValueError: Requested tokens (9100) exceed context window of 8192\n")
    setting = ModelSetting("smollm2", "m", proxy=None, server_log=log_file)  # type: ignore[arg-type]
    since = setting.log_offset()
    cut = "ValueError: Requested tokens (9031) exceed context window of 8192"
    with log_file.open("a") as out:  # a traceback, as llama-cpp's server logs a failed stream
        out.write(f'INFO: "POST /v1/chat/completions HTTP/1.1" 200 OK\n    | {cut}\n{cut}\n{cut}\n')
        out.write("RuntimeError: another failure\n")
    assert setting.server_errors(since) == [f"2 x {cut}", "1 x RuntimeError: another failure"]
    assert ModelSetting("scripted", "m", proxy=None).server_errors(0) == []  # type: ignore[arg-type]
