"""Helpers for tests that call from many threads at once: run a call concurrently, and count how
many callers are inside a block together."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


def concurrently(call: Callable[[], T], count: int, *, timeout: float | None = None) -> list[T]:
    """Runs `call` in `count` threads started together; returns what they returned, in the order
    they finished (fewer if some are still running after `timeout` s each)."""
    results: list[T] = []
    threads = [threading.Thread(target=lambda: results.append(call())) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return results


class Gauge:
    """How many callers are inside `with gauge.entered():` now, and the most there ever were at once."""

    def __init__(self) -> None:
        self.inside = 0
        self.peak = 0
        self._lock = threading.Lock()

    @contextmanager
    def entered(self) -> Iterator[None]:
        with self._lock:
            self.inside += 1
            self.peak = max(self.peak, self.inside)
        try:
            yield
        finally:
            with self._lock:
                self.inside -= 1
