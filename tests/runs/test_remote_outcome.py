"""Remote mode's reading of a run's outcome, on scripted SDK stream parts (no server): a stream the
server ends "successfully" without the run's own ending is a failed run, and an error part is the
run's error, with any key masked. With a shared store the worker writes the log and the dashboard
only follows the stream: its live view shows what the log holds, nothing the worker refused."""

from __future__ import annotations

import pytest
from langgraph_sdk.schema import StreamPart

from research.api import RemoteRunManager, ResearchRequest, Settings, fold
from research.events import EventAdapter
from research.runs.event_effects import log_event_while_open


class _Runs:
    def __init__(self, parts):
        self.parts = parts

    def stream(self, *args, **kwargs):
        yield from self.parts


class _Threads:
    def create(self, **kwargs):
        return {"thread_id": kwargs["thread_id"]}

    def get(self, thread_id):
        return {"thread_id": thread_id, "status": "idle"}


class _Client:
    def __init__(self, parts):
        self.runs, self.threads = _Runs(parts), _Threads()


def _manager(tmp_path, parts, **settings) -> RemoteRunManager:
    manager = RemoteRunManager(
        Settings(
            _env_file=None, data_dir=tmp_path, log_dir=tmp_path / "logs", server_url="http://127.0.0.1:9", **settings
        ),
        client=_Client(parts),
    )
    manager.check = lambda: None  # the scripted client needs no health check
    return manager


def _started():
    return StreamPart(
        "custom",
        {
            "research_event": "run_started",
            "researcher_id": None,
            "iteration": None,
            "data": {"topic": "t", "brain": "offline", "model": "offline"},
        },
    )


def test_a_stream_that_ends_without_the_runs_ending_is_a_failed_run(tmp_path):
    manager = _manager(tmp_path, [StreamPart("metadata", {"run_id": "srv"}), _started()])
    run_id = manager.run(ResearchRequest(topic="How do mRNA vaccines work?"))
    record = manager.store.get_run(run_id)
    assert record.status == "failed"
    assert "ended without the run's result (thread status: idle)" in record.error
    assert fold(manager.store.events(run_id)).status == "failed"


def test_an_error_part_is_the_runs_error_with_keys_masked(tmp_path):
    key = "sk-remote-secret-123456"
    error = StreamPart("error", {"error": "AuthenticationError", "message": f"bad key {key}"})
    manager = _manager(tmp_path, [_started(), error], openai_api_key=key)
    run_id = manager.run(ResearchRequest(topic="How do mRNA vaccines work?"))
    record = manager.store.get_run(run_id)
    assert record.status == "failed" and record.error.startswith("AuthenticationError: bad key")
    assert key not in record.error and all(key not in str(e.data) for e in manager.store.events(run_id))


class _CancelledMidStream(_Runs):
    """The server's stream as a dashboard follows it while its user cancels the run: the cancel is
    logged after the first part, and the stream still carries what the server sent before it stopped."""

    def __init__(self, manager_box, late_parts):
        super().__init__([])
        self.manager_box, self.late_parts = manager_box, late_parts

    def stream(self, *args, **kwargs):
        yield _started()
        self.manager_box[0].cancel(kwargs["context"]["run_id"])  # as the Stop button does, mid-stream
        yield from self.late_parts

    def list(self, *args, **kwargs):
        return []  # no server run left to cancel (the scripted stream is all there is)


def _custom(event_type, data):
    return StreamPart("custom", {"research_event": event_type, "researcher_id": None, "iteration": None, "data": data})


def test_what_the_stream_carries_after_the_runs_cancel_is_not_logged(tmp_path):
    late = [
        _custom("warning", {"source": "web", "message": "streamed after the cancel"}),
        _custom("run_finished", {"status": "finished", "counts": {"sources": 3}}),
    ]
    box = []
    runs = _CancelledMidStream(box, late)
    manager = _manager(tmp_path, [])
    manager.client.runs = runs
    box.append(manager)
    seen = []
    run_id = manager.run(ResearchRequest(topic="How do mRNA vaccines work?"), on_event=seen.append)
    events = manager.store.events(run_id)
    assert [e.type for e in events] == ["run_started", "run_cancelled"]  # before: + warning, run_finished
    record = manager.store.get_run(run_id)
    assert record.status == "cancelled" and record.source_count == 0
    assert "run_finished" not in [e.type for e in seen] and fold(events).status == "cancelled"


