"""Library searches a test can hold (RESEARCH_TEST_HOLD_FILE): while that file exists, each
researcher kind's first search answers and the later ones wait until the test deletes it, so a run
is still running, with one tool call on each card, for as long as the test looks. A wait, not a
delay: a slow machine cannot let the run finish before the test has looked."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from research.sources.router import SourceRouter

CEILING = 300.0  # a test that never lets go: the searches go on after this long


def held(search: Callable[..., Any], hold: Path) -> Callable[..., Any]:
    """`SourceRouter._library_search` made to wait on `hold`."""
    searches: Counter[tuple[float, str]] = Counter()  # (the hold's mtime, kind) -> searches
    lock = threading.Lock()

    def held_search(self, kind, query, limit):  # type: ignore[no-untyped-def]
        try:
            key = (hold.stat().st_mtime, kind)
        except FileNotFoundError:
            return search(self, kind, query, limit)
        with lock:
            searches[key] += 1
            first = searches[key] == 1
        deadline = time.monotonic() + CEILING
        while not first and hold.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        return search(self, kind, query, limit)

    return held_search


def hold_library_searches(hold: Path) -> None:
    """Patches this process's library search to wait on `hold` (a child process's, for good)."""
    SourceRouter._library_search = held(SourceRouter._library_search, hold)  # type: ignore[method-assign]
