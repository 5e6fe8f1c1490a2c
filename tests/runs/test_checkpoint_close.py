"""A run's checkpoint connection is closed off the run's thread: closing the last connection copies
SQLite's WAL into the database file, which a finished run need not wait for. Shown by state: the
context exits while the close is still held, and the close then runs, on another thread."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from research.runs import checkpoints
from research.settings import Settings


class HeldClose(sqlite3.Connection):
    release = threading.Event()
    closed = threading.Event()
    closed_on: list[str] = []

    def close(self) -> None:
        assert HeldClose.release.wait(timeout=60), "the test never released the close"
        HeldClose.closed_on.append(threading.current_thread().name)
        super().close()
        HeldClose.closed.set()


def test_the_checkpoint_connection_closes_after_the_run_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    connect = sqlite3.connect

    def held(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        return connect(*args, factory=HeldClose, **kwargs)

    monkeypatch.setattr(checkpoints.sqlite3, "connect", held)
    settings = Settings(_env_file=None, data_dir=tmp_path)
    with checkpoints.open_checkpointer(settings) as saver:
        assert saver.get_tuple({"configurable": {"thread_id": "run-1"}}) is None
    # Back here while the close waits: the caller did not close the connection itself.
    assert not HeldClose.closed.is_set()
    HeldClose.release.set()
    assert HeldClose.closed.wait(timeout=60)
    assert HeldClose.closed_on and HeldClose.closed_on[0] != threading.current_thread().name
    assert HeldClose.closed_on[0].startswith("checkpoint-close")
