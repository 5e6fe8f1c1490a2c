"""The garbage collector's share of the measured runs: `with CollectorTime() as gc_time:` counts
every collection that ends inside the block and the time it held the GIL (gc.callbacks).

A full (generation 2) collection walks every tracked object in the process. Before the process's
long-lived heap was frozen after its first run (research/runs/heap.py) that was ~190,000 objects,
~150 ms with every thread of the run stopped; the figure shows what is left of it.
"""

from __future__ import annotations

import gc
import time
from typing import Any


class CollectorTime:
    def __init__(self) -> None:
        self.collections = [0, 0, 0]  # by generation
        self.seconds = [0.0, 0.0, 0.0]
        self.longest_full = 0.0
        self._started: float | None = None

    def __enter__(self) -> CollectorTime:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        # Collections never overlap (each holds the GIL from start to stop), so one start is enough.
        if phase == "start":
            self._started = time.perf_counter()
            return
        if self._started is None:  # began before the block
            return
        took, generation = time.perf_counter() - self._started, info["generation"]
        self._started = None
        self.collections[generation] += 1
        self.seconds[generation] += took
        if generation == 2:
            self.longest_full = max(self.longest_full, took)

    def per_run(self, runs: int) -> dict[str, Any]:
        """For results.json: collector ms per run, full collections, the longest full one."""
        return {
            "runs": runs,
            "ms_per_run": round(sum(self.seconds) / max(runs, 1) * 1000, 2),
            "full_collections": self.collections[2],
            "longest_full_ms": round(self.longest_full * 1000, 1),
            "frozen_objects": gc.get_freeze_count(),
        }
