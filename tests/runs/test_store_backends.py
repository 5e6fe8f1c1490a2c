"""The run store behaves the same on SQLite (embedded default) and Postgres (shared runs): every
test here runs against both, Postgres being a throwaway cluster started for the session."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from research.events import EventAdapter
from research.events.payloads import Warning
from research.runs.store import ComparisonRecord, DuplicateEventError, RunStore


@pytest.fixture(params=["sqlite", "postgres"])
def target(request, tmp_path: Path) -> Path | str:
    """Where the store lives: a SQLite file, or a fresh database on the session's Postgres cluster."""
    return tmp_path / "runs.sqlite" if request.param == "sqlite" else request.getfixturevalue("pg_url")


@pytest.fixture
def store(target: Path | str):
    s = RunStore(target)
    yield s
    s.close()


def test_runs_round_trip_with_exact_timestamps(store: RunStore) -> None:
    store.create_run("r1", "How do heat pumps work?", "210", "offline")
    before = store.get_run("r1")
    assert before.status == "running" and before.requested_allocation == "210"
    finished = time.time()
    store.update_run("r1", status="finished", finished_at=finished, source_count=4, summary={"sources": 4})
    record = store.get_run("r1")
    assert record.finished_at == finished  # 8-byte floats in both (Postgres REAL would round)
    assert record.summary == {"sources": 4} and record.source_count == 4
    assert [r.run_id for r in store.list_runs()] == ["r1"]
    with pytest.raises(ValueError, match="Unknown run fields"):
        store.update_run("r1", owner="x")


def test_events_in_order_and_a_duplicate_sequence_number_is_refused_not_replaced(store: RunStore) -> None:
    store.create_run("r1", "t", None, "offline")
    mine = EventAdapter("r1")
    for i in range(3):
        store.append_event(mine.make(Warning(source="runner", message=f"first writer {i}")))
    assert store.last_seq("r1") == 3
    intruder = EventAdapter("r1", start_seq=1)  # a second runner of the same run, one event behind
    with pytest.raises(DuplicateEventError, match="another process"):
        store.append_event(intruder.make(Warning(source="runner", message="second writer")))
    events = store.events("r1")
    assert [e.data.message for e in events] == ["first writer 0", "first writer 1", "first writer 2"]
    assert [e.seq for e in store.events("r1", after_seq=1)] == [2, 3]
    store.append_event(mine.make(Warning(source="runner", message="first writer 3")))  # still writes


def test_drafts_texts_and_delete(store: RunStore) -> None:
    store.create_run("r1", "t", None, "offline")
    assert store.save_draft_version("r1", "# one", note="Writer's draft") == 1
    assert store.save_draft_version("r1", "# two") == 2
    assert [v.markdown for v in store.draft_versions("r1")] == ["# one", "# two"]
    store.put_texts("r1", {"s1": "page one", "s2": ""})
    store.put_texts("r1", {"s1": "a second copy is ignored"})
    assert store.get_text("r1", "s1") == "page one" and store.get_text("r1", "s2") == ""
    store.acquire_lease("r1", "me", 30)
    store.delete_run("r1")
    assert store.get_run("r1") is None and store.events("r1") == [] and store.latest_draft("r1") is None
    assert store.get_text("r1", "s1") == "" and store.get_lease("r1") is None


def test_a_lease_has_one_holder_until_it_expires(store: RunStore) -> None:
    now = time.time()
    assert store.acquire_lease("r1", "a", 30, now=now)
    assert store.acquire_lease("r1", "a", 30, now=now + 1)  # re-entrant for its holder
    assert not store.acquire_lease("r1", "b", 30, now=now + 2)
    assert store.get_lease("r1").owner == "a"
    assert not store.renew_lease("r1", "b", 30)
    assert store.acquire_lease("r1", "b", 30, now=now + 60)  # a's lapsed: b takes over
    assert not store.renew_lease("r1", "a", 30)  # a learns it lost the run
    store.release_lease("r1", "a")  # not a's to release
    assert store.get_lease("r1").owner == "b"
    store.release_lease("r1", "b")
    assert store.get_lease("r1") is None


def test_only_one_of_many_concurrent_claimants_gets_the_lease(store: RunStore) -> None:
    winners: list[str] = []
    barrier = threading.Barrier(6)

    def claim(owner: str) -> None:
        barrier.wait()
        if store.acquire_lease("race", owner, 30):
            winners.append(owner)

    threads = [threading.Thread(target=claim, args=(f"o{i}",)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1 and store.get_lease("race").owner == winners[0]


def test_comparisons_are_kept_in_the_store(store: RunStore) -> None:
    store.save_comparison(ComparisonRecord("c1", "Old", ["r1", "r2"], ["100", "010"], 1.0))
    store.save_comparison(ComparisonRecord("c2", "New", ["r3", "r4", "r5"], [], 2.0))
    assert [(c.id, c.run_ids) for c in store.comparisons()] == [("c2", ["r3", "r4", "r5"]), ("c1", ["r1", "r2"])]
    store.delete_comparison("c2")
    assert [c.id for c in store.comparisons()] == ["c1"]


def test_two_stores_on_one_database_see_each_others_runs(store: RunStore, target: Path | str) -> None:
    other = RunStore(target)  # another process, or another dashboard replica
    store.create_run("r1", "t", None, "offline")
    store.append_event(EventAdapter("r1").make(Warning(source="runner", message="hello")))
    assert other.get_run("r1").topic == "t" and [e.data.message for e in other.events("r1")] == ["hello"]
    other.close()


def test_an_unreachable_database_is_a_clear_error_without_the_password() -> None:
    from research.runs.sql import DatabaseUnavailable, PostgresDatabase
    from tests.fakes.postgres import free_port

    with pytest.raises(
        DatabaseUnavailable, match=r"cannot reach the run database postgresql://u:\*\*\*\*@127.0.0.1"
    ) as info:
        PostgresDatabase(f"postgresql://u:hunter2secret@127.0.0.1:{free_port()}/db", connect_timeout=2)
    assert "hunter2secret" not in str(info.value)


@pytest.mark.parametrize("ending", ["run_finished", "run_cancelled"])
def test_a_while_open_append_adds_nothing_after_the_log_ends(store: RunStore, ending: str) -> None:
    store.create_run("r1", "t", None, "offline")
    log = EventAdapter("r1")
    assert store.append_event(log.make(Warning(source="runner", message="before")), while_open=True)
    end = log.make(Warning(source="runner", message="the end")).model_copy(update={"type": ending})
    store.append_event(end)  # another writer ends the log (a client's cancel)
    late = log.make(Warning(source="runner", message="a node's event after the end"))
    assert store.append_event(late, while_open=True) is False
    assert [e.seq for e in store.events("r1")] == [1, 2]
    store.create_run("r2", "t", None, "offline")  # another run's end does not close this one
    assert store.append_event(EventAdapter("r2").make(Warning(source="runner", message="r2")), while_open=True)
