"""The replay clock: which stored events are on screen at a moment, at each speed, with pause."""

from __future__ import annotations

import pytest

from research.api import DraftVersion, Event, RunView, fold
from ui.replay_clock import ReplayClock, ReplayStore, freeze_elapsed

T0 = 1_000_000.0


def events(gaps: list[float]) -> list[Event]:
    """run_started, then one researcher event per gap (seconds after the previous event)."""
    out = [Event(type="run_started", run_id="r1", seq=1, ts=T0, data={"topic": "t"})]
    ts = T0
    for i, gap in enumerate(gaps, 2):
        ts += gap
        out.append(
            Event(type="researcher_started", run_id="r1", seq=i, ts=ts, researcher_id=f"web-{i}", data={"kind": "web"})
        )
    return out


def test_events_fall_due_at_their_original_gaps_divided_by_speed():
    log = events([1.0, 2.0, 3.0])  # due at 0, 1, 3, 6 s of run time
    clock = ReplayClock.start("r1", log, "2x", now=100.0)
    assert [clock.due(100.0 + t) for t in (0.0, 0.49, 0.5, 1.49, 1.5, 2.99, 3.0)] == [1, 1, 2, 2, 3, 3, 4]
    assert clock.finished(103.0) and not clock.finished(102.9)
    assert ReplayClock.start("r1", log, "1x", now=0.0).due(2.9) == 2
    assert ReplayClock.start("r1", log, "Instant", now=0.0).due(0.0) == 4


def test_a_long_wait_is_capped_so_a_demo_never_stalls():
    log = events([1.0, 3600.0, 1.0])  # an hour at plan review
    clock = ReplayClock.start("r1", log, "1x", now=0.0)
    assert clock.duration == 12.0  # 1 + 10 (capped) + 1
    assert clock.due(11.0) == 3


def test_pause_holds_the_position_and_resume_continues_from_it():
    clock = ReplayClock.start("r1", events([1.0, 1.0, 1.0]), "1x", now=0.0)
    clock.pause(now=1.5)
    assert clock.paused and clock.position(50.0) == 1.5 and clock.due(50.0) == 2
    assert not clock.playing(50.0)
    clock.resume(now=50.0)
    assert clock.position(50.6) == pytest.approx(2.1) and clock.due(50.6) == 3


def test_changing_speed_keeps_the_position():
    clock = ReplayClock.start("r1", events([2.0, 2.0, 2.0]), "1x", now=0.0)
    clock.set_speed("5x", now=1.0)  # 1 s played
    assert clock.position(1.0) == 1.0
    assert clock.position(1.25) == pytest.approx(2.25)  # 0.25 s of wall time at 5x
    clock.set_speed("Instant", now=1.2)
    assert clock.finished(1.2)


def test_the_view_folds_only_the_due_events_and_running_timers_read_replay_time():
    clock = ReplayClock.start("r1", events([1.0, 2.0]), "1x", now=0.0)
    view = clock.view(now=2.5)  # run_started (0 s), web-2 (1 s) due; web-3 (3 s) not yet
    assert list(view.researchers) == ["web-2"]
    # web-2 started 1.5 s before the replayed moment: its card must not count to today's clock.
    assert view.researchers["web-2"].seconds == 1.5 and view.seconds == 2.5


def test_freeze_elapsed_keeps_recorded_times():
    view = fold(events([1.0]), RunView(run_id="r1"))
    view.researchers["web-2"].seconds = 0.25  # finished: its own time stands
    freeze_elapsed(view, T0 + 9.0)
    assert view.researchers["web-2"].seconds == 0.25 and view.seconds == 9.0


class _Store:
    def __init__(self, versions):
        self.versions = versions

    def draft_versions(self, run_id):
        return self.versions

    def get_text(self, run_id, source_id):
        return "passed through"


def test_replay_store_shows_only_drafts_that_existed_at_the_replayed_moment():
    v1 = DraftVersion("r1", 1, T0 + 5.2, "Writer's draft", "# v1")
    v2 = DraftVersion("r1", 2, T0 + 900.0, "Edited", "# v2")
    store = _Store([v1, v2])
    before = RunView(run_id="r1")  # no draft_ready yet
    assert ReplayStore(store, before, T0 + 100.0).draft_versions("r1") == []
    after = RunView(run_id="r1", draft="# v1")
    assert ReplayStore(store, after, T0 + 5.0).draft_versions("r1") == [v1]  # stored a moment after the event
    assert ReplayStore(store, after, T0 + 1000.0).latest_draft("r1") is v2
    assert ReplayStore(store, after, T0).get_text("r1", "s1") == "passed through"
