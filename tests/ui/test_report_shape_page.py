"""Report shapes on the Research page: chosen in Run options for the next run (recorded in
run_started, the draft in that shape, the shape named over the draft), and a finished run's
report written again in another shape from the Revise panel."""

from __future__ import annotations

from research.api import RunStore
from tests.ui.conftest import plain
from tests.ui.stored_runs import real_runs
from tests.ui.test_run_lifecycle import _start, _wait_finished


def test_run_options_choose_a_brief_with_a_target(make_app, data_dir):
    at = make_app().run()
    at.radio(key="opt-report-shape").set_value("brief").run()
    at.number_input(key="opt-report-words").set_value(150).run()
    run_id = _start(at, "How do mRNA vaccines work?", "100")
    _wait_finished(data_dir, run_id)

    events = RunStore(data_dir / "runs.sqlite").events(run_id)
    [started] = [e for e in events if e.type == "run_started"]
    assert (started.data.report_shape, started.data.target_words) == ("brief", 150)
    [ready] = [e for e in events if e.type == "draft_ready"]
    assert "## Key points" in ready.data.markdown
    at = make_app(run_id).run()
    assert any("Report shape: Brief, about 150 words" in plain(c.value) for c in at.caption)


def test_run_options_left_alone_write_the_standard_report(make_app, data_dir):
    at = make_app().run()
    assert at.radio(key="opt-report-shape").value == "standard"
    assert at.number_input(key="opt-report-words").value is None  # empty (the shape's length), not a "0"
    run_id = _start(at, "How do mRNA vaccines work?", "100")
    _wait_finished(data_dir, run_id)
    [started] = [e for e in RunStore(data_dir / "runs.sqlite").events(run_id) if e.type == "run_started"]
    assert (started.data.report_shape, started.data.target_words) == ("standard", None)


def test_the_revise_panel_writes_the_report_again_in_another_shape(make_app, data_dir):
    (run_id,) = real_runs(data_dir, ["111"])
    store = RunStore(data_dir / "runs.sqlite")
    at = make_app(run_id).run()

    at.radio(key=f"reshape-{run_id}-shape").set_value("outline").run()
    next(b for b in at.button if b.label == "Rewrite in shape").click().run()

    versions = store.draft_versions(run_id)
    assert [v.version for v in versions] == [1, 2] and versions[1].note.startswith("Revised: Written again as Outline")
    assert "## Outline" in versions[1].markdown
    assert [plain(s.value) for s in at.success] == ["Saved as version 2. Citations re-checked: every [n] has a source."]
    assert any("Report shape: Outline first" in plain(c.value) for c in at.caption)
