"""The checkpointer stores a channel's value once per version (research/runs/blob_saver.py), and
still reads, and continues, threads that LangGraph's SqliteSaver wrote with every value inline."""

from __future__ import annotations

import operator
import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from research.runs.blob_saver import BlobSqliteSaver

MARKER = "big-value-marker"
BIG = MARKER + " filler" * 20_000  # about 140 KB: a source list's worth


class Steps(TypedDict, total=False):
    big: str
    count: int
    trail: Annotated[list[str], operator.add]


def _graph():
    builder = StateGraph(Steps)
    builder.add_node("load", lambda s: {"big": BIG, "count": 1, "trail": ["load"]})
    for name in ("a", "b", "c", "d"):
        builder.add_node(name, lambda s, name=name: {"count": s["count"] + 1, "trail": [name]})
    builder.add_edge(START, "load")
    for first, then in (("load", "a"), ("a", "b"), ("b", "c"), ("c", "d")):
        builder.add_edge(first, then)
    builder.add_edge("d", END)
    return builder


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, check_same_thread=False)


def _rows(conn: sqlite3.Connection, sql: str) -> list[bytes]:
    return [bytes(row[0]) for row in conn.execute(sql) if row[0] is not None]


CONFIG = {"configurable": {"thread_id": "t1"}}
FINAL = {"big": BIG, "count": 5, "trail": ["load", "a", "b", "c", "d"]}


def test_a_step_stores_only_what_it_changed(tmp_path: Path) -> None:
    conn = _connect(tmp_path / "checkpoints.sqlite")
    graph = _graph().compile(checkpointer=BlobSqliteSaver(conn))
    assert graph.invoke({}, CONFIG) == FINAL

    checkpoints = _rows(conn, "SELECT checkpoint FROM checkpoints")
    assert len(checkpoints) >= 6  # the input and one per node
    assert not [c for c in checkpoints if MARKER.encode() in c]  # no checkpoint row repeats the value
    big = _rows(conn, "SELECT blob FROM checkpoint_blobs WHERE channel = 'big'")
    assert len(big) == 1 and MARKER.encode() in big[0]  # written once: no later step changed it
    total = sum(len(b) for b in _rows(conn, "SELECT blob FROM checkpoint_blobs")) + sum(map(len, checkpoints))
    assert total < 2 * len(BIG)  # SqliteSaver wrote it into every checkpoint after the first node

    # Read back through a new saver: the latest state and every listed checkpoint, joined again.
    again = _graph().compile(checkpointer=BlobSqliteSaver(conn))
    assert again.get_state(CONFIG).values == FINAL
    history = list(again.get_state_history(CONFIG))
    assert [s.values.get("count") for s in history] == [5, 4, 3, 2, 1, None, None]
    assert all(s.values["big"] == BIG for s in history if s.values.get("count"))


def test_a_thread_sqlite_saver_started_reads_and_continues(tmp_path: Path) -> None:
    """Interrupted under the old saver (every value inline), continued under this one: the
    channels the continuation leaves alone (`big`) still read, from the old row's values."""
    conn = _connect(tmp_path / "checkpoints.sqlite")
    old = _graph().compile(checkpointer=SqliteSaver(conn), interrupt_before=["c"])
    old.invoke({}, CONFIG)
    assert old.get_state(CONFIG).next == ("c",)

    new = _graph().compile(checkpointer=BlobSqliteSaver(conn))
    assert new.get_state(CONFIG).values["count"] == 3  # an old checkpoint reads as it was
    assert new.invoke(None, CONFIG) == FINAL

    fresh = _graph().compile(checkpointer=BlobSqliteSaver(conn))
    assert fresh.get_state(CONFIG).values == FINAL


def test_deleting_a_thread_deletes_its_values(tmp_path: Path) -> None:
    conn = _connect(tmp_path / "checkpoints.sqlite")
    saver = BlobSqliteSaver(conn)
    graph = _graph().compile(checkpointer=saver)
    graph.invoke({}, CONFIG)
    graph.invoke({}, {"configurable": {"thread_id": "kept"}})

    saver.delete_thread("t1")
    assert saver.get_tuple(CONFIG) is None
    threads = {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoint_blobs")}
    assert threads == {"kept"}
    assert graph.get_state({"configurable": {"thread_id": "kept"}}).values == FINAL


@pytest.mark.parametrize("saver_class", [SqliteSaver, BlobSqliteSaver])
def test_both_savers_read_the_same_state(tmp_path: Path, saver_class: type[SqliteSaver]) -> None:
    """The contract the runner relies on, whichever saver wrote the thread."""
    conn = _connect(tmp_path / "checkpoints.sqlite")
    graph = _graph().compile(checkpointer=saver_class(conn))
    graph.invoke({}, CONFIG)
    assert _graph().compile(checkpointer=BlobSqliteSaver(conn)).get_state(CONFIG).values == FINAL
