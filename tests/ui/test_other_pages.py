"""History, Library and Settings pages."""

from __future__ import annotations

import time

from research.api import RunStore
from tests.ui.canned import store_canned_run
from tests.ui.conftest import has_block, plain, texts


def _history(make_app):
    at = make_app().run()
    return at.switch_page("pages/history.py").run()


def test_history_lists_runs_and_opens_one_with_its_latest_draft(make_app, data_dir):
    run_id = store_canned_run(data_dir, "Canned history topic")
    RunStore(data_dir / "runs.sqlite").save_draft_version(run_id, "# Edited later\n\nNew text.\n", note="Edited")
    at = _history(make_app)
    table = at.dataframe[0].value
    assert list(table["Topic"]) == ["Canned history topic"]
    assert table.iloc[0][["Allocation", "Origin", "Status", "Sources"]].tolist() == ["210", "user", "finished", 4]
    at.session_state["history-table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert has_block(at, "researcher-card-book-1-r1")
    assert "New text." in at.container(key=f"draft-body-{run_id}").markdown[0].value


def test_history_deletes_a_run(make_app, data_dir):
    run_id = store_canned_run(data_dir)
    at = _history(make_app)
    at.session_state["history-table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    next(b for b in at.button if b.label == "Delete permanently").click().run()
    assert RunStore(data_dir / "runs.sqlite").get_run(run_id) is None
    assert any("No runs yet" in t for t in texts(at))


def test_library_counts_search_and_upload_with_reasons(make_app, data_dir):
    at = make_app().run().switch_page("pages/library.py").run()
    counts = {plain(m.label): m.value for m in at.metric}
    web_before = int(counts[":material/public: Web"])
    assert web_before > 0 and int(counts[":material/functions: Total"]) >= web_before
    search = next(t for t in at.text_input if t.label == "Search the library")
    search.input("lipid nanoparticles").run()
    assert any("Lipid Nanoparticle" in title for title in at.dataframe[0].value["Title"])
    uploader = at.file_uploader[0]
    uploader.set_value(
        [
            (
                "field-notes.md",
                b"# Field notes on tidal energy\n\nTidal turbines in the Pentland Firth.",
                "text/markdown",
            ),
            ("tool.exe", b"MZ\x90\x00binary", "application/octet-stream"),
            ("empty.txt", b"   ", "text/plain"),
        ]
    )
    at.form_submit_button[0].click().run()
    assert any("Imported: Field notes on tidal energy" in plain(s.value) for s in at.success)
    errors = [plain(e.value) for e in at.error]
    assert any(e.startswith("tool.exe was not imported: unsupported file type (.exe)") for e in errors)
    assert any(e.startswith("empty.txt was not imported: the file is empty") for e in errors)
    counts = {plain(m.label): m.value for m in at.metric}
    assert int(counts[":material/public: Web"]) == web_before + 1


def test_settings_page_says_which_keys_are_set_but_never_shows_them(make_app, data_dir, monkeypatch):
    secret = "sk-test-9f8e7d6c5b4a-never-show"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    at = make_app().run().switch_page("pages/settings.py").run()
    keys = at.dataframe[0].value
    assert dict(zip(keys["Key"], keys["Configured"], strict=False)) == {
        "OpenAI API key": "yes",
        "OpenAI base URL": "no",
        "Tavily API key": "no",
        "GitHub token": "no",
    }
    limits = at.dataframe[1].value
    shown = dict(zip(limits["Setting"], limits["Value"], strict=False))
    assert shown["Data directory"] == str(data_dir.resolve())
    assert shown["Revision cap (analyst rounds)"] == "2" and shown["Researcher cap (per run)"] == "3"
    everything = "\n".join(texts(at)) + "".join(d.value.to_csv() for d in at.dataframe)
    assert secret not in everything
    assert any(b.label == "Check connections" for b in at.button)


def test_history_names_each_allocation_origin_truthfully(make_app, data_dir):
    store = RunStore(data_dir / "runs.sqlite")
    for origin in ("user", "llm", "offline", "default"):
        run_id = store_canned_run(data_dir, f"Origin {origin}")
        store.update_run(run_id, allocation_origin=origin)
        time.sleep(0.002)  # canned ids come from the clock
    table = _history(make_app).dataframe[0].value
    origins = dict(zip(table["Topic"], table["Origin"], strict=False))
    assert origins == {
        "Origin user": "user",
        "Origin llm": "model",
        "Origin offline": "offline classifier",
        "Origin default": "default",
    }
