"""Issue 12 on the Research page: run options that change only the next run (a configured model
server chosen per run, revision rounds), and live model progress on a researcher card and the
draft panel while a run is still streaming."""

from __future__ import annotations

import time
from pathlib import Path

from research.api import Event, RunStore
from tests.fakes.openai_server import FakeOpenAIServer
from tests.ui.conftest import has_block, texts
from tests.ui.test_run_lifecycle import _run_id, _wait_finished
from ui.run_options import OFFLINE_CAPTION


def test_run_options_switch_one_run_to_a_model_server_and_set_its_rounds(make_app, data_dir, monkeypatch):
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("RESEARCH_OPENAI_BASE_URL", server.base_url)  # configured, but the default is offline
        at = make_app().run()
        at.text_area(key="topic").input("How do mRNA vaccines work?").run()
        at.text_input(key="alloc_notation").input("100").run()
        at.radio(key="opt_brain").set_value("openai").run()
        at.text_input(key="opt_model").input("local-llama").run()
        at.number_input(key="opt_rounds").set_value(0).run()
        next(b for b in at.button if b.label == "Run research").click().run()
        run_id = _run_id(at)
        _wait_finished(data_dir, run_id, timeout=60)

        [started] = [e for e in RunStore(data_dir / "runs.sqlite").events(run_id) if e.type == "run_started"]
        assert started.data.brain == "openai" and started.data.model == "local-llama"
        assert started.data.max_iterations == 0
        assert server.requests and {r["model"] for r in server.requests} == {"local-llama"}


def test_the_model_fields_are_disabled_and_say_why_while_the_brain_is_offline(make_app, monkeypatch):
    with FakeOpenAIServer() as server:
        monkeypatch.setenv("RESEARCH_OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("RESEARCH_LLM", "auto")  # a model is configured: auto stands for it
        at = make_app().run()
        assert not at.text_input(key="opt_model").disabled and OFFLINE_CAPTION not in texts(at)
        at.radio(key="opt_brain").set_value("offline").run()
        assert at.text_input(key="opt_model").disabled and at.text_input(key="opt_fast_model").disabled
        assert OFFLINE_CAPTION in texts(at)
        at.radio(key="opt_brain").set_value("openai").run()
        assert not at.text_input(key="opt_model").disabled and not at.text_input(key="opt_fast_model").disabled
        assert OFFLINE_CAPTION not in texts(at)


def test_with_no_model_configured_auto_is_offline_and_so_are_the_model_fields(make_app, monkeypatch):
    monkeypatch.setenv("RESEARCH_LLM", "auto")
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "RESEARCH_OPENAI_BASE_URL", "RESEARCH_OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    at = make_app().run()
    assert at.text_input(key="opt_model").disabled and OFFLINE_CAPTION in texts(at)


def test_options_left_alone_send_nothing_and_keep_the_settings(make_app, data_dir):
    at = make_app().run()
    at.text_area(key="topic").input("How do mRNA vaccines work?").run()
    at.text_input(key="alloc_notation").input("100").run()
    next(b for b in at.button if b.label == "Run research").click().run()
    run_id = _run_id(at)
    _wait_finished(data_dir, run_id)
    [started] = [e for e in RunStore(data_dir / "runs.sqlite").events(run_id) if e.type == "run_started"]
    assert started.data.brain == "offline" and started.data.source_mode == "library"


def _streaming_run(data_dir: Path) -> str:
    store = RunStore(data_dir / "runs.sqlite")
    run_id = "streaming01"
    store.create_run(run_id, "Canned topic", "100", "local-llama")
    now = time.time()
    events = [
        (
            "run_started",
            None,
            dict(
                topic="Canned topic",
                allocation_request="100",
                brain="openai",
                model="local-llama",
                source_mode="library",
                max_iterations=0,
            ),
        ),
        ("researcher_started", "web-1", dict(kind="web", question="How do they work?", angle="", iteration=0)),
        (
            "model_progress",
            "web-1",
            dict(node="researcher", step="notes", model="local-llama", tokens=120, seconds=3.0, done=False),
        ),
        (
            "model_progress",
            None,
            dict(node="writer", step="write", model="local-llama", tokens=42, seconds=2.0, done=False),
        ),
        ("draft_delta", None, dict(text="# Canned topic\n\nLipid nanoparticles [1] ", chars=40)),
        ("draft_delta", None, dict(text="carry ![x](https://evil.example/pixel.png) mRNA.", chars=88)),
    ]
    for seq, (type_, rid, data) in enumerate(events, 1):
        store.append_event(Event(type=type_, run_id=run_id, seq=seq, ts=now, researcher_id=rid, data=data))
    return run_id


def test_a_streaming_run_shows_tokens_on_the_card_and_the_draft_as_it_is_written(make_app, data_dir):
    run_id = _streaming_run(data_dir)
    at = make_app(run_id).run()
    page = "\n".join(texts(at))
    assert "writing notes, 120 tokens" in page
    assert "The writer is writing… 42 tokens so far" in page
    assert has_block(at, f"draft-preview-{run_id}")
    preview = [m.value for m in at.markdown if "Lipid nanoparticles" in m.value]
    assert preview and "![x](" not in preview[0]  # unchecked model text is shown literally: no remote image


def test_choosing_a_model_brain_with_no_model_configured_says_so_and_starts_nothing(make_app, data_dir):
    at = make_app().run()
    at.text_area(key="topic").input("How do mRNA vaccines work?").run()
    at.text_input(key="alloc_notation").input("100").run()
    at.radio(key="opt_brain").set_value("openai").run()
    errors = [e.value for e in at.error]
    assert any("No model: a model brain needs OPENAI_API_KEY or OPENAI_BASE_URL" in e for e in errors), errors
    next(b for b in at.button if b.label == "Run research").click().run()
    assert any("Could not start the run" in e.value for e in at.error)
    assert RunStore(data_dir / "runs.sqlite").list_runs() == []
