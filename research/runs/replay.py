"""Replay a stored run from its event log, with its original timing, faster, or at once.

    control = ReplayControl()
    for event in replay_run(store, run_id, speed=5, control=control):
        view.apply(event)                 # the panels fill as they did live
    # another thread: control.pause() / control.resume() / control.stop()

No brain, key or network is involved: a replay only reads events. Gaps between events are the
original gaps divided by `speed` (None = instant), each capped at `max_gap` seconds of original
time, so a run that waited at plan review or was resumed a day later does not stall a demo.

For a UI that polls instead of iterating (a Streamlit fragment), `replay_offsets` and
`events_due` give the same schedule: which events should be on screen after `elapsed` seconds.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypedDict, Unpack

from research.events import Event
from research.runs.store import RunStore

SPEEDS: dict[str, float | None] = {"1x": 1.0, "2x": 2.0, "5x": 5.0, "Instant": None}
DEFAULT_MAX_GAP = 10.0  # seconds of original time between two events, at most
TICK = 0.05  # seconds: how often a waiting replay checks pause/stop


class ReplayControl:
    """Pause, resume and stop a running replay from another thread (or a callback)."""

    def __init__(self) -> None:
        self._running = threading.Event()
        self._running.set()
        self._stopped = threading.Event()

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def stop(self) -> None:
        self._stopped.set()
        self._running.set()  # wake a paused replay so it can end

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def wait_while_paused(self, timeout: float | None = None) -> bool:
        """Block while paused (up to `timeout`); True once running again."""
        return self._running.wait(timeout)


def parse_speed(value: str | float | None) -> float | None:
    """ "5", "5x", 5.0 -> 5.0; "instant" / None -> None (no waiting). Raises ValueError otherwise."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        speed = float(value)
    else:
        text = value.strip().lower().removesuffix("x")
        if text in ("instant", "inf", "max"):
            return None
        try:
            speed = float(text)
        except ValueError:
            raise ValueError(f"speed must be a positive number (1, 2, 5) or 'instant', got {value!r}") from None
    if not speed > 0 or speed == float("inf"):
        raise ValueError(f"speed must be a positive number (1, 2, 5) or 'instant', got {value!r}")
    return speed


def replay_offsets(
    events: list[Event], speed: float | None = 1.0, max_gap: float | None = DEFAULT_MAX_GAP
) -> list[float]:
    """Seconds from the replay's start at which each event is due (0 for all when instant)."""
    offsets: list[float] = []
    at = 0.0
    for i, event in enumerate(events):
        if i and speed is not None:
            gap = max(0.0, event.ts - events[i - 1].ts)
            if max_gap is not None:
                gap = min(gap, max_gap)
            at += gap / speed
        offsets.append(at)
    return offsets


def events_due(offsets: list[float], elapsed: float) -> int:
    """How many events are due `elapsed` seconds into the replay (a polling UI shows that many)."""
    return bisect.bisect_right(offsets, elapsed)


def replay_events(
    events: Iterable[Event],
    *,
    speed: float | None = 1.0,
    control: ReplayControl | None = None,
    should_pause: Callable[[], bool] | None = None,
    sleep: Callable[[float], None] = time.sleep,
    max_gap: float | None = DEFAULT_MAX_GAP,
) -> Iterator[Event]:
    """Yield `events` in order, each after its original gap / speed.

    Pausing (`control.pause()`, or `should_pause()` returning True) holds the replay mid-gap; the
    time spent paused is not counted. `sleep` is injectable so tests run on a fake clock.
    """
    items = list(events)
    offsets = replay_offsets(items, speed, max_gap)
    previous = 0.0
    for event, offset in zip(items, offsets, strict=False):
        remaining = offset - previous
        previous = offset
        while True:
            if control is not None and control.stopped:
                return
            if (control is not None and control.paused) or (should_pause is not None and should_pause()):
                if control is not None and control.paused:
                    control.wait_while_paused(TICK)
                else:
                    sleep(TICK)
                continue
            if remaining <= 0:
                break
            step = min(TICK, remaining)
            sleep(step)
            remaining -= step
        if control is not None and control.stopped:
            return
        yield event


class ReplayOptions(TypedDict, total=False):
    """`replay_events`' pacing keywords, which `replay_run` passes on (their defaults are its)."""

    speed: float | None
    control: ReplayControl | None
    should_pause: Callable[[], bool] | None
    sleep: Callable[[float], None]
    max_gap: float | None


def replay_run(store: RunStore, run_id: str, **options: Unpack[ReplayOptions]) -> Iterator[Event]:
    """Replay a stored run. Raises KeyError (before yielding) when the store has no such run."""
    if store.get_run(run_id) is None:
        raise KeyError(f"No run with id {run_id!r}")
    return replay_events(store.events(run_id), **options)
