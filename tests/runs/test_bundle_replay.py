"""Bundles move a run between machines; replay plays its events back with their original timing."""

from __future__ import annotations

import gzip
import json
import threading
import time
from pathlib import Path

import pytest

from research.events import Event
from research.runs.bundle import BundleError, export_bundle, import_bundle, read_bundle
from research.runs.replay import TICK, ReplayControl, events_due, parse_speed, replay_events, replay_offsets, replay_run
from research.runs.store import RunStore
from research.runs.view import fold, to_json


def panels(view) -> dict:
    """What the Research page's panels show (to_json minus the run id)."""
    out = to_json(view)
    out.pop("run_id")
    return out


# --- bundles ------------------------------------------------------------------------------------


def test_bundle_imported_on_a_fresh_machine_replays_to_the_same_panels(finished, tmp_path: Path) -> None:
    runner, run_id = finished
    data = export_bundle(runner.store, run_id)
    assert data[:2] == b"\x1f\x8b"  # one gzip file

    other = RunStore(tmp_path / "elsewhere" / "runs.sqlite")  # another machine's empty store
    imported = import_bundle(other, data)
    assert imported == run_id

    original = fold(runner.store.events(run_id))
    replayed = fold(replay_run(other, imported, speed=None))
    assert replayed.sources == original.sources and replayed.sources
    assert replayed.critiques == original.critiques and replayed.critiques
    assert replayed.draft == original.draft and replayed.draft
    assert panels(replayed) == panels(original)
    assert [(e.seq, e.ts, e.type) for e in other.events(imported)] == [
        (e.seq, e.ts, e.type) for e in runner.store.events(run_id)
    ]
    # Drafts, page texts and the record travel too.
    assert [(d.version, d.note, d.markdown) for d in other.draft_versions(imported)] == [
        (d.version, d.note, d.markdown) for d in runner.store.draft_versions(run_id)
    ]
    some_source = next(iter(original.sources))
    assert other.get_text(imported, some_source) == runner.store.get_text(run_id, some_source) != ""
    record, source_record = other.get_run(imported), runner.store.get_run(run_id)
    assert (record.topic, record.status, record.allocation, record.source_count) == (
        source_record.topic,
        "finished",
        source_record.allocation,
        source_record.source_count,
    )
    assert record.seconds == pytest.approx(source_record.seconds)


def test_import_keeps_the_id_refuses_a_clash_and_can_take_a_new_id(finished, tmp_path: Path) -> None:
    runner, run_id = finished
    data = export_bundle(runner.store, run_id)
    with pytest.raises(BundleError, match=f"a run with id {run_id} already exists"):
        import_bundle(runner.store, data)
    new = import_bundle(runner.store, data, new_id=True)
    assert new != run_id
    events = runner.store.events(new)
    assert events and all(e.run_id == new for e in events)
    assert fold(events).draft == fold(runner.store.events(run_id)).draft


def _bundle_json(finished) -> dict:
    runner, run_id = finished
    return json.loads(gzip.decompress(export_bundle(runner.store, run_id)))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda b: b"%PDF-1.7 not a bundle", "neither gzip nor JSON"),
        (lambda b: gzip.compress(b"\x00\xff garbage"), "neither gzip nor JSON"),
        (lambda b: b"\x1f\x8b\x08 truncated gzip", "corrupt gzip"),
        (lambda b: json.dumps({"hello": "world"}).encode(), 'no "format": "research-desk-run" marker'),
        (lambda b: json.dumps([1, 2]).encode(), 'no "format"'),
        (lambda b: json.dumps({**b, "version": 99}).encode(), "version 99 is newer"),
        (lambda b: json.dumps({**b, "run": {**b["run"], "topic": ""}}).encode(), "run.topic"),
        (lambda b: json.dumps({**b, "run": {**b["run"], "run_id": "../x"}}).encode(), "run.run_id"),
        (lambda b: json.dumps({**b, "events": [{**b["events"][0], "type": "exploded"}]}).encode(), "events.0.type"),
        (
            lambda b: json.dumps({**b, "events": [{**b["events"][0], "run_id": "other"}]}).encode(),
            "belongs to run 'other'",
        ),
        (lambda b: json.dumps({**b, "events": b["events"][1:2] + b["events"][0:1]}).encode(), "not increasing"),
    ],
)
def test_malformed_or_foreign_files_are_refused_with_a_clear_error(finished, tmp_path: Path, mutate, message) -> None:
    store = RunStore(tmp_path / "runs.sqlite")
    with pytest.raises(BundleError, match=message.replace("(", r"\(")):
        import_bundle(store, mutate(_bundle_json(finished)))
    assert store.list_runs() == []  # nothing half-imported


