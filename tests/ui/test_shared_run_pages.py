"""The dashboard and another process's run: a run whose lease another live
process holds is shown as running, with no Resume; History does not call it interrupted; a Resume
pressed just after another replica took the run does not run it a second time."""

from __future__ import annotations

from research.api import RunStore
from tests.ui.canned import canned_events
from tests.ui.conftest import has_block

RUN = "elsewhere001"


def _stored_running(data_dir) -> RunStore:
    store = RunStore(data_dir / "runs.sqlite")
    store.create_run(RUN, "Run by the CLI", "100", "offline")
    for event in canned_events(RUN, "Run by the CLI")[:8]:
        store.append_event(event)
    return store


def test_a_run_leased_by_another_live_process_is_running_with_no_resume(make_app, data_dir):
    store = _stored_running(data_dir)
    assert store.acquire_lease(RUN, "cli-host:4242:abcd", 600)  # the CLI on another host, alive
    at = make_app(RUN).run()
    assert not any("Interrupted" in m.value for m in at.markdown)
    assert not any("stopped when the app" in w.value for w in at.warning)
    assert not any(b.label == "Resume run" for b in at.button)
    assert has_block(at, "researcher-card-web-1")
    history = make_app()
    history.switch_page("pages/history.py").run()
    table = history.dataframe[0].value
    assert list(table.loc[table["Run"] == RUN, "Status"]) == ["running"]


def test_resume_pressed_after_another_replica_took_the_run_does_not_run_it_twice(make_app, data_dir):
    store = _stored_running(data_dir)
    at = make_app(RUN).run()
    assert any(b.label == "Resume run" for b in at.button)  # no lease: its process has gone
    assert store.acquire_lease(RUN, "replica-b:77:x", 600)  # replica B resumes it first
    next(b for b in at.button if b.label == "Resume run").click().run()
    # The rerun sees B's lease: the run is live elsewhere, so no Resume and nothing ran here.
    assert not any(b.label == "Resume run" for b in at.button)
    assert not any("Interrupted" in m.value for m in at.markdown)
    assert store.get_lease(RUN).owner == "replica-b:77:x"
    assert [e.type for e in store.events(RUN)] == [e.type for e in canned_events(RUN, "Run by the CLI")[:8]]


def test_an_unreachable_shared_database_is_a_clear_message_not_a_traceback(make_app, data_dir, monkeypatch):
    from tests.fakes.postgres import free_port

    monkeypatch.setenv("RESEARCH_DATABASE_URL", f"postgresql://desk:pw-not-shown-42@127.0.0.1:{free_port()}/runs")
    at = make_app().run()
    assert not at.exception
    message = " ".join(e.value for e in at.error)
    assert "cannot reach the run database postgresql://desk:****@127.0.0.1" in message
    assert "RESEARCH_DATABASE_URL" in message and "pw-not-shown-42" not in message
