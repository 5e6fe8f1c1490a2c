"""The run store: runs, their event logs, draft versions, source page text, leases and comparisons.

Every view the dashboard offers (live, history, replay, compare) reads from here, so nothing a user
saw is lost when the process exits. SQLite in the data dir by default; Postgres with
RESEARCH_DATABASE_URL, so dashboard replicas share runs (research/runs/sql.py: one SQL for both).
One transaction per operation keeps it safe to use from run threads and the script thread at once.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from research.events import Event
from research.events.status import RunStatus
from research.runs import model_calls
from research.runs.sql import DuplicateKeyError, SqliteDatabase, Tx, open_database
from research.runs.store_rows import mask_tree, read_event, read_status
from research.runs.store_schema import APPEND_EVENT, APPEND_EVENT_WHILE_OPEN, SCHEMA
from research.schemas.bundle_format import RunRecordFields
from research.secrets import MASK

if TYPE_CHECKING:
    import sqlite3

    from research.settings import Settings


class DuplicateEventError(RuntimeError):
    """An event with this run id and sequence number is already logged: another writer is running
    the run (events are never replaced)."""


class RunRecord(RunRecordFields):
    """A run as the store returns it, its status typed."""

    status: RunStatus

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


@dataclass(frozen=True)
class LeaseRecord:
    run_id: str
    owner: str
    heartbeat_at: float
    expires_at: float


@dataclass(frozen=True)
class ComparisonRecord:
    id: str
    title: str
    run_ids: list[str]
    allocations: list[str]
    created_at: float


class RunStore:
    def __init__(self, target: Path | str) -> None:
        """`target`: a SQLite file path, or a postgresql:// URL (see open_run_store)."""
        self._db = open_database(target)
        self.dialect = self._db.dialect
        self.path = Path(target) if self.dialect == "sqlite" else None
        self.label = self._db.label  # for messages: the file, or the URL without its password
        # SQLite has one writer at a time anyway; the lock keeps this process's writers from
        # queueing inside sqlite's busy timeout. Postgres takes concurrent writers itself.
        self._write_lock = threading.Lock() if self.dialect == "sqlite" else _NoLock()
        self._secrets: list[str] = []  # configured secret values, masked in all that is stored
        self._db.create_schema(SCHEMA)
        with self._write_lock, self._connect() as db:
            model_calls.fill_once(db)

    @cached_property
    def store_id(self) -> str:
        """A random id made once per database: two processes with equal ids share one store."""
        with self._write_lock, self._connect() as db:
            db.execute(
                "INSERT INTO store_meta (key, value) VALUES ('store_id', ?) ON CONFLICT (key) DO NOTHING",
                (uuid.uuid4().hex,),
            )
            return str(db.execute("SELECT value FROM store_meta WHERE key = 'store_id'").fetchone()["value"])

    def mask_secrets(self, values: Iterable[str]) -> None:
        """Mask these values (configured keys, URL passwords) in every event, draft and page text
        stored from now on: a model server that echoes a key in its reply must not get it into the
        log, and from there into CLI JSON, exports and bundles."""
        self._secrets = sorted({*self._secrets, *(v for v in values if len(v) >= 4)}, key=len, reverse=True)

    def _mask(self, text: str) -> str:
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def _body(self, event: Event) -> str:
        body = event.model_dump_json()
        if not any(secret in body or json.dumps(secret)[1:-1] in body for secret in self._secrets):
            return body
        # Masked value by value, never on the JSON text (a secret such as `true` must not break it).
        return json.dumps(mask_tree(event.model_dump(mode="json"), self._mask), ensure_ascii=False)

    def _connect(self) -> AbstractContextManager[Tx]:
        return self._db.transaction()

    def close(self) -> None:
        self._db.close()

    # --- runs -------------------------------------------------------------------------------
    def create_run(self, run_id: str, topic: str, requested_allocation: str | None, brain: str) -> None:
        with self._write_lock, self._connect() as db:
            db.execute(
                "INSERT INTO runs (run_id, topic, requested_allocation, brain, status, created_at)"
                " VALUES (?, ?, ?, ?, 'running', ?)",
                (run_id, topic, requested_allocation, brain, time.time()),
            )

    def update_run(self, run_id: str, **fields: Any) -> None:
        allowed = {
            "status",
            "allocation",
            "allocation_origin",
            "finished_at",
            "source_count",
            "error",
            "summary",
            "brain",
        }
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
            for table in ("runs", "events", "drafts", "source_texts", "run_leases", "imported_runs"):
                db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))
            # The calls it spent still count toward the daily cap until they leave its window; the
            # ledger rows of deleted runs that have left it go now (a rare statement: a scan is fine).
            since = time.time() - model_calls.WINDOW_SECONDS
            db.execute("DELETE FROM model_calls WHERE ts < ? AND run_id NOT IN (SELECT run_id FROM runs)", (since,))
        if isinstance(self._db, SqliteDatabase):
            self._db.empty_wal()

    def import_run(
        self, record: RunRecord, events: Sequence[Event], drafts: Sequence[tuple[str, str]], texts: dict[str, str]
    ) -> None:
        """Store a whole run from a bundle in one transaction: an import cut short (killed, disk
        full) leaves nothing, never a half run. `drafts`: (markdown, note), oldest first. Raises
        DuplicateKeyError when the id is taken."""
        with self._write_lock, self._connect() as db:
            db.execute(
                "INSERT INTO runs (run_id, topic, requested_allocation, allocation, allocation_origin, brain,"
                " status, created_at, finished_at, source_count, error, summary)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    *(record.run_id, record.topic, record.requested_allocation, record.allocation),
                    *(record.allocation_origin, record.brain, record.status.value, record.created_at),
                    *(record.finished_at, record.source_count, record.error, json.dumps(record.summary)),
                ),
            )
            db.executemany(
                "INSERT INTO events (run_id, seq, ts, type, body) VALUES (?, ?, ?, ?, ?)",
                [(e.run_id, e.seq, e.ts, e.type, self._body(e)) for e in events],
            )
            model_calls.record_all(db, events)
            db.executemany(
                "INSERT INTO drafts (run_id, version, created_at, note, markdown) VALUES (?, ?, ?, ?, ?)",
                [(record.run_id, n, record.created_at, note, self._mask(md)) for n, (md, note) in enumerate(drafts, 1)],
            )
            db.executemany(
                "INSERT INTO source_texts (run_id, source_id, text) VALUES (?, ?, ?)",
                [(record.run_id, sid, self._mask(text)) for sid, text in texts.items() if text],
            )
            db.execute("INSERT INTO imported_runs (run_id, imported_at) VALUES (?, ?)", (record.run_id, time.time()))

    def is_imported(self, run_id: str) -> bool:
        with self._connect() as db:
            return db.execute("SELECT 1 FROM imported_runs WHERE run_id = ?", (run_id,)).fetchone() is not None

    # --- events -----------------------------------------------------------------------------
    def append_event(self, event: Event, *, while_open: bool = False) -> bool:
        """Log one event; with `while_open` only if the log has no run_finished or run_cancelled yet
        (False if it has). Raises DuplicateEventError if its sequence number is taken: a second
        writer of the same run is refused, never allowed to overwrite the first one's log."""
        row = (event.run_id, event.seq, event.ts, event.type, self._body(event))
        try:
            with self._write_lock, self._connect() as db:
                if while_open:
                    logged = db.execute(APPEND_EVENT_WHILE_OPEN, (*row, event.run_id)).rowcount == 1
                else:
                    logged = db.execute(APPEND_EVENT, row).rowcount == 1
                if logged:
                    model_calls.record(db, event)  # the daily cap's ledger, in the event's own transaction
                return logged
        except DuplicateKeyError:
            raise DuplicateEventError(
                f"run {event.run_id} already has an event #{event.seq}: another process is writing this run"
            ) from None

    def events(self, run_id: str, after_seq: int = 0) -> list[Event]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT run_id, seq, ts, type, body FROM events WHERE run_id = ? AND seq > ? ORDER BY seq",
                (run_id, after_seq),
            ).fetchall()
        return [read_event(row) for row in rows]

    def model_calls_by(self, user: str, since: float, *, excluding: str | None = None) -> int:
        """Model calls made since `since` that count toward `user`'s daily cap, but run `excluding`'s:
        the runs `user` started (less revisions another user spent) and `user`'s revisions of others'.
        Read from the ledger of usage events (research/runs/model_calls.py), an index range of `user`'s."""
        with self._connect() as db:
            return model_calls.calls_by(db, user, since, excluding)

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
                (run_id, version, time.time(), note, self._mask(markdown)),
            )
        return version

    def replace_draft_version(self, run_id: str, version: int, markdown: str, note: str = "") -> int:
        """Write `version` again (a resumed step's draft in place of its interrupted attempt's);
        saved as a new version if that one was never stored."""
        with self._write_lock, self._connect() as db:
            cur = db.execute(
                "UPDATE drafts SET created_at = ?, note = ?, markdown = ? WHERE run_id = ? AND version = ?",
                (time.time(), note, self._mask(markdown), run_id, version),
            )
        return version if cur.rowcount else self.save_draft_version(run_id, markdown, note)

    def draft_versions(self, run_id: str) -> list[DraftVersion]:
        with self._connect() as db:
            rows = db.execute("SELECT * FROM drafts WHERE run_id = ? ORDER BY version", (run_id,)).fetchall()
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
                "INSERT INTO source_texts (run_id, source_id, text) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                [(run_id, sid, self._mask(text)) for sid, text in texts.items() if text],
            )

    def get_text(self, run_id: str, source_id: str) -> str:
        with self._connect() as db:
            row = db.execute(
                "SELECT text FROM source_texts WHERE run_id = ? AND source_id = ?", (run_id, source_id)
            ).fetchone()
        return row["text"] if row else ""

    # --- leases: one runner per run, across processes (research/runs/lease.py) ---------------------
    def acquire_lease(self, run_id: str, owner: str, seconds: float, *, now: float | None = None) -> bool:
        """Take the run's lease if it is free, expired or already ours; atomic in both databases."""
        now = time.time() if now is None else now
        with self._write_lock, self._connect() as db:
            cur = db.execute(
                "INSERT INTO run_leases (run_id, owner, heartbeat_at, expires_at) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner,"
                " heartbeat_at = excluded.heartbeat_at, expires_at = excluded.expires_at"
                " WHERE run_leases.expires_at < ? OR run_leases.owner = excluded.owner",
                (run_id, owner, now, now + seconds, now),
            )
            return cur.rowcount == 1

    def renew_lease(self, run_id: str, owner: str, seconds: float) -> bool:
        """Extend our lease; False if it is no longer ours (taken over after it lapsed)."""
        now = time.time()
        with self._write_lock, self._connect() as db:
            cur = db.execute(
                "UPDATE run_leases SET heartbeat_at = ?, expires_at = ? WHERE run_id = ? AND owner = ?",
                (now, now + seconds, run_id, owner),
            )
            return cur.rowcount == 1

    def release_lease(self, run_id: str, owner: str) -> None:
        """Drop the lease if `owner` holds it (also used to clear a dead owner's lease)."""
        with self._write_lock, self._connect() as db:
            db.execute("DELETE FROM run_leases WHERE run_id = ? AND owner = ?", (run_id, owner))

    def get_lease(self, run_id: str) -> LeaseRecord | None:
        with self._connect() as db:
            row = db.execute(
                "SELECT run_id, owner, heartbeat_at, expires_at FROM run_leases WHERE run_id = ?", (run_id,)
            ).fetchone()
        return LeaseRecord(row["run_id"], row["owner"], row["heartbeat_at"], row["expires_at"]) if row else None

    # --- saved comparisons --------------------------------------------------------------------------
    def save_comparison(self, record: ComparisonRecord) -> None:
        with self._write_lock, self._connect() as db:
            db.execute(
                "INSERT INTO comparisons (id, title, run_ids, allocations, created_at) VALUES (?, ?, ?, ?, ?)",
                (
                    record.id,
                    record.title,
                    json.dumps(record.run_ids),
                    json.dumps(record.allocations),
                    record.created_at,
                ),
            )

    def comparisons(self) -> list[ComparisonRecord]:
        """Newest first."""
        with self._connect() as db:
            rows = db.execute("SELECT * FROM comparisons ORDER BY created_at DESC").fetchall()
        return [
            ComparisonRecord(
                r["id"], r["title"], json.loads(r["run_ids"]), json.loads(r["allocations"]), r["created_at"]
            )
            for r in rows
        ]

    def delete_comparison(self, comparison_id: str) -> None:
        with self._write_lock, self._connect() as db:
            db.execute("DELETE FROM comparisons WHERE id = ?", (comparison_id,))


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def open_run_store(settings: Settings) -> RunStore:
    """The run store the settings name: Postgres with RESEARCH_DATABASE_URL, else the data dir's SQLite."""
    url = settings.database_url.get_secret_value() if settings.database_url else None
    store = RunStore(url or settings.runs_db)
    store.mask_secrets(settings.secret_values())
    return store


def _record(row: sqlite3.Row | dict[str, Any]) -> RunRecord:  # a SQLite Row, or psycopg's dict_row
    return RunRecord(
        run_id=row["run_id"],
        topic=row["topic"],
        status=read_status(row["status"]),
        created_at=row["created_at"],
        requested_allocation=row["requested_allocation"],
        allocation=row["allocation"],
        allocation_origin=row["allocation_origin"],
        brain=row["brain"],
        finished_at=row["finished_at"],
        source_count=row["source_count"] or 0,
        error=row["error"],
        summary=json.loads(row["summary"]) if row["summary"] else {},
    )
