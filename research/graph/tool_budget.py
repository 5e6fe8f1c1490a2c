"""The run's shared tool-call counters: agent-mode researchers run in parallel threads, and the
per-run and per-round caps (RESEARCH_MAX_TOOL_CALLS_PER_RUN / _PER_ROUND) bound them all together."""

from __future__ import annotations

import threading
from collections import Counter


class ToolCallBudget:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._run = 0
        self._rounds: Counter[int] = Counter()

    def acquire(self, iteration: int, *, per_round: int, per_run: int) -> str | None:
        """Claim one tool call; the reason (naming the setting) when a cap refuses it."""
        with self._lock:
            if self._run >= per_run:
                return f"the run's tool-call limit ({per_run}, RESEARCH_MAX_TOOL_CALLS_PER_RUN) is reached"
            if self._rounds[iteration] >= per_round:
                return (
                    f"round {iteration + 1}'s tool-call limit ({per_round}, "
                    "RESEARCH_MAX_TOOL_CALLS_PER_ROUND) is reached"
                )
            self._run += 1
            self._rounds[iteration] += 1
            return None

    @property
    def used(self) -> int:
        with self._lock:
            return self._run
