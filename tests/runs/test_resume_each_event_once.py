"""Resume writes each event once: a run killed at any of the crash tests' points and resumed reads,
event by event, as an uninterrupted run of the same request (its log as folded, its view and JSON,
its draft versions, critiques, exports and bundle)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from research.brains.offline.offline_brain import OfflineBrain
from research.events import Event, EventAdapter, event_payload
from research.events.payloads import Phase, RunCancelled
from research.events.steps import current_events
from research.events.stream import stream_part
from research.export.run_export import export_document, load_export_document
from research.runs.bundle import export_bundle, import_bundle, read_bundle
from research.runs.runner import ResearchRunner
from research.runs.store import RunStore
from research.runs.view import fold, to_json
from research.runs.worker_log import WorkerEventLog
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.runs.interrupted_run import AFTER_EVENT, ALLOCATION, KILL_POINTS, TOPIC, with_an_unsupported_claim
from tests.runs.test_resume import interrupt

# What differs between two runs of one request however they ran: ids, clocks, durations.
_VOLATILE = frozenset({"run_id", "seq", "ts", "step", "seconds", "started_at", "finished_at", "timings"})


# Lists in the order parallel researchers finished in (the queries each one searched).
_FINISH_ORDER = frozenset({"searched"})


def steady(value: Any) -> Any:
    """`value` without the fields two runs of one request never share."""
    if isinstance(value, dict):
        return {
            k: sorted(v) if k in _FINISH_ORDER and isinstance(v, list) else steady(v)
            for k, v in value.items()
            if k not in _VOLATILE
        }
    if isinstance(value, list):
        return [steady(v) for v in value]
    return value


def log_of(events: list[Event]) -> list[str]:
    """The log as folded (interrupted attempts left out), order-free (researchers run in parallel),
    without the runner's note that it resumed."""
    kept = [e for e in current_events(events) if not (e.type == "warning" and e.data.source == "runner")]
    return sorted(json.dumps(steady(e.model_dump(mode="json")), sort_keys=True) for e in kept)


def view_of(events: list[Event]) -> dict[str, Any]:
    """The run's JSON view, up to what parallel researchers decide by the order they finish in (the
    order of sources and researchers; which query's snippet a work found twice keeps), without the
    runner's note that it resumed. The log above holds every snippet."""
    view = steady(to_json(fold(events)))
    view["sources"] = sorted(({k: v for k, v in s.items() if k != "snippet"} for s in view["sources"]), key=str)
    view["researchers"] = sorted(view["researchers"], key=str)
    view["warnings"] = [w for w in view["warnings"] if w["source"] != "runner"]
    return view


def record(runner: ResearchRunner, run_id: str) -> dict[str, Any]:
    """Everything a person reads of a run, from the log and the store."""
    events = runner.store.events(run_id)
    view = fold(events)
    document = load_export_document(runner.store, run_id)
    imported = import_bundle(runner.store, read_bundle(export_bundle(runner.store, run_id)), new_id=True)
    return {
        "log": log_of(events),
        "view": view_of(events),
        "critiques": [c.model_dump(mode="json") for c in view.critiques],
        "drafts": [(v.version, v.note, v.markdown) for v in runner.store.draft_versions(run_id)],
        "export": export_document(document, "md").data,
        "bundle": view_of(runner.store.events(imported)),
        "bundle_drafts": [(v.version, v.note, v.markdown) for v in runner.store.draft_versions(imported)],
    }


@pytest.mark.parametrize("where", KILL_POINTS)
def test_a_resumed_run_reads_as_an_uninterrupted_one(
    where: str, tmp_path: Path, runner: ResearchRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = interrupt(tmp_path, where)
    if where in AFTER_EVENT:  # the child's writer, for the resumed run and the reference alike
        monkeypatch.setattr(OfflineBrain, "write", with_an_unsupported_claim)
    killed_after = AFTER_EVENT.get(where, (None, None))[1]
    if killed_after:  # the step had logged its event when it died
        assert [e.type for e in runner.store.events(run_id)].count(killed_after) == 1

    runner.resume(run_id)
    reference = runner.run(ResearchRequest(topic=TOPIC, allocation=ALLOCATION))

    resumed, uninterrupted = record(runner, run_id), record(runner, reference)
    assert runner.store.get_run(run_id).status == "finished"
    for part in uninterrupted:
        assert resumed[part] == uninterrupted[part], part
    if killed_after:
        # The log keeps what the killed attempt wrote; what its step made again replaces it.
        events = runner.store.events(run_id)
        task = next(e.step.task for e in events if e.type == killed_after and e.step)
        assert [e.step.attempt for e in events if e.type == killed_after and e.step and e.step.task == task] == [1, 2]
        assert {e.step.attempt for e in current_events(events) if e.step and e.step.task == task} == {2}
    if where == "reviewer-revision":
        assert [v for v, _, _ in resumed["drafts"]] == [1, 2]  # not a second v2 as v3


def test_a_servers_worker_log_numbers_its_attempt_after_the_ones_logged(tmp_path: Path, session_log_dir: Path) -> None:
    """A worker that takes over a run (its first worker died) writes its steps as the next attempt,
    so the log's fold leaves out what the dead worker's repeated step had logged."""
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", log_dir=session_log_dir, llm="offline")
    store = RunStore(tmp_path / "data" / "runs.sqlite")
    store.create_run("r1", TOPIC, None, "offline")
    phase = {**event_payload(Phase(phase="analyst")), "task": "analyst:t1"}

    WorkerEventLog(store, "r1", settings)(stream_part("custom", phase))  # the first worker, then it dies
    WorkerEventLog(store, "r1", settings)(stream_part("custom", phase))  # the worker that takes over

    events = store.events("r1")
    assert [e.step.attempt for e in events if e.step] == [1, 2]
    assert [e.seq for e in current_events(events)] == [2]


def test_a_worker_writes_nothing_after_a_clients_cancel_that_lands_mid_part(
    tmp_path: Path, session_log_dir: Path
) -> None:
    """The client's cancel can land between the worker's "still running?" check and its write: the
    worker's event is then refused, so the log ends at run_cancelled."""
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", log_dir=session_log_dir, llm="offline")
    store = RunStore(tmp_path / "data" / "runs.sqlite")
    store.create_run("r1", TOPIC, None, "offline")
    worker = WorkerEventLog(store, "r1", settings)
    phase = {**event_payload(Phase(phase="analyst")), "task": "analyst:t1"}
    worker(stream_part("custom", phase))
    cancelled = EventAdapter("r1", start_seq=1).make(RunCancelled(reason="Cancelled by the user."))
    store.append_event(cancelled)  # written by the client; the run's status is not updated yet
    assert store.get_run("r1").status == "running"  # so the worker's check still passes

    worker(stream_part("custom", {**event_payload(Phase(phase="writer")), "task": "writer:t1"}))

    assert [e.type for e in store.events("r1")] == ["phase", "run_cancelled"]
