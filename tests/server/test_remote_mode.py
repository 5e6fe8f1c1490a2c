"""Remote mode against a real `langgraph dev` on loopback: the graph runs on the server, this
process is its client (research.runs.remote), and the local event log reads as in-process."""

from __future__ import annotations

import json
import os
import subprocess
import time

import httpx
import pytest

from research.api import (
    RemoteRunManager,
    ResearchRequest,
    ResearchRunner,
    RunStore,
    ServerUnreachable,
    Settings,
    SourceControls,
    fold,
    make_manager,
    thread_id_of,
)
from tests.research_cli import research_cli
from tests.streamlit_server import ROOT, free_port

TOPIC = "How do mRNA vaccines work?"


def _types(store: RunStore, run_id: str) -> list[str]:
    return [e.type for e in store.events(run_id)]


def _cli(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    """The CLI in remote mode: this process's environment (client_env's), and `env` on top."""
    return research_cli(*args, env={**os.environ, "PYTHONPATH": str(ROOT), **env}, cwd=ROOT, timeout=timeout)


def test_the_server_serves_the_graph_schemas(server_url):
    reply = httpx.post(f"{server_url}/assistants/search", json={"graph_id": "research"}, timeout=10)
    assistant = reply.json()[0]["assistant_id"]
    schemas = httpx.get(f"{server_url}/assistants/{assistant}/schemas", timeout=10)
    assert schemas.status_code == 200, schemas.text
    body = schemas.json()
    assert {"run_id", "brain", "sources", "model"} <= set(body["context_schema"]["properties"])
    assert {"topic", "requested_allocation", "draft"} <= set(body["input_schema"]["properties"])


def test_make_manager_picks_the_remote_manager(client_env):
    assert isinstance(make_manager(Settings()), RemoteRunManager)


def test_a_whole_run_on_the_server_logs_what_an_in_process_run_logs(client_env, tmp_path, monkeypatch):
    manager = make_manager(Settings())
    run_id = manager.run(ResearchRequest(topic=TOPIC, allocation="120"))
    remote = fold(manager.store.events(run_id))
    record = manager.store.get_run(run_id)
    assert record.status == "finished" and record.allocation == "120" and record.source_count > 0
    types = _types(manager.store, run_id)
    assert types[0] == "run_started" and types[-1] == "run_finished"
    assert [e.seq for e in manager.store.events(run_id)] == list(range(1, len(types) + 1))
    messages = [e for e in manager.store.events(run_id) if e.type == "message"]
    assert messages and all(m.data.name and m.data.content for m in messages)  # dict messages read
    assert manager.store.latest_draft(run_id).markdown == remote.draft
    started = manager.store.events(run_id)[0].data
    # The server's own configuration (RESEARCH_SOURCES=library there) decided what was not chosen here.
    assert started.source_mode == "library" and started.brain == "offline"

    # The same request in-process: the same event types and the same draft.
    monkeypatch.delenv("RESEARCH_SERVER_URL")
    monkeypatch.setenv("RESEARCH_SOURCES", "library")
    monkeypatch.setenv("RESEARCH_DEMO_DELAY", "0")
    local = ResearchRunner(Settings(data_dir=tmp_path / "local"))
    local_id = local.run(ResearchRequest(topic=TOPIC, allocation="120"))
    assert sorted(set(_types(local.store, local_id))) == sorted(set(types))
    assert fold(local.store.events(local_id)).draft.replace(local_id, run_id) == remote.draft


def test_plan_review_pauses_on_the_server_and_continues_with_the_edit(client_env):
    manager = make_manager(Settings())
    run_id = manager.start(ResearchRequest(topic="Rust vs Go for backend services", review_plan=True))
    assert manager.wait(run_id, timeout=60)
    assert manager.store.get_run(run_id).status == "paused"
    view = fold(manager.store.events(run_id))
    assert view.paused and view.plan_review.allocation_notation == "210"
    thread = httpx.get(f"{manager.url}/threads/{thread_id_of(run_id)}", timeout=10).json()
    assert thread["status"] == "interrupted"

    manager.continue_plan(run_id, ["How fast are Rust and Go web servers?"], "111")
    assert manager.wait(run_id, timeout=60)
    events = manager.store.events(run_id)
    approved = next(e for e in events if e.type == "plan_approved")
    assert approved.data.edited and approved.data.research_questions == ["How fast are Rust and Go web servers?"]
    assert manager.store.get_run(run_id).status == "finished"
    assert manager.store.get_run(run_id).allocation == "111"
    started = [e for e in events if e.type == "researcher_started"]
    assert sorted(e.data.kind for e in started) == ["academic", "book", "web"]


def test_a_reader_that_reconnects_after_the_run_gets_the_rest_of_the_log(client_env, tmp_path):
    first = make_manager(Settings())
    run_id = first.run(ResearchRequest(topic=TOPIC))
    full = first.store.events(run_id)

    # A replica that saw only the first events before its reader died (the run record says running).
    replica = RemoteRunManager(Settings(), store=RunStore(tmp_path / "replica" / "runs.sqlite"))
    replica.store.create_run(run_id, TOPIC, None, "offline")
    for event in full[:5]:
        replica.store.append_event(event)
    assert replica.is_orphaned(run_id)
    replica.resume(run_id, block=True)  # join_stream on the finished run, replayed from its start
    rejoined = replica.store.events(run_id)
    assert [(e.seq, e.type, e.data) for e in rejoined] == [(e.seq, e.type, e.data) for e in full]
    assert replica.store.get_run(run_id).status == "finished"
    assert not replica.is_orphaned(run_id)


def test_cli_resume_reattaches_to_the_run_on_the_server(client_env):
    first = make_manager(Settings())
    run_id = first.run(ResearchRequest(topic=TOPIC))
    full = first.store.events(run_id)
    store = RunStore(client_env / "runs.sqlite")
    store.update_run(run_id, status="running")  # as if the reader had died after the first events
    with store._connect() as db:
        db.execute("DELETE FROM events WHERE run_id = ? AND seq > 3", (run_id,))
    done = _cli("resume", run_id, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "finished"
    assert [(e.type, e.data) for e in store.events(run_id)] == [(e.type, e.data) for e in full]


def test_cli_runs_through_the_server(client_env):
    done = _cli(TOPIC, "--allocation", "111", "--json", "--quiet")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (
        result["status"] == "finished"
        and result["draft"]
        and result["allocation"] == {"web": 1, "academic": 1, "book": 1}
    )
    assert RunStore(client_env / "runs.sqlite").get_run(result["run_id"]).status == "finished"


def test_cli_review_plan_then_continue_through_the_server(client_env):
    paused = _cli(TOPIC, "--review-plan", "--json", "--quiet")
    assert paused.returncode == 0, paused.stderr
    run_id = json.loads(paused.stdout)["run_id"]
    assert json.loads(paused.stdout)["status"] == "paused"
    went_on = _cli("continue", run_id, "--allocation", "100", "--json")
    assert went_on.returncode == 0, went_on.stderr
    result = json.loads(went_on.stdout)
    assert result["status"] == "finished" and result["allocation"] == {"web": 1, "academic": 0, "book": 0}


def test_an_unreachable_server_is_a_clear_error_on_start_and_nothing_is_stored(tmp_path, monkeypatch):
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    settings = Settings(data_dir=tmp_path, server_url=url)
    manager = RemoteRunManager(settings)
    with pytest.raises(ServerUnreachable, match=f"LangGraph server unreachable at {url}.*make server"):
        manager.start(ResearchRequest(topic=TOPIC))
    assert manager.store.list_runs() == []

    done = _cli(TOPIC, timeout=60, RESEARCH_SERVER_URL=url, RESEARCH_DATA_DIR=str(tmp_path))
    assert done.returncode == 1
    assert f"error: LangGraph server unreachable at {url}" in done.stderr and "Traceback" not in done.stderr


def test_a_bad_server_url_is_a_clear_settings_error(tmp_path):
    done = _cli(TOPIC, timeout=60, RESEARCH_SERVER_URL="ftp://x", RESEARCH_DATA_DIR=str(tmp_path))
    assert done.returncode == 2
    assert "RESEARCH_SERVER_URL" in done.stderr and "http:// or https://" in done.stderr


def test_cancel_stops_the_run_on_the_server(client_env):
    manager = make_manager(Settings())
    run_id = manager.start(ResearchRequest(topic="What was the impact of the printing press?", allocation="111"))
    deadline = time.time() + 30
    while not any(e.type == "researcher_started" for e in manager.store.events(run_id)):
        assert time.time() < deadline, "the run never started"
        time.sleep(0.05)
    manager.cancel(run_id)
    assert manager.wait(run_id, timeout=60)
    record = manager.store.get_run(run_id)
    types = _types(manager.store, run_id)
    assert record.status == "cancelled", (record.status, types)
    assert "run_cancelled" in types and "run_failed" not in types and "run_finished" not in types
    runs = httpx.get(f"{manager.url}/threads/{thread_id_of(run_id)}/runs", timeout=10).json()
    assert runs[0]["status"] in ("interrupted", "error"), runs[0]["status"]


def test_a_run_that_fails_on_the_server_shows_its_error(client_env, monkeypatch):
    manager = make_manager(Settings())
    # A spec the worker refuses (its Settings validate it): the run fails inside the server.
    monkeypatch.setattr(manager, "_spec", lambda run_id, request: {"run_id": run_id, "max_researchers": 99})
    run_id = manager.run(ResearchRequest(topic=TOPIC))
    record = manager.store.get_run(run_id)
    assert record.status == "failed", _types(manager.store, run_id)
    assert "max_researchers" in record.error and "9" in record.error
    assert _types(manager.store, run_id)[-1] == "run_failed"


def test_the_runs_researcher_mode_runs_on_the_server(client_env):
    # The server's own mode is pipeline (its RESEARCH_RESEARCHER_MODE default): the run's choice wins.
    manager = make_manager(Settings())
    run_id = manager.run(ResearchRequest(topic=TOPIC, allocation="100", researcher_mode="agent"))
    events = manager.store.events(run_id)
    assert manager.store.get_run(run_id).status == "finished"
    assert events[0].data.researcher_mode == "agent"
    assert any(e.type == "tool_called" for e in events)  # the agent's tool loop ran in the worker


def test_the_runs_source_controls_travel_in_the_spec_and_apply_on_the_server(client_env):
    controls = SourceControls(year_to=2023)
    manager = make_manager(Settings())
    run_id = manager.run(ResearchRequest(topic=TOPIC, allocation="011", source_controls=controls))
    events = manager.store.events(run_id)
    assert manager.store.get_run(run_id).status == "finished"
    assert events[0].data.source_controls == controls  # recorded by the worker's begin node
    found = [s for e in events if e.type == "sources_found" for s in e.data.sources]
    assert found and all(s.year is None or s.year <= 2023 for s in found)
    assert any(d.rule == "years" for e in events if e.type == "sources_dropped" for d in e.data.dropped)
