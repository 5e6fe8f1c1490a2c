"""The Compare page on runs stored by the real offline runner: pick runs or run allocations at
once, read them side by side, and reopen a saved comparison from its URL or from History."""

from __future__ import annotations

import time

from research.api import RunStore
from research.sources.router import SourceRouter
from tests.held_search import held
from tests.ui.conftest import has_block, plain, texts
from tests.ui.stored_runs import TOPIC, real_runs
from ui.comparison_store import ComparisonStore


def _compare_page(make_app, comparison_id: str | None = None):
    at = make_app()
    if comparison_id:
        at.query_params["comparison"] = comparison_id
    return at.switch_page("pages/compare.py").run()


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def _measures(at):
    return next(d.value for d in at.dataframe if "Measure" in d.value.columns).set_index("Measure")


def _summary(at) -> list[str]:
    """The summary's lines, minus "fastest": these runs take fractions of a second, so which one
    was quickest is timing noise (the rule itself is tested in test_compare_stats.py)."""
    values = [plain(m.value) for m in at.container(key="compare-summary").markdown]
    return [v.replace(", fastest", "").replace("fastest, ", "").replace(": fastest · ", ": ") for v in values]


def _attached(at) -> str:
    value = at.query_params["comparison"]
    return value[0] if isinstance(value, list) else value


def test_finished_runs_picked_from_history_are_compared_side_by_side(make_app, data_dir):
    run_ids = real_runs(data_dir, ["210", "111", "003"])
    at = _compare_page(make_app)
    at.multiselect(key="compare-picked").set_value(run_ids).run()
    _button(at, "Compare runs").click().run()
    assert not at.exception

    saved = ComparisonStore(data_dir).get(_attached(at))
    assert saved is not None and saved.run_ids == run_ids and saved.title == TOPIC
    # One line per run an analyst can act on.
    lines = _summary(at)[1].splitlines()
    assert lines[0] == "- 210: 8 sources, approved in round 1, 0 gaps left"
    assert lines[1].startswith("- 111: most sources, most cited") and lines[1].endswith(
        "12 sources, approved in round 1, 0 gaps left"
    )
    assert lines[2] == "- 003: 4 sources, not approved after 2 rounds, 1 gap left"
    assert "Best coverage: 111" in _summary(at)[2]
    # The measures, runs as columns.
    table = _measures(at)
    assert list(table.columns) == ["210", "111", "003"]
    assert table.loc["Sources"].tolist() == ["8", "12", "4"]
    assert table.loc["Sources: book"].tolist() == ["0", "4", "4"]
    assert table.loc["Analyst verdicts"].tolist() == ["approved", "approved", "sent back → sent back"]
    assert table.loc["Gaps left"].tolist() == ["0", "0", "1"]
    # Cards, the six charts and the drafts with their section structure.
    assert all(has_block(at, f"compare-card-{r}") and has_block(at, f"compare-draft-{r}") for r in run_ids)
    assert [c.value for c in at.caption].count("Allocation: set by you") == 3  # who chose each team
    assert len(at.get("plotly_chart")) == 6
    sections = next(d.value for d in at.dataframe if "Section" in d.value.columns).set_index("Section")
    assert sections.loc["Known gaps"].tolist() == ["–", "–", "§5"]
    assert "Same 5 sections in the same order." in [c.value for c in at.code]


def test_run_comparison_starts_every_allocation_at_once(make_app, data_dir, monkeypatch, tmp_path, request):
    # The runs' searches wait on `hold` after each kind's first (tests/held_search.py): both are seen
    # running together however slow the machine, and go on when the test lets go.
    hold = tmp_path / "hold"
    hold.touch()
    request.addfinalizer(lambda: hold.unlink(missing_ok=True))
    monkeypatch.setattr(SourceRouter, "_library_search", held(SourceRouter._library_search, hold))
    at = _compare_page(make_app)
    at.text_area(key="compare-topic").input(TOPIC).run()
    at.multiselect(key="compare-allocations").set_value(["210", "021"]).run()
    _button(at, "Run comparison").click().run()
    comparison = ComparisonStore(data_dir).get(_attached(at))
    store = RunStore(data_dir / "runs.sqlite")
    records = [store.get_run(r) for r in comparison.run_ids]
    assert [r.requested_allocation for r in records] == ["210", "021"]
    assert [r.status for r in records] == ["running", "running"]  # both under way before either ends
    assert any("2 running" in t for t in texts(at))
    hold.unlink()
    _wait_all_done(store, comparison.run_ids)
    at.run()
    assert any("All done" in t for t in texts(at))
    assert _measures(at).loc["Status"].tolist() == ["finished", "finished"]


def test_a_topic_and_two_allocations_are_required(make_app, data_dir):
    at = _compare_page(make_app)
    at.multiselect(key="compare-allocations").set_value(["210"]).run()
    assert _button(at, "Run comparison").disabled
    assert any("Choose 2-4 allocations (chosen: 1)" in t and "Topic is empty" in t for t in texts(at))


def test_a_saved_comparison_reopens_from_its_url_and_from_history(make_app, data_dir):
    run_ids = real_runs(data_dir, ["210", "021"])
    saved = ComparisonStore(data_dir).save(TOPIC, run_ids)
    at = _compare_page(make_app, saved.id)  # a refresh, or a link someone shared
    assert has_block(at, f"compare-card-{run_ids[0]}") and has_block(at, f"compare-card-{run_ids[1]}")

    history = make_app().run().switch_page("pages/history.py").run()
    frame = next(d.value for d in history.dataframe if "Comparison" in d.value.columns)
    assert frame.iloc[0][["Topic", "Runs", "Comparison"]].tolist() == [TOPIC, "210 vs 021", saved.id]
    history.session_state["history-comparisons"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    history.run()
    _button(history, "Open on Compare page").click().run()
    assert f"### {TOPIC}" in texts(history) and has_block(history, f"compare-card-{run_ids[1]}")

    RunStore(data_dir / "runs.sqlite").delete_run(run_ids[1])
    again = _compare_page(make_app, saved.id)
    assert any("1 run of this comparison was deleted" in t for t in texts(again))


def _wait_all_done(store: RunStore, run_ids: list[str], timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if all(store.get_run(r).status != "running" for r in run_ids):
            return
        time.sleep(0.1)
    raise AssertionError("the comparison's runs did not finish")
