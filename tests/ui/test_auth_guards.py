"""Sign-in on a desk with `[auth]` guards every change and every spend: saving or
restoring draft versions, revising, starting runs; only a run's owner or an admin (RESEARCH_ADMINS)
deletes it; RESEARCH_USER_DAILY_LLM_CALLS caps a user's model calls on the shared key."""

from __future__ import annotations

import time
from pathlib import Path

from research.api import Event, RunStore
from tests.run_events import store_finished_run
from tests.ui.canned import DRAFT, SOURCES, canned_events
from tests.ui.conftest import texts

AUTH = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "a-test-cookie-secret",
    "client_id": "desk",
    "client_secret": "desk-secret",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}


def _run(data_dir: Path, run_id: str, started_by: str | None) -> str:
    store = RunStore(data_dir / "runs.sqlite")
    store.create_run(run_id, "Owned topic", "210", "offline")
    events = canned_events(run_id, "Owned topic")
    first = events[0]
    events[0] = first.model_copy(update={"data": first.data.model_copy(update={"started_by": started_by})})
    store_finished_run(store, run_id, events, DRAFT, allocation="210", source_count=len(SOURCES))
    return run_id


def _app(make_app, run_id: str | None = None, user: str | None = None):
    at = make_app(run_id)
    at.secrets["auth"] = AUTH
    at.user = {"is_logged_in": True, "email": user} if user else {"is_logged_in": False}
    return at


def _labels(at) -> list[str]:
    return [b.label for b in at.button]


def test_a_visitor_cannot_edit_save_restore_or_revise(make_app, data_dir) -> None:
    run_id = _run(data_dir, "owned1", "ada@example.org")
    store = RunStore(data_dir / "runs.sqlite")
    store.save_draft_version(run_id, DRAFT + "\nSecond.\n", note="Edited")
    at = _app(make_app, run_id).run()
    toggle = at.toggle(key=f"draft-edit-{run_id}")
    assert toggle.disabled
    at.session_state[f"draft-edit-{run_id}"] = True  # a replayed toggle
    at.run()
    assert not any(t.label == "Draft" for t in at.text_area) and "Save" not in _labels(at)
    assert "Revise draft" not in _labels(at) and any("Sign in to revise the draft" in t for t in texts(at))
    at.selectbox(key=f"draft-version-{run_id}-2").set_value(1).run()  # an older version: no Restore
    assert not any(label.startswith("Restore") for label in _labels(at)) or all(
        b.disabled for b in at.button if b.label.startswith("Restore")
    )
    assert [v.version for v in store.draft_versions(run_id)] == [1, 2]


def test_a_signed_in_user_edits_and_saves(make_app, data_dir) -> None:
    run_id = _run(data_dir, "owned2", "ada@example.org")
    at = _app(make_app, run_id, "bob@example.org").run()
    at.toggle(key=f"draft-edit-{run_id}").set_value(True).run()
    at.text_area(key=f"draft-text-{run_id}").input(DRAFT + "\nBob was here.\n").run()
    next(b for b in at.button if b.label == "Save").click().run()
    assert [v.note for v in RunStore(data_dir / "runs.sqlite").draft_versions(run_id)] == ["Writer's draft", "Edited"]
    assert "Revise draft" in _labels(at)


def test_a_visitor_cannot_start_a_run(make_app, data_dir) -> None:
    at = _app(make_app).run()
    at.text_area(key="topic").input("How do heat pumps work?").run()
    at.text_input(key="alloc_notation").input("100").run()
    next(b for b in at.button if b.label == "Run research").click().run()
    assert not at.exception
    assert RunStore(data_dir / "runs.sqlite").list_runs() == []
    assert any("Sign in to start runs" in t for t in texts(at))


def _history_delete_offered(make_app, user: str) -> tuple[bool, object]:
    at = _app(make_app, user=user).run().switch_page("pages/history.py").run()
    at.session_state["history-table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    return "Delete permanently" in _labels(at), at


def test_only_the_owner_or_an_admin_deletes(make_app, data_dir, monkeypatch) -> None:
    run_id = _run(data_dir, "owned3", "ada@example.org")
    monkeypatch.setenv("RESEARCH_ADMINS", "Boss@Example.org, other@example.org")
    offered, at = _history_delete_offered(make_app, "mallory@example.org")
    assert not offered and any("Only the run's owner" in t for t in texts(at))
    offered, at = _history_delete_offered(make_app, "boss@example.org")
    assert offered
    offered, at = _history_delete_offered(make_app, "ada@example.org")
    next(b for b in at.button if b.label == "Delete permanently").click().run()
    assert RunStore(data_dir / "runs.sqlite").get_run(run_id) is None


def test_the_daily_model_call_cap_refuses_a_new_run(make_app, data_dir, monkeypatch) -> None:
    run_id = _run(data_dir, "owned4", "ada@example.org")
    store = RunStore(data_dir / "runs.sqlite")
    seq = store.last_seq(run_id)
    store.append_event(
        Event(type="usage", run_id=run_id, seq=seq + 1, ts=time.time(), data={"node": "writer", "calls": 30})
    )
    monkeypatch.setenv("RESEARCH_USER_DAILY_LLM_CALLS", "30")
    monkeypatch.setenv("RESEARCH_LLM", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # never asked: the start is refused first
    at = _app(make_app, user="ada@example.org").run()
    at.text_area(key="topic").input("How do heat pumps work?").run()
    at.text_input(key="alloc_notation").input("100").run()
    next(b for b in at.button if b.label == "Run research").click().run()
    assert not at.exception
    assert [r.run_id for r in store.list_runs()] == [run_id]
    assert any("daily model-call cap is reached (30 of 30" in t for t in texts(at))
    assert store.model_calls_by("ada@example.org", time.time() - 86400) == 30
    assert store.model_calls_by("bob@example.org", time.time() - 86400) == 0
    assert store.model_calls_by("ada@example.org", time.time() + 10) == 0  # yesterday's calls do not count
