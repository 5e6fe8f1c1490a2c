"""Shared runs: with RESEARCH_DATABASE_URL the run store and the in-process
checkpoints live in Postgres (a throwaway cluster), nothing in the data dir's SQLite files; a run
killed mid-way resumes from its Postgres checkpoint; secret masking holds in Postgres checkpoints."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.helpers import PYTHON, cli_env, run_cli
from tests.runs.interrupted_run import KILLED
from tests.runs.test_resume import assert_complete_log

KEY = "tvly-SHARED-0123456789abcdef"


def _settings(tmp_path: Path, log_dir: Path, url: str, **extra) -> Settings:
    return Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        log_dir=log_dir,
        sources="library",
        llm="offline",
        database_url=url,
        **extra,
    )


def test_an_in_process_run_keeps_runs_events_and_checkpoints_in_postgres(
    tmp_path: Path, session_log_dir: Path, pg_url: str
) -> None:
    runner = ResearchRunner(_settings(tmp_path, session_log_dir, pg_url))
    assert runner.store.dialect == "postgres"
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="110", max_iterations=0))

    shared = RunStore(pg_url)  # what another replica sees
    assert shared.get_run(run_id).status == "finished"
    types = Counter(e.type for e in shared.events(run_id))
    assert types["run_started"] == 1 and types["run_finished"] == 1 and types["draft_ready"] == 1
    assert shared.latest_draft(run_id).note == "Writer's draft" and shared.get_lease(run_id) is None
    with psycopg.connect(pg_url) as conn:
        checkpoints = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (run_id,)).fetchone()[0]
    assert checkpoints > 0
    assert not (tmp_path / "data" / "runs.sqlite").exists() and not (tmp_path / "data" / "checkpoints.sqlite").exists()


def test_a_run_killed_mid_research_resumes_from_its_postgres_checkpoint(tmp_path: Path, pg_url: str) -> None:
    env = cli_env(tmp_path, RESEARCH_DATABASE_URL=pg_url)
    proc = subprocess.run(
        [PYTHON, "-m", "tests.runs.interrupted_run", str(tmp_path / "data"), "analyst"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == KILLED, proc.stderr
    run_id = proc.stdout.split()[0]
    store = RunStore(pg_url)
    assert store.get_run(run_id).status == "running"

    result = run_cli(["resume", run_id, "--json"], tmp_path, RESEARCH_DATABASE_URL=pg_url)

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "finished"
    events = assert_complete_log(store, run_id)
    started = Counter(e.researcher_id for e in events if e.type == "researcher_started")
    assert started["web-1"] == 1 and started["academic-1"] == 1  # finished work not redone
    assert any(e.type == "warning" and "Resumed" in e.data.message for e in events)


class _S(TypedDict):
    x: str


def test_postgres_checkpoints_mask_a_secret_echoed_in_a_task_error(
    tmp_path: Path, session_log_dir: Path, pg_url: str
) -> None:
    settings = _settings(tmp_path, session_log_dir, pg_url, tavily_api_key=KEY)
    runner = ResearchRunner(settings)

    def leaky(state: _S) -> _S:
        raise ValueError(f"provider refused key {KEY}")

    builder = StateGraph(_S)
    builder.add_node("leaky", leaky)
    builder.add_edge(START, "leaky")
    builder.add_edge("leaky", END)
    with runner.checkpointer() as saver:
        graph = builder.compile(checkpointer=saver)
        with pytest.raises(ValueError):
            graph.invoke({"x": "go"}, {"configurable": {"thread_id": "leak"}})
    with psycopg.connect(pg_url) as conn:
        blobs = [bytes(r[0]) for r in conn.execute("SELECT blob FROM checkpoint_writes WHERE thread_id = 'leak'")]
        dumped = conn.execute("SELECT string_agg(checkpoint::text, '') FROM checkpoints").fetchone()[0] or ""
    assert blobs and any(b"provider refused key" in b for b in blobs)  # the error was checkpointed...
    assert not any(KEY.encode() in b for b in blobs) and KEY not in dumped  # ...with the key masked
    assert any(b"*" * len(KEY) in b for b in blobs)


def test_postgres_checkpoints_mask_a_secret_in_a_plain_string_channel(
    tmp_path: Path, session_log_dir: Path, pg_url: str
) -> None:
    # The saver keeps str channels inline in the checkpoint's JSONB, outside the serializer.
    settings = _settings(tmp_path, session_log_dir, pg_url, tavily_api_key=KEY)
    builder = StateGraph(_S)
    builder.add_node("echo", lambda state: {"x": f"{state['x']} (seen)"})
    builder.add_edge(START, "echo")
    builder.add_edge("echo", END)
    with ResearchRunner(settings).checkpointer() as saver:
        graph = builder.compile(checkpointer=saver)
        graph.invoke({"x": f"a topic quoting {KEY}"}, {"configurable": {"thread_id": "inline"}})
        values = graph.get_state({"configurable": {"thread_id": "inline"}}).values
    with psycopg.connect(pg_url) as conn:
        rows = conn.execute("SELECT checkpoint::text FROM checkpoints WHERE thread_id = 'inline'").fetchall()
    assert rows and not [r for r in rows if KEY in r[0]]
    assert any("a topic quoting ***" in r[0] for r in rows)
    assert values["x"] == "a topic quoting *** (seen)"  # what a resumed run reads back


def test_an_unreachable_database_url_is_one_clear_cli_line(tmp_path: Path) -> None:
    from tests.fakes.postgres import free_port

    result = run_cli(
        ["runs"], tmp_path, RESEARCH_DATABASE_URL=f"postgresql://u:pw-secret-123@127.0.0.1:{free_port()}/x"
    )
    assert result.returncode == 1
    assert result.stderr.startswith("error: cannot reach the run database postgresql://u:****@127.0.0.1")
    assert "pw-secret-123" not in result.stderr and "Traceback" not in result.stderr
