"""Each run's wall-clock ceiling, the same rule for the desk and for every peer.

One run's ceiling is `PEERS_TIMEOUT` seconds, or its model setting's default. `PEERS_DEADLINE`
(`HH:MM`, UTC) is when the whole narrowed run has to be over, on a machine shared with others:
each run then gets at most the time left shared evenly by the runs still to come, so a run that
ends early leaves its time to the next ones. A run whose share is under MIN_CEILING is not started
(and named in the results as not run), so a run starved by the deadline never reads as a failure
of its system.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

MIN_CEILING = 60.0  # seconds: less than this, and even the desk's quickest local-model run cannot end
HALF_A_DAY = 12 * 3600


def deadline_from(text: str, now: float) -> float | None:
    """`HH:MM` (UTC) as epoch seconds: the next such time, or one passed in the last 12 hours."""
    hours, _, minutes = text.strip().partition(":")
    if not (hours.isdigit() and minutes.isdigit() and int(hours) < 24 and int(minutes) < 60):
        return None
    day = now - now % 86400
    at = day + int(hours) * 3600 + int(minutes) * 60
    if at < now - HALF_A_DAY:
        at += 86400  # just after midnight's turn: tomorrow's
    elif at > now + HALF_A_DAY:
        at -= 86400  # a time just before midnight, read just after it: yesterday's, passed
    return at


@dataclass
class RunBudget:
    """`budget.ceiling(cap)` before each run: its ceiling in seconds, or None (do not start it)."""

    runs_left: int
    deadline: float | None = None

    @classmethod
    def from_environ(cls, runs: int, now: float | None = None) -> RunBudget:
        wanted = os.environ.get("PEERS_DEADLINE", "").strip()
        moment = time.time() if now is None else now
        deadline = deadline_from(wanted, moment) if wanted else None
        if wanted and deadline is None:
            raise ValueError(f"PEERS_DEADLINE={wanted!r}: expected HH:MM (UTC)")
        return cls(runs, deadline)

    def ceiling(self, cap: float, now: float | None = None) -> float | None:
        runs = max(1, self.runs_left)
        self.runs_left = max(0, self.runs_left - 1)
        if self.deadline is None:
            return cap
        share = (self.deadline - (time.time() if now is None else now)) / runs
        return round(min(cap, share)) if share >= MIN_CEILING else None
