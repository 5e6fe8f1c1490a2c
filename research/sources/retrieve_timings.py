"""How long one retrieve of each researcher kind has been taking, for scheduling.

A run's researchers start one after another (each costs a few milliseconds of Python before its
first request), so the ones with the longest chains of requests should start first: book
researchers wait on a search and then on the works' descriptions, while a web search against the
library answers at once. The durations are observed, not assumed, because they depend on which
services are configured and how they are behaving today (arXiv spaces requests 3 s apart).
"""

from __future__ import annotations

import threading

from research.schemas.researchers import ResearcherKind

# Weight of the newest observation: recent behaviour matters, one slow request does not dominate.
SMOOTHING = 0.3


class RetrieveTimings:
    """An exponentially weighted mean of retrieve seconds per kind (thread-safe)."""

    def __init__(self) -> None:
        self._mean: dict[str, float] = {}
        self._lock = threading.Lock()

    def record(self, kind: ResearcherKind, seconds: float) -> None:
        with self._lock:
            previous = self._mean.get(kind)
            self._mean[kind] = seconds if previous is None else previous + SMOOTHING * (seconds - previous)

    def expected(self, kind: ResearcherKind) -> float | None:
        """The kind's typical retrieve time in seconds; None before its first retrieve."""
        with self._lock:
            return self._mean.get(kind)
