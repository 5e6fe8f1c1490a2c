"""A clock that moves only when told: timing tests check spacing and schedules exactly, whatever
the machine's load (`sleep` advances it instead of waiting)."""

from __future__ import annotations

import threading


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        with self._lock:
            return self._now

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self._now += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += seconds
