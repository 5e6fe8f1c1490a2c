"""The server's entry points (langgraph.json): its checkpointer masks secrets and loads the project's
types under strict msgpack, and its graph wires the worker event log."""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict

from research.runs import server
from research.runs.worker_log import worker_event_log
from research.schemas.state_shapes import Source
from research.settings import get_settings

SECRET = "tvly-server-secret-0123456789abcdef"


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
