"""The run store (SQLite): runs, their event logs, draft versions and source page text.

Every view the dashboard offers (live, history, replay, compare) reads from here, so nothing a user
saw is lost when the process exits. One short-lived connection per operation keeps it safe to use
from the run threads and the Streamlit script thread at once (WAL mode).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from research.events import Event
from research.events.status import RunStatus

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    topic TEXT NOT NULL,
    requested_allocation TEXT,
    allocation TEXT,
    allocation_origin TEXT,
    brain TEXT,
    status TEXT NOT NULL,
    created_at REAL NOT NULL,
    finished_at REAL,
    source_count INTEGER DEFAULT 0,
    error TEXT,
    summary TEXT
);
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ts REAL NOT NULL,
    type TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS drafts (
    run_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at REAL NOT NULL,
    note TEXT,
    markdown TEXT NOT NULL,
    PRIMARY KEY (run_id, version)
);
CREATE TABLE IF NOT EXISTS source_texts (
    run_id TEXT NOT NULL,
    source_id TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (run_id, source_id)
);
"""


@dataclass
class RunRecord:
    run_id: str
    topic: str
    status: RunStatus
    created_at: float
    requested_allocation: str | None = None
    allocation: str | None = None
    allocation_origin: str | None = None
    brain: str | None = None
    finished_at: float | None = None
    source_count: int = 0
    error: str | None = None
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def seconds(self) -> float | None:
        return None if self.finished_at is None else self.finished_at - self.created_at


@dataclass
class DraftVersion:
    run_id: str
    version: int
    created_at: float
    note: str
    markdown: str


class RunStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._write_lock = threading.Lock()
        self._local = threading.local()
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection, inside one transaction (committed on success).

        Connections are kept per thread, not opened per operation: closing the last connection to a
        WAL database checkpoints and fsyncs it, which made every event append cost ~20 ms on the
        thread that drives the graph. synchronous=NORMAL is WAL's usual setting: a commit is not
        fsynced (a power cut may lose the last events, never corrupt the log).
        """
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30)
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db  # closed when the thread (or this store) goes away
        with db:
            yield db

    # --- runs -------------------------------------------------------------------------------
    def create_run(self, run_id: str, topic: str, requested_allocation: str | None, brain: str) -> None:
        with self._write_lock, self._connect() as db:
            db.execute(
                "INSERT INTO runs (run_id, topic, requested_allocation, brain, status, created_at)"
                " VALUES (?, ?, ?, ?, 'running', ?)",
                (run_id, topic, requested_allocation, brain, time.time()),
            )

    def update_run(self, run_id: str, **fields: Any) -> None:
        allowed = {"status", "allocation", "allocation_origin", "finished_at", "source_count", "error", "summary", "brain"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"Unknown run fields: {sorted(unknown)}")
        if "summary" in fields:
            fields["summary"] = json.dumps(fields["summary"])
        sets = ", ".join(f"{name} = ?" for name in fields)
        with self._write_lock, self._connect() as db:
            db.execute(f"UPDATE runs SET {sets} WHERE run_id = ?", (*fields.values(), run_id))

    def get_run(self, run_id: str) -> RunRecord | None:
        with self._connect() as db:
            row = db.execute("SELECT * FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return _record(row) if row else None

    def list_runs(self, limit: int = 200) -> list[RunRecord]:
        with self._connect() as db:
            rows = db.execute("SELECT * FROM runs ORDER BY created_at DESC LIMIT ?", (limit,)).fetchall()
        return [_record(row) for row in rows]

    def delete_run(self, run_id: str) -> None:
        with self._write_lock, self._connect() as db:
            for table in ("runs", "events", "drafts", "source_texts"):
                db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))

    # --- events -----------------------------------------------------------------------------
    def append_event(self, event: Event) -> None:
        with self._write_lock, self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO events (run_id, seq, ts, type, body) VALUES (?, ?, ?, ?, ?)",
                (event.run_id, event.seq, event.ts, event.type, event.model_dump_json()),
            )

    def events(self, run_id: str, after_seq: int = 0) -> list[Event]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq", (run_id, after_seq)
            ).fetchall()
        return [Event.model_validate_json(row["body"]) for row in rows]

    def last_seq(self, run_id: str) -> int:
        with self._connect() as db:
            row = db.execute("SELECT MAX(seq) AS seq FROM events WHERE run_id = ?", (run_id,)).fetchone()
        return int(row["seq"] or 0)

    # --- drafts -----------------------------------------------------------------------------
    def save_draft_version(self, run_id: str, markdown: str, note: str = "") -> int:
        with self._write_lock, self._connect() as db:
            row = db.execute("SELECT MAX(version) AS v FROM drafts WHERE run_id = ?", (run_id,)).fetchone()
            version = int(row["v"] or 0) + 1
            db.execute(
                "INSERT INTO drafts (run_id, version, created_at, note, markdown) VALUES (?, ?, ?, ?, ?)",
                (run_id, version, time.time(), note, markdown),
            )
        return version

    def draft_versions(self, run_id: str) -> list[DraftVersion]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT * FROM drafts WHERE run_id = ? ORDER BY version", (run_id,)
            ).fetchall()
        return [DraftVersion(r["run_id"], r["version"], r["created_at"], r["note"] or "", r["markdown"]) for r in rows]

    def latest_draft(self, run_id: str) -> DraftVersion | None:
        versions = self.draft_versions(run_id)
        return versions[-1] if versions else None

    # --- source text (kept out of graph state and checkpoints) --------------------------------
    def put_texts(self, run_id: str, texts: dict[str, str]) -> None:
        if not texts:
            return
        with self._write_lock, self._connect() as db:
            db.executemany(
                "INSERT OR IGNORE INTO source_texts (run_id, source_id, text) VALUES (?, ?, ?)",
                [(run_id, sid, text) for sid, text in texts.items() if text],
            )

    def get_text(self, run_id: str, source_id: str) -> str:
        with self._connect() as db:
            row = db.execute(
                "SELECT text FROM source_texts WHERE run_id = ? AND source_id = ?", (run_id, source_id)
            ).fetchone()
        return row["text"] if row else ""


def _record(row: sqlite3.Row) -> RunRecord:
    return RunRecord(
        run_id=row["run_id"], topic=row["topic"], status=RunStatus(row["status"]), created_at=row["created_at"],
        requested_allocation=row["requested_allocation"], allocation=row["allocation"],
        allocation_origin=row["allocation_origin"], brain=row["brain"], finished_at=row["finished_at"],
        source_count=row["source_count"] or 0, error=row["error"],
        summary=json.loads(row["summary"]) if row["summary"] else {},
    )
