"""A key echoed by a model server is masked before it is stored: not in the event
log, draft versions or page texts, so not in CLI JSON, Markdown/DOCX exports or bundles."""

from __future__ import annotations

import gzip
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import docx
from pydantic import BaseModel

from research.export.run_export import export_run
from research.runs.bundle import export_bundle
from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.runs.view import fold, to_json
from research.schemas.state_shapes import ResearchRequest
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel
from tests.settings_presets import loopback_llm_settings

KEY = "sk-echoedKEY-9f8e7d6c5b4a"
TAVILY = "tvly-echoed-tavily-0a1b2c3d"


def _echo(value: Any) -> Any:
    """The reply with the caller's keys in every prose string (as a server that echoes would)."""
    if isinstance(value, BaseModel):
        return _echo(value.model_dump())
    if isinstance(value, str):
        return f"{value} (key {KEY}, {TAVILY})" if len(value) > 40 else value
    if isinstance(value, list):
        return [_echo(v) for v in value]
    if isinstance(value, dict):
        return {k: _echo(v) for k, v in value.items()}
    return value


def test_a_key_in_model_replies_never_reaches_the_store_or_its_outputs(tmp_path: Path) -> None:
    scripted = ScriptedModel(approve_from_round=1)
    with FakeOpenAIServer(responder=lambda request: _echo(scripted(request))) as server:
        settings = loopback_llm_settings(
            server.base_url,
            data_dir=tmp_path / "data",
            log_dir=tmp_path / "logs",
            model="fake",
            openai_api_key=KEY,
            tavily_api_key=TAVILY,
        )
        runner = ResearchRunner(settings)
        run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100"))
    assert server.stats.calls > 0
    with sqlite3.connect(settings.runs_db) as db:
        rows = db.execute("SELECT body FROM events UNION ALL SELECT markdown FROM drafts").fetchall()
        rows += db.execute("SELECT text FROM source_texts").fetchall()
    stored = " ".join(r[0] for r in rows)
    assert "key ***" in stored  # the echo was there, and is masked
    assert KEY not in stored and TAVILY not in stored
    view = fold(runner.store.events(run_id))
    assert view.draft
    outputs = [json.dumps(to_json(view)), gzip.decompress(export_bundle(runner.store, run_id)).decode()]
    outputs.append(export_run(runner.store, run_id, "md").data.decode())
    document = docx.Document(io.BytesIO(export_run(runner.store, run_id, "docx").data))
    outputs.append("\n".join(p.text for p in document.paragraphs))
    for text in outputs:
        assert KEY not in text and TAVILY not in text


def test_masking_is_value_by_value_and_keeps_the_log_readable(tmp_path: Path) -> None:
    """A secret that is also JSON syntax (`true`, a quote) is masked in values, never breaking a body."""
    from research.events import Event

    store = RunStore(tmp_path / "runs.sqlite")
    store.mask_secrets(["true", 'se"cret'])
    store.create_run("r1", "t", None, "offline")
    store.append_event(
        Event(type="message", run_id="r1", seq=1, data={"content": 'it is true that se"cret leaked', "name": "x"})
    )
    [event] = store.events("r1")
    assert event.type == "message" and event.data.content == "it is *** that *** leaked"
    store.save_draft_version("r1", "the draft says true")
    assert store.latest_draft("r1").markdown == "the draft says ***"
