"""The model-call ledger behind the daily cap (research/runs/daily_cap.py): one row per logged usage
event that spends a user's calls, written in the transaction that logs the event.

A row names the event (run id, sequence number), its time, whose calls they are (the usage event's
`spent_by`, a revision's user, else who started the run) and how many. A user's calls since a time
are then a range of the (spender, ts) index: the cap's question costs what that user did in the
window, not a scan of every event in the store. The event and its row commit together, so two
writers at once (threads, processes, dashboard replicas on one Postgres) never leave a usage event
uncounted or counted twice. A store from before the ledger is filled from its log once, on opening.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from research.events import Event
from research.events.payloads import RunStarted, UsageReported
from research.runs.sql import Tx

TABLE = """CREATE TABLE IF NOT EXISTS model_calls (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    ts DOUBLE PRECISION NOT NULL,
    spender TEXT NOT NULL,
    calls INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
)"""
INDEX = "CREATE INDEX IF NOT EXISTS model_calls_by_spender ON model_calls (spender, ts)"

# The daily cap's window. A deleted run's rows stay this long: deleting a run must not give back the
# calls it spent (research/runs/store.py delete_run).
WINDOW_SECONDS = 24 * 3600
INSERT = "INSERT INTO model_calls (run_id, seq, ts, spender, calls) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
CALLS_BY = "SELECT COALESCE(SUM(calls), 0) AS calls FROM model_calls WHERE spender = ? AND ts >= ?"
CALLS_BY_EXCLUDING = CALLS_BY + " AND run_id <> ?"
# Who started the run: its first run_started (the primary key's run_id prefix, read in seq order).
STARTER = "SELECT body FROM events WHERE run_id = ? AND type = 'run_started' ORDER BY seq LIMIT 1"
FILLED_KEY = "model_calls_ledger"  # store_meta: the ledger holds every usage event logged before it existed

Row = tuple[str, int, float, str, int]


def _row(event: Event, starter: str | None) -> Row | None:
    data = event.data
    if not isinstance(data, UsageReported) or data.calls <= 0:
        return None
    spender = data.spent_by or starter
    return (event.run_id, event.seq, event.ts, spender, data.calls) if spender else None


def record(db: Tx, event: Event) -> None:
    """Enter a usage event just logged in this transaction (other events: nothing)."""
    if not isinstance(event.data, UsageReported) or event.data.calls <= 0:
        return
    row = _row(event, None if event.data.spent_by else _starter(db, event.run_id))
    if row is not None:
        db.execute(INSERT, row)


def record_all(db: Tx, events: Sequence[Event]) -> None:
    """Enter the usage events of one whole run stored at once (an imported bundle)."""
    started = (e.data.started_by for e in events if isinstance(e.data, RunStarted))
    starter = next(started, None)
    db.executemany(INSERT, [row for e in events if (row := _row(e, starter)) is not None])


def calls_by(db: Tx, user: str, since: float, excluding: str | None) -> int:
    """`user`'s calls logged since `since`, but run `excluding`'s."""
    if excluding is None:
        row = db.execute(CALLS_BY, (user, since)).fetchone()
    else:
        row = db.execute(CALLS_BY_EXCLUDING, (user, since, excluding)).fetchone()
    return int(row["calls"] or 0)


def fill_once(db: Tx) -> None:
    """Fill the ledger from the log, the first time a store is opened with it (one scan, once):
    the store_meta key taken first makes a second process opening the store at once wait, then skip."""
    taken = db.execute(
        "INSERT INTO store_meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING", (FILLED_KEY,)
    ).rowcount
    if taken != 1:
        return
    starters: dict[str, str | None] = {}
    for r in db.execute("SELECT run_id, body FROM events WHERE type = 'run_started' ORDER BY run_id, seq").fetchall():
        starters.setdefault(r["run_id"], _user(_data(r["body"]).get("started_by")))
    usage = db.execute("SELECT run_id, seq, ts, body FROM events WHERE type = 'usage'").fetchall()
    db.executemany(INSERT, list(_logged_rows(usage, starters)))


def _logged_rows(rows: Iterable[Any], starters: dict[str, str | None]) -> Iterable[Row]:
    for r in rows:
        data = _data(r["body"])
        calls, spender = data.get("calls"), _user(data.get("spent_by")) or starters.get(r["run_id"])
        if isinstance(calls, int) and calls > 0 and spender:
            yield (r["run_id"], r["seq"], r["ts"], spender, calls)


def _user(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _data(body: str) -> dict[str, Any]:
    try:
        data = json.loads(body).get("data")
    except (ValueError, AttributeError):
        return {}
    return data if isinstance(data, dict) else {}


def _starter(db: Tx, run_id: str) -> str | None:
    row = db.execute(STARTER, (run_id,)).fetchone()
    return _user(_data(row["body"]).get("started_by")) if row else None
