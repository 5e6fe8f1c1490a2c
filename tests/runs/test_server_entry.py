"""The server's entry points (langgraph.json): its checkpointer masks secrets and loads the project's
types under strict msgpack, its graph wires the worker event log, and its runs log as in-process
ones do (each line names its run, never its topic)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict

from research import logging_setup
from research.runs import server
from research.runs.remote import thread_id_of
from research.runs.worker_log import worker_event_log
from research.schemas.state_shapes import Source
from research.settings import get_settings

SECRET = "tvly-server-secret-0123456789abcdef"
TOPIC = "Quetzalcoatlus wingspan estimates in pterosaur research"


class _State(TypedDict):
    topic: str
    sources: list[Source]


@pytest.fixture
def server_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESEARCH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TAVILY_API_KEY", SECRET)
    get_settings.cache_clear()
    yield tmp_path
    get_settings.cache_clear()


def test_the_server_checkpointer_masks_secrets_and_reads_the_project_types_back(server_settings: Path) -> None:
    async def run() -> _State:
        async with server.checkpointer() as saver:
            builder = StateGraph(_State)
            builder.add_node(
                "find",
                lambda s: {
                    "sources": [Source(id="s1", title="T", url="https://x.org", kind="web", provider="wikipedia")]
                },
            )
            builder.add_edge(START, "find")
            graph = builder.compile(checkpointer=saver)
            config = {"configurable": {"thread_id": "t1"}}
            await graph.ainvoke({"topic": f"why {SECRET} leaks", "sources": []}, config)
            return (await graph.aget_state(config)).values  # type: ignore[return-value]

    # A thread of its own: a browser test earlier in the session may leave this thread's loop running.
    with ThreadPoolExecutor(1) as pool:
        values = pool.submit(asyncio.run, run()).result()
    assert isinstance(values["sources"][0], Source)  # a project type, on the serializer's allow-list
    assert values["topic"] == "why " + "*" * len(SECRET) + " leaks"
    db = sqlite3.connect(server_settings / "server-checkpoints.sqlite")
    blobs = [row[0] for row in db.execute("SELECT checkpoint FROM checkpoints")]
    blobs += [row[0] for row in db.execute("SELECT value FROM writes")]
    assert blobs and all(SECRET.encode() not in bytes(blob) for blob in blobs)


def test_the_server_graph_registers_the_worker_event_log() -> None:
    server.make_graph()
    assert server.services().event_log is worker_event_log


def test_strict_msgpack_is_refused_at_load_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGGRAPH_STRICT_MSGPACK", "true")
    with pytest.raises(RuntimeError, match="Unset LANGGRAPH_STRICT_MSGPACK"):
        server.make_graph()


@pytest.fixture
def worker_logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A server worker's environment (offline, the sample library, its own log dir) and a fresh
    registry; the log handler its registry adds is removed afterwards."""
    monkeypatch.setenv("RESEARCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RESEARCH_LOG_DIR", str(tmp_path / "logs"))
    monkeypatch.setenv("RESEARCH_SOURCES", "library")
    monkeypatch.setenv("RESEARCH_LLM", "offline")
    research_logger = logging.getLogger("research")
    handlers, configured = list(research_logger.handlers), set(logging_setup._configured)
    server.services.cache_clear()
    yield tmp_path / "logs"
    server.services.cache_clear()
    for handler in research_logger.handlers[:]:
        if handler not in handlers:
            research_logger.removeHandler(handler)
            handler.close()
    for path in set(logging_setup._configured) - configured:
        logging_setup._configured.pop(path, None)


def test_a_server_run_logs_each_line_with_its_run_id_and_never_its_topic(worker_logs: Path) -> None:
    """The graph of langgraph.json, run as `langgraph dev` runs it: its factory called for the run on
    the event loop, where the in-memory server refuses blocking calls (its own blockbuster setup),
    then the run async, the run's JSON spec as its context, the remote manager's input
    (research/runs/remote.py)."""
    # The in-memory server's (langgraph-cli[inmem], in the dev requirements); private, hence the skip.
    inmem = pytest.importorskip("langgraph_runtime_inmem.queue")
    run_id = "5e1f0a2b9c3d"
    initial = {"run_id": run_id, "topic": TOPIC, "requested_allocation": "111", "max_iterations": 0}
    context = {"run_id": run_id, "brain": "offline", "sources": "library"}

    async def run() -> dict[str, object]:
        blocking_refused = inmem._enable_blockbuster()
        try:
            graph = server.make_graph()  # langgraph-api calls the factory for each run
            config = {"configurable": {"thread_id": thread_id_of(run_id)}}
            return await graph.ainvoke(initial, config, context=context)  # type: ignore[arg-type]
        finally:
            blocking_refused.deactivate()

    with ThreadPoolExecutor(1) as pool:  # a thread of its own, as above
        state = pool.submit(asyncio.run, run()).result()
    assert state["draft"]  # the run went through every node
    lines = (worker_logs / "multiagent.log").read_text(encoding="utf-8").splitlines()
    assert any("Supervisor decision" in line for line in lines) and any("Writer:" in line for line in lines)
    assert all(f"run={run_id}:" in line for line in lines), [line for line in lines if f"run={run_id}:" not in line]
    assert "<topic>" in "\n".join(lines)  # the questions name the topic: masked
    assert not [line for line in lines if TOPIC.lower() in line.lower() or "Quetzalcoatlus" in line]