# --- a shared store: the worker writes the log, the dashboard only follows the stream ------------


@pytest.fixture(params=["sqlite", "postgres"])
def shared(request) -> dict:
    """Where the desk's run store is: its data dir's SQLite, or a Postgres database (a shared desk)."""
    return {} if request.param == "sqlite" else {"database_url": request.getfixturevalue("pg_url")}


def _worker_started():
    part = _started()
    return StreamPart("custom", {**part.data, "data": {**part.data["data"], "worker_log": True}})


class _SharedStoreWorker(_Runs):
    """The server's stream of a worker that writes the run's log into the store the dashboard reads
    (as research/runs/worker_log.py does: each event logged while the log is open, then streamed).
    `cancel_after`: the user cancels once the dashboard has read that many parts (None: never);
    `lag`: the worker has logged every part before the dashboard reads the first (a slow reader)."""

    def __init__(self, manager_box, parts, *, cancel_after=None, lag=False):
        super().__init__(parts)
        self.manager_box, self.cancel_after, self.lag = manager_box, cancel_after, lag

    def _log(self, run_id, part):
        store = self.manager_box[0].store
        for event in EventAdapter(run_id).adapt(part):
            log_event_while_open(store, event, [])

    def stream(self, *args, **kwargs):
        run_id = kwargs["context"]["run_id"]
        if self.lag:
            for part in self.parts:
                self._log(run_id, part)
        for n, part in enumerate(self.parts, 1):
            if not self.lag:
                self._log(run_id, part)
            yield part
            if n == self.cancel_after:
                self.manager_box[0].cancel(run_id)  # the Stop button, while the stream goes on

    def list(self, *args, **kwargs):
        return []  # no server run left to cancel (the scripted stream is all there is)


def _follow_shared(tmp_path, shared, parts, **worker):
    box = []
    manager = _manager(tmp_path, [], **shared)
    manager.client.runs = _SharedStoreWorker(box, parts, **worker)
    box.append(manager)
    seen = []
    run_id = manager.run(ResearchRequest(topic="How do mRNA vaccines work?"), on_event=seen.append)
    return manager, run_id, seen


def test_the_live_view_shows_nothing_the_worker_refused_after_a_cancel(tmp_path, shared):
    late = [
        _custom("warning", {"source": "web", "message": "streamed after the cancel"}),
        _custom("run_finished", {"status": "finished", "counts": {"sources": 3}}),
    ]
    manager, run_id, seen = _follow_shared(tmp_path, shared, [_worker_started(), *late], cancel_after=1)
    logged = manager.store.events(run_id)
    assert [e.type for e in logged] == ["run_started", "run_cancelled"]  # the worker refused the late ones
    assert [e.type for e in seen] == ["run_started"]  # before: + warning, run_finished
    assert manager.store.get_run(run_id).status == "cancelled" and fold(logged).status == "cancelled"


def test_a_reader_behind_the_worker_shows_the_whole_run_and_nothing_after_its_end(tmp_path, shared):
    parts = [
        _worker_started(),
        _custom("warning", {"source": "web", "message": "one"}),
        _custom("run_finished", {"status": "finished", "counts": {"sources": 3}}),
        _custom("warning", {"source": "web", "message": "after the end"}),  # the worker refused it
    ]
    manager, run_id, seen = _follow_shared(tmp_path, shared, parts, lag=True)
    logged = [e.type for e in manager.store.events(run_id)]
    assert logged == ["run_started", "warning", "run_finished"]
    assert [e.type for e in seen] == logged  # all of it, though the run had ended before the reader began
