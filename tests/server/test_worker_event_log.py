"""A team's desk: the server's worker writes the event log into the Postgres run
store the dashboard replicas share, so a replica killed mid-run loses nothing and every replica shows
the run live. One throwaway Postgres database and one `langgraph dev` with RESEARCH_DATABASE_URL for
the module; this process plays the dashboard replicas."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from research.events.status import RunLiveness
from research.runs.remote import CONNECTION_SOURCE, RemoteRunManager, thread_id_of
from research.runs.store import RunStore
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.fakes.postgres import Cluster
from tests.langgraph_server import langgraph_dev, server_env
from tests.streamlit_server import ROOT

TOPIC = "How do mRNA vaccines work?"
SERVER_SECRET = "tvly-worker-secret-5f3a9c1e7b2d4086"  # a key only the server's worker has


@pytest.fixture(scope="module")
def shared_db(pg_cluster: Cluster) -> str:
    return pg_cluster.new_database()


@pytest.fixture(scope="module")
def hold(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """While this file exists the worker's library searches wait after each kind's first
    (tests/held_search.py): a test kills or cancels mid-run however slow the machine."""
    return tmp_path_factory.mktemp("worker-hold") / "hold"


@pytest.fixture(scope="module")
def worker_url(shared_db: str, hold: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("worker-server")
    env = server_env(
        workdir / "data",
        RESEARCH_TEST_HOLD_FILE=str(hold),
        RESEARCH_DATABASE_URL=shared_db,
        TAVILY_API_KEY=SERVER_SECRET,
    )
    with langgraph_dev(env, workdir, held=True) as url:
        yield url


@pytest.fixture
def replica(tmp_path: Path, worker_url: str, shared_db: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """This process as a dashboard replica: remote mode, on the shared run store."""
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "GITHUB_TOKEN", "RESEARCH_SOURCES"):
        monkeypatch.delenv(key, raising=False)
    env = {
        "RESEARCH_SERVER_URL": worker_url,
        "RESEARCH_DATABASE_URL": shared_db,
        "RESEARCH_DATA_DIR": str(tmp_path / "replica"),
        "RESEARCH_LOG_DIR": str(tmp_path / "replica" / "logs"),
        "RESEARCH_LLM": "offline",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def _wait(what: str, until: Callable[[], bool], timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:.0f} s: {what}")
        time.sleep(0.2)


def _assert_one_complete_log(store: RunStore, run_id: str) -> list:
    events = store.events(run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))  # numbered without gaps
    types = Counter(e.type for e in events)
    assert types["run_started"] == 1 and types["run_finished"] == 1 and events[-1].type == "run_finished"
    assert events[0].type == "run_started" and events[0].data.worker_log is True
    assert not [e for e in events if e.type == "warning" and e.data.source == CONNECTION_SOURCE]
    return events


def test_the_worker_writes_the_log_the_replica_reads(replica: dict[str, str]) -> None:
    manager = RemoteRunManager(Settings())
    streamed: list = []
    run_id = manager.run(ResearchRequest(topic=TOPIC, allocation="111", started_by="ada"), on_event=streamed.append)

    events = _assert_one_complete_log(manager.store, run_id)
    assert events[0].data.started_by == "ada"  # the run's own choices travel in its spec
    # The follower only read: what it streamed is what the worker logged (the transcript too).
    assert Counter(e.type for e in streamed) == Counter(e.type for e in events)
    assert any(e.type == "message" for e in events)
    record = manager.store.get_run(run_id)
    assert record.status == "finished" and manager.store.latest_draft(run_id) is not None
    assert record.allocation == "111"
    assert manager.store.get_lease(run_id) is None  # the worker let go at the end


def test_a_replica_killed_mid_run_loses_nothing_and_another_shows_it_live(replica: dict[str, str], hold: Path) -> None:
    env = {**os.environ, **replica, "PYTHONPATH": str(ROOT)}
    hold.touch()
    cli = subprocess.Popen(
        # A topic of its own: the worker's search cache would answer a repeated one at once.
        [sys.executable, "-m", "research", "How does CRISPR gene editing work?", "--allocation", "111", "--quiet"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    other = RemoteRunManager(Settings())  # a second replica, in this process
    before = {r.run_id for r in other.store.list_runs()}

    def the_cli_run() -> str | None:
        return next((r.run_id for r in other.store.list_runs(5) if r.run_id not in before), None)

    try:
        _wait(
            "the CLI's run to reach its researchers",
            lambda: (
                (run := the_cli_run()) is not None
                and any(e.type == "researcher_started" for e in other.store.events(run))
            ),
        )
        run_id = the_cli_run()
        assert run_id is not None
        os.killpg(cli.pid, signal.SIGKILL)  # the replica following the run dies mid-run
        cli.wait(timeout=10)
        assert other.store.get_run(run_id).status == "running"
        # The worker holds the run's lease: live here, never an orphan to reattach to.
        assert other.liveness(run_id) is RunLiveness.LIVE and not other.is_orphaned(run_id)
        hold.unlink()
        _wait("the run to finish on the server", lambda: other.store.get_run(run_id).status != "running")
    finally:
        hold.unlink(missing_ok=True)
        if cli.poll() is None:
            os.killpg(cli.pid, signal.SIGKILL)
    _assert_one_complete_log(other.store, run_id)
    assert other.store.get_run(run_id).status == "finished"


def test_plan_review_pauses_and_continues_in_the_worker_log(replica: dict[str, str]) -> None:
    manager = RemoteRunManager(Settings())
    run_id = manager.run(ResearchRequest(topic=TOPIC, allocation="111", review_plan=True))
    assert manager.store.get_run(run_id).status == "paused"
    assert [e.type for e in manager.store.events(run_id)].count("plan_review_requested") == 1
    assert manager.store.get_lease(run_id) is None  # a paused run holds no lease
    assert manager.liveness(run_id) is RunLiveness.PAUSED

    manager.continue_plan(run_id, allocation="210", block=True)

    events = _assert_one_complete_log(manager.store, run_id)
    types = Counter(e.type for e in events)
    assert types["plan_review_requested"] == 1 and types["plan_approved"] == 1
    assert manager.store.get_run(run_id).allocation == "210"


def test_the_server_checkpoints_in_postgres_through_the_masking_serializer(
    replica: dict[str, str], shared_db: str
) -> None:
    manager = RemoteRunManager(Settings())
    run_id = manager.run(ResearchRequest(topic=f"Why do keys like {SERVER_SECRET} leak?", allocation="100"))
    with psycopg.connect(shared_db) as db:
        rows = db.execute(
            "SELECT blob FROM checkpoint_blobs WHERE thread_id = %s AND blob IS NOT NULL"
            " UNION ALL SELECT blob FROM checkpoint_writes WHERE thread_id = %s",
            (thread_id_of(run_id), thread_id_of(run_id)),
        ).fetchall()
        inline = db.execute(
            "SELECT checkpoint::text FROM checkpoints WHERE thread_id = %s", (thread_id_of(run_id),)
        ).fetchall()
    blobs = [bytes(row[0]) for row in rows]
    assert blobs and inline, "the server's checkpointer (research/runs/server.py) wrote no checkpoints to Postgres"
    assert not [b for b in blobs if SERVER_SECRET.encode() in b]
    assert any(b"*" * len(SERVER_SECRET) in b for b in blobs)  # the run's input, masked where it was stored
    assert not [row for row in inline if SERVER_SECRET in row[0]]  # and the topic channel kept inline


def test_cancel_ends_the_worker_log_and_its_lease(replica: dict[str, str], hold: Path) -> None:
    manager = RemoteRunManager(Settings())
    hold.touch()
    try:
        run_id = manager.start(ResearchRequest(topic="What was the impact of the printing press?", allocation="111"))
        _wait(
            "the run to reach its researchers",
            lambda: any(e.type == "researcher_started" for e in manager.store.events(run_id)),
        )
        assert manager.store.get_lease(run_id) is not None  # the worker's, while it runs
        manager.cancel(run_id)
    finally:
        hold.unlink(missing_ok=True)
    assert manager.wait(run_id, timeout=60)
    time.sleep(2)  # anything the worker's nodes still make after the cancel must not reach the log
    types = [e.type for e in manager.store.events(run_id)]
    assert manager.store.get_run(run_id).status == "cancelled"
    assert types[-1] == "run_cancelled" and "run_finished" not in types and "run_failed" not in types
    _wait("the worker to let go of the lease", lambda: manager.store.get_lease(run_id) is None, timeout=40)


def test_a_run_the_worker_refuses_fails_once_with_its_error(replica: dict[str, str], monkeypatch) -> None:
    manager = RemoteRunManager(Settings())
    spec = manager._spec
    # A spec the worker's Settings refuse: the run fails before any node writes the log.
    monkeypatch.setattr(manager, "_spec", lambda run_id, request: {**spec(run_id, request), "max_researchers": 99})
    run_id = manager.run(ResearchRequest(topic=TOPIC))
    record = manager.store.get_run(run_id)
    assert record.status == "failed" and "max_researchers" in record.error
    assert [e.type for e in manager.store.events(run_id)] == ["run_failed"]  # written once, by the reader
