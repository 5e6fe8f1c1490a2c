"""The daily cap's question (a user's model calls since a time) costs what that user did, not the
size of the store: no statement it runs scans a table (SQLite's query plan), Postgres reads it
through the ledger's index, and the count stays exact with two writers logging at once (both
backends) and for a store written before the ledger (filled once, on opening)."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import pytest

from research.events import EventAdapter
from research.events.payloads import RunStarted, UsageReported, Warning
from research.runs import model_calls
from research.runs.store import RunStore

ADA, BOB = "ada@example.org", "bob@example.org"
WRITES = 40  # usage events each of the two writers logs


@pytest.fixture(params=["sqlite", "postgres"])
def target(request, tmp_path: Path) -> Path | str:
    return tmp_path / "runs.sqlite" if request.param == "sqlite" else request.getfixturevalue("pg_url")


def _run(store: RunStore, run_id: str, user: str | None, calls: list[int], *, chatter: int = 0) -> EventAdapter:
    store.create_run(run_id, "t", None, "main-model")
    adapter = EventAdapter(run_id)
    store.append_event(adapter.make(RunStarted(topic="t", started_by=user)))
    for n in calls:
        for i in range(chatter):  # the rest of a run's log: what a scan of the events would read too
            store.append_event(adapter.make(Warning(source="test", message=f"event {i} of {user}")))
        store.append_event(adapter.make(UsageReported(node="writer", calls=n)))
    return adapter


def _fill(store: RunStore) -> None:
    _run(store, "ada-1", ADA, [2, 3], chatter=5)
    _run(store, "ada-2", ADA, [4], chatter=5)
    bobs = _run(store, "bob-1", BOB, [7], chatter=5)
    store.append_event(bobs.make(UsageReported(node="revision", calls=1, spent_by=ADA)))  # Ada revised Bob's run
    store.append_event(EventAdapter("ada-2", start_seq=99).make(UsageReported(node="revision", calls=6, spent_by=BOB)))
    _run(store, "anon", None, [5])


def test_no_statement_of_the_cap_query_scans_a_table(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    _fill(store)
    statements: list[str] = []
    with store._connect() as db:  # this thread's connection, the one the query below uses
        assert isinstance(db, sqlite3.Connection)
        db.set_trace_callback(statements.append)  # each statement as run, its parameters bound
    assert store.model_calls_by(ADA, 0) == 2 + 3 + 4 + 1
    assert store.model_calls_by(ADA, 0, excluding="ada-1") == 4 + 1
    assert store.model_calls_by(BOB, 0) == 7 + 6
    with store._connect() as db:
        db.set_trace_callback(None)  # type: ignore[attr-defined]
        queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
        plans = [row["detail"] for q in queries for row in db.execute(f"EXPLAIN QUERY PLAN {q}").fetchall()]
    assert queries and plans
    scans = [p for p in plans if re.match(r"SCAN\b", p)]  # SCAN = every row of a table (or index)
    assert not scans, f"full scans in the daily cap's query: {scans}"
    assert any("model_calls_by_spender" in p for p in plans), plans


def test_postgres_answers_the_cap_from_the_ledgers_index(pg_url: str) -> None:
    store = RunStore(pg_url)
    _fill(store)
    with store._connect() as db:
        db.execute("SET LOCAL enable_seqscan = off")  # a table this small would be read whole anyway
        plan = db.execute(f"EXPLAIN {model_calls.CALLS_BY_EXCLUDING}", (ADA, 0.0, "ada-1")).fetchall()
    text = "\n".join(next(iter(row.values())) for row in plan)
    assert "model_calls_by_spender" in text and "events" not in text, text
    assert store.model_calls_by(ADA, 0, excluding="ada-1") == 4 + 1
    store.close()


def test_the_count_is_exact_with_two_writers_at_once(target: Path | str) -> None:
    store = RunStore(target)
    adapters = {run_id: _run(store, run_id, ADA, []) for run_id in ("a", "b")}
    start, errors = threading.Barrier(2), []

    def write(run_id: str) -> None:
        try:
            start.wait()
            for i in range(WRITES):
                store.append_event(adapters[run_id].make(UsageReported(node="writer", calls=1 + i % 3)))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(run_id,)) for run_id in adapters]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    per_run = sum(1 + i % 3 for i in range(WRITES))
    assert store.model_calls_by(ADA, 0) == 2 * per_run
    assert store.model_calls_by(ADA, 0, excluding="a") == per_run
    # what the log itself says, summed as the cap counted it before the ledger
    logged = sum(e.data.calls for r in adapters for e in store.events(r) if isinstance(e.data, UsageReported))
    assert logged == 2 * per_run
    store.close()


def test_a_usage_event_refused_after_the_runs_end_is_not_counted(target: Path | str) -> None:
    from research.events.payloads import RunCancelled

    store = RunStore(target)
    adapter = _run(store, "r", ADA, [2])
    store.append_event(adapter.make(RunCancelled(reason="stop")))
    assert not store.append_event(adapter.make(UsageReported(node="writer", calls=5)), while_open=True)
    assert store.model_calls_by(ADA, 0) == 2
    store.delete_run("r")
    assert store.model_calls_by(ADA, 0) == 2  # deleting the run gives back none of the calls it spent
    store.close()


def test_a_store_from_before_the_ledger_is_filled_once_on_opening(target: Path | str) -> None:
    store = RunStore(target)
    _fill(store)
    with store._connect() as db:  # as a store written before the ledger existed looks
        db.execute("DELETE FROM model_calls")
        db.execute("DELETE FROM store_meta WHERE key = ?", (model_calls.FILLED_KEY,))
    assert store.model_calls_by(ADA, 0) == 0
    store.close()
    reopened = RunStore(target)
    assert reopened.model_calls_by(ADA, 0) == 2 + 3 + 4 + 1 and reopened.model_calls_by(BOB, 0) == 7 + 6
    reopened.close()
    again = RunStore(target)  # filled once: a second opening adds nothing
    assert again.model_calls_by(ADA, 0) == 2 + 3 + 4 + 1
    again.close()


def test_an_imported_run_counts_toward_its_users_cap(tmp_path: Path) -> None:
    source = RunStore(tmp_path / "a.sqlite")
    _run(source, "ada-1", ADA, [2, 3])
    record, events = source.get_run("ada-1"), source.events("ada-1")
    target = RunStore(tmp_path / "b.sqlite")
    target.import_run(record, events, [], {})
    assert target.model_calls_by(ADA, 0) == 5


def test_deleting_a_run_gives_back_none_of_its_calls_until_they_leave_the_window(target: Path | str) -> None:
    """A user at the cap must not get calls back by deleting the run that spent them; a day later the
    deleted run's ledger rows go with the next delete."""
    store = RunStore(target)
    _fill(store)
    before = store.model_calls_by(ADA, 0.0)

    store.delete_run("ada-1")
    assert store.model_calls_by(ADA, 0.0) == before

    old = EventAdapter("gone", start_seq=0)
    store.create_run("gone", "t", None, "main-model")
    store.append_event(old.make(RunStarted(topic="t", started_by=ADA)))
    event = old.make(UsageReported(node="writer", calls=9))
    store.append_event(event.model_copy(update={"ts": event.ts - model_calls.WINDOW_SECONDS - 60}))
    store.delete_run("gone")
    store.delete_run("ada-2")  # a later delete drops the rows that have left the window, of every deleted run
    assert store.model_calls_by(ADA, 0.0) == before  # "gone"'s 9 calls were a day old: gone, not kept
