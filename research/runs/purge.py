"""Deleting a run for good: its record, events, drafts, stored page texts and lease in the run store
(the model calls it spent stay in the daily cap's ledger, a count and a user, until they are a day
old: deleting a run gives back no calls), and its checkpoints (every step's state: the topic, notes,
drafts) in the checkpointer, SQLite or Postgres. A SQLite file overwrites what it frees
(secure_delete) and its write-ahead log is emptied, so the deleted text is not left readable in the
file either."""

from __future__ import annotations

import sqlite3

from langgraph.checkpoint.sqlite import SqliteSaver

from research.runs.checkpoints import open_checkpointer
from research.runs.store import RunStore
from research.settings import Settings


def delete_run_everywhere(store: RunStore, settings: Settings, run_id: str) -> None:
    """Delete the run's checkpoints, then its store rows (a failure leaves it listed, to retry)."""
    with open_checkpointer(settings) as saver:
        if isinstance(saver, SqliteSaver):
            saver.conn.execute("PRAGMA secure_delete=ON")
        saver.delete_thread(run_id)
        if isinstance(saver, SqliteSaver):
            _empty_wal(saver.conn)
    store.delete_run(run_id)


def _empty_wal(conn: sqlite3.Connection) -> None:
    # Frames written before the delete still hold the old pages until the log is checkpointed away.
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
