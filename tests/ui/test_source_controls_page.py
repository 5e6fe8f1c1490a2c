"""The Run options' source controls on the Research page (AppTest), and the Sources table's
reliability column, filter and sort over a finished run's view."""

from __future__ import annotations

from research.api import RunStore, SourceControls, fold
from tests.ui.conftest import texts
from tests.ui.test_run_lifecycle import _run_id, _wait_finished
from ui.sources_frame import filter_reliability, sort_frame, sources_frame

TOPIC = "How did Impressionism change painting?"


def _controls_run(make_app, data_dir) -> str:
    at = make_app().run()
    at.text_area(key="topic").input(TOPIC).run()
    at.text_input(key="alloc_notation").input("011").run()
    at.number_input(key="opt_year_from").set_value(2010).run()
    at.text_input(key="opt_exclude_domains").input("Medium.com, https://www.example.net/x").run()
    at.toggle(key="opt_peer_reviewed").set_value(True).run()
    assert any("This run keeps: years 2010–…" in t for t in texts(at))
    next(b for b in at.button if b.label == "Run research").click().run()
    run_id = _run_id(at)
    _wait_finished(data_dir, run_id, timeout=120)
    return run_id


def test_the_run_options_set_the_runs_source_controls(make_app, data_dir) -> None:
    run_id = _controls_run(make_app, data_dir)
    events = RunStore(data_dir / "runs.sqlite").events(run_id)
    [started] = [e for e in events if e.type == "run_started"]
    assert started.data.source_controls == SourceControls(
        year_from=2010, exclude_domains=("medium.com", "example.net"), peer_reviewed_only=True
    )
    reopened = make_app(run_id).run()  # the stored run's page (as after a refresh, or in History)
    assert any("Sources kept: years 2010–…; never from medium.com, example.net" in t for t in texts(reopened))
    # The reasons stand beside the score, on screen without scrolling the table sideways.
    [table] = [d for d in reopened.dataframe if d.proto.id.endswith(f"sources-table-{run_id}")]
    assert list(table.proto.column_order)[:4] == ["Link", "Cited", "Reliability", "Why"]
    view = fold(events)
    assert view.sources and all(s.year is not None and s.year >= 2010 for s in view.sources.values())

    frame = sources_frame(view)
    assert frame["Reliability"].notna().all() and (frame["Why"] != "").all()
    best_first = sort_frame(frame, "reliability")["Reliability"].tolist()
    assert best_first == sorted(best_first, reverse=True)
    high = filter_reliability(frame, ["high"])
    assert len(high) < len(frame) and set(high["Rated"]) == {"high"}
    assert len(filter_reliability(frame, [])) == len(frame)  # nothing chosen: every row


def test_a_refused_control_is_said_at_once_and_the_run_does_not_start(make_app, data_dir) -> None:
    at = make_app().run()
    at.text_area(key="topic").input(TOPIC).run()
    at.text_input(key="alloc_notation").input("011").run()
    at.number_input(key="opt_year_from").set_value(2020).run()
    at.number_input(key="opt_year_to").set_value(2010).run()
    assert any("Source controls: year from (2020) is after year to (2010)" in e.value for e in at.error)
    next(b for b in at.button if b.label == "Run research").click().run()
    assert any("Could not start the run" in e.value for e in at.error)
    assert "run" not in at.query_params