def test_plain_json_bundle_is_accepted(finished, tmp_path: Path) -> None:
    document = _bundle_json(finished)
    assert read_bundle(json.dumps(document).encode()).run.run_id == document["run"]["run_id"]


# --- replay timing -------------------------------------------------------------------------------


def _events(*timestamps: float) -> list[Event]:
    return [
        Event(type="phase", run_id="r", seq=i, ts=1000.0 + t, data={"phase": "x"}) for i, t in enumerate(timestamps, 1)
    ]


class FakeClock:
    """An injectable sleep: records the (virtual) time each event is yielded at."""

    def __init__(self) -> None:
        self.now = 0.0
        self.calls = 0

    def sleep(self, seconds: float) -> None:
        self.calls += 1
        self.now += seconds


def test_replay_at_speed_5_keeps_the_original_gaps_divided_by_5(tmp_path: Path) -> None:
    events = _events(0, 1.0, 3.5, 3.5, 103.5)  # the last gap (100 s, e.g. a plan-review wait) is capped
    clock = FakeClock()
    seen = [(e.seq, round(clock.now, 6)) for e in replay_events(events, speed=5, sleep=clock.sleep, max_gap=10)]
    assert seen == [(1, 0.0), (2, 0.2), (3, 0.7), (4, 0.7), (5, 2.7)]
    assert replay_offsets(events, 5, 10) == pytest.approx([0.0, 0.2, 0.7, 0.7, 2.7])
    assert events_due(replay_offsets(events, 5, 10), 0.69) == 2
    assert events_due(replay_offsets(events, 5, 10), 0.7) == 4


def test_replay_real_speed_and_instant(tmp_path: Path) -> None:
    events = _events(0, 2.0, 2.5)
    clock = FakeClock()
    list(replay_events(events, speed=1, sleep=clock.sleep))
    assert clock.now == pytest.approx(2.5)
    instant = FakeClock()
    assert [e.seq for e in replay_events(events, speed=None, sleep=instant.sleep)] == [1, 2, 3]
    assert instant.calls == 0


def test_pausing_holds_the_replay_without_eating_into_the_gaps() -> None:
    events = _events(0, 1.0)
    clock = FakeClock()
    checks = iter([False, True, True, True])  # paused for three ticks just before the second event

    seen = []
    for event in replay_events(events, speed=1, sleep=clock.sleep, should_pause=lambda: next(checks, False)):
        seen.append((event.seq, round(clock.now, 6)))
    assert seen == [(1, 0.0), (2, pytest.approx(1.0 + 3 * TICK))]


def test_replay_control_pauses_resumes_and_stops_from_another_thread() -> None:
    events = _events(*range(10))
    control = ReplayControl()
    control.pause()
    got: list[int] = []
    worker = threading.Thread(
        target=lambda: got.extend(e.seq for e in replay_events(events, speed=None, control=control))
    )
    worker.start()
    time.sleep(0.2)
    assert got == [] and worker.is_alive()  # paused before the first event
    control.resume()
    worker.join(2)
    assert got == list(range(1, 11))

    control, got = ReplayControl(), []
    gen = replay_events(events, speed=None, control=control)
    got.append(next(gen).seq)
    control.stop()
    assert list(gen) == [] and got == [1]


def test_parse_speed() -> None:
    assert [parse_speed(v) for v in ("1", "2x", "5", 5, "Instant", None)] == [1.0, 2.0, 5.0, 5.0, None, None]
    for bad in ("0", "-2", "fast", "nan", float("inf")):
        with pytest.raises(ValueError, match="positive number"):
            parse_speed(bad)


def test_replaying_an_unknown_run_is_a_key_error(tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        replay_run(RunStore(tmp_path / "runs.sqlite"), "missing")
