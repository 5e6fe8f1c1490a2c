"""Relative growth of a text path's time: 2x the input must cost at most 3x the time.

A quadratic path costs 4x, a cubic one 8x. Time is this thread's CPU time, not wall time: other
processes on a busy machine take turns on the cores, and those turns are not the path's work. Sizes
grow until the smaller input takes long enough to measure; each size takes the best of several
repeats, and a failed comparison is measured again up to five times (caches and frequency changes
can still slow one measurement), so a linear path passes on a loaded machine.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

MIN_SECONDS = 0.04  # the smaller input's CPU time, so timer noise and caches are small beside it
MAX_CHARS = 4_000_000
_unique = itertools.count()


def _best(fn: Callable[[str], object], text: str, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        unique = f"{text}\n\n{next(_unique)}"  # defeats any cache of the last answer
        started = time.thread_time()
        fn(unique)
        best = min(best, time.thread_time() - started)
    return best


def growth(fn: Callable[[str], object], make: Callable[[int], str], n: int = 2_000, *, repeats: int = 3) -> float:
    """The best (lowest) ratio time(2n) / time(n) over up to three measurements."""
    while _best(fn, make(n), 1) < MIN_SECONDS:
        if len(make(n)) >= MAX_CHARS:
            return 1.0  # millions of characters in a few milliseconds: nothing to grow
        n *= 2
    ratios = []
    for _ in range(5):  # small and large measured in turn, so a burst of load hits both alike
        small = large = float("inf")
        for _ in range(repeats):
            small = min(small, _best(fn, make(n), 1))
            large = min(large, _best(fn, make(2 * n), 1))
        ratios.append(large / max(small, 1e-9))
        if ratios[-1] <= 3.0:
            break
    return min(ratios)
