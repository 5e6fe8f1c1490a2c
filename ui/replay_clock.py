"""The clock of a replay on the Research page: which stored events are on screen at a given moment.

Pure (no Streamlit) so it is easy to test. The timing is research/replay.py's: `replay_offsets`
at 1x gives each event's moment in "run time" (original gaps, long waits capped); the clock maps
wall time to run time (x speed, minus paused stretches) and `events_due` says how many events are
due. The page's fragment asks the clock on every tick and folds that many events.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from research.api import SPEEDS, DraftVersion, Event, RunStore, RunView, events_due, fold, replay_offsets

SPEED_LABELS = tuple(SPEEDS)  # ("1x", "2x", "5x", "Instant")
DRAFT_SLACK = 1.0  # seconds: the writer's version is stored a moment after its draft_ready event

# The wall clock the Research page's replay reads; a browser test sets a clock it moves itself, so
# what is on screen at a moment does not depend on how fast a loaded machine serves the page.
_wall_clock: Callable[[], float] = time.time


def wall_time() -> float:
    return _wall_clock()


def set_wall_clock(clock: Callable[[], float]) -> None:
    global _wall_clock
    _wall_clock = clock


@dataclass
class ReplayClock:
    run_id: str
    events: list[Event]
    speed_label: str = "1x"
    offsets: list[float] = field(default_factory=list)  # run-time seconds of each event (1x, capped gaps)
    played: float = 0.0  # run-time seconds played before the current stretch
    resumed_at: float | None = None  # wall time the current stretch began; None while paused

    @classmethod
    def start(cls, run_id: str, events: list[Event], speed_label: str, now: float) -> ReplayClock:
        clock = cls(run_id=run_id, events=list(events), speed_label=speed_label)
        clock.offsets = replay_offsets(clock.events, 1.0)
        clock.resumed_at = now
        return clock

    @property
    def speed(self) -> float | None:
        return SPEEDS.get(self.speed_label, 1.0)

    @property
    def duration(self) -> float:
        """Run-time seconds from the first event to the last."""
        return self.offsets[-1] if self.offsets else 0.0

    @property
    def paused(self) -> bool:
        return self.resumed_at is None

    def position(self, now: float) -> float:
        """Run-time seconds into the replay (never past the end)."""
        if self.speed is None:
            return self.duration
        running = (now - self.resumed_at) * self.speed if self.resumed_at is not None else 0.0
        return min(self.duration, self.played + max(0.0, running))

    def due(self, now: float) -> int:
        return events_due(self.offsets, self.position(now))

    def finished(self, now: float) -> bool:
        return self.due(now) >= len(self.events)

    def playing(self, now: float) -> bool:
        return not self.paused and not self.finished(now)

    def pause(self, now: float) -> None:
        if not self.paused:
            self.played, self.resumed_at = self.position(now), None

    def resume(self, now: float) -> None:
        if self.paused:
            self.resumed_at = now

    def set_speed(self, label: str, now: float) -> None:
        """Change speed where the replay stands (the position does not jump)."""
        was_paused = self.paused
        self.played, self.resumed_at = self.position(now), None
        self.speed_label = label if label in SPEEDS else "1x"
        if not was_paused:
            self.resumed_at = now

    def source_time(self, now: float) -> float | None:
        """The original wall-clock moment the replay stands at (the run's own timestamps)."""
        n = self.due(now)
        if not n:
            return self.events[0].ts if self.events else None
        last = self.events[n - 1]
        return last.ts + max(0.0, self.position(now) - self.offsets[n - 1])

    def view(self, now: float) -> RunView:
        """The run's panels as they stood at this moment of the original run."""
        n = self.due(now)
        view = fold(self.events[:n], RunView(run_id=self.run_id))
        at = self.source_time(now)
        if at is not None:
            freeze_elapsed(view, at)
        return view


def freeze_elapsed(view: RunView, at: float) -> None:
    """Running timers as they read at `at` (the panels would otherwise count from the original
    start to now, days later): finished parts keep their own recorded seconds."""
    for researcher in view.researchers.values():
        if researcher.seconds is None and researcher.started_ts is not None:
            researcher.seconds = max(0.0, at - researcher.started_ts)
    if view.seconds is None and view.started_ts is not None:
        view.seconds = max(0.0, at - view.started_ts)


class ReplayStore:
    """The run store as a replay sees it: draft versions that existed at the replayed moment.

    The draft panel reads versions from the store; without this a replay would show the final
    (or a later edited) draft before the writer had written anything. Everything else passes
    through to the real store.
    """

    def __init__(self, store: RunStore, view: RunView, at: float | None) -> None:
        self._store, self._view, self._at = store, view, at

    def draft_versions(self, run_id: str) -> list[DraftVersion]:
        if self._view.draft is None or self._at is None:
            return []
        # An imported run's versions are stamped with the import time: none qualify, and the draft
        # panel falls back to the draft of the draft_ready event, which is what was on screen.
        return [v for v in self._store.draft_versions(run_id) if v.created_at <= self._at + DRAFT_SLACK]

    def latest_draft(self, run_id: str) -> DraftVersion | None:
        versions = self.draft_versions(run_id)
        return versions[-1] if versions else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)
