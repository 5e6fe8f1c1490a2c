"""Recent provider answers, shared by every run in the process, with single flight.

Researchers of one run often send the same query to the same service ("introduction to heat
pumps" from every book researcher), and the Compare page runs one topic with several allocations
at once. Each such repeat costs a request against a rate limit (arXiv: one per 3 s; Open Library:
2 in flight) and, for paid search APIs, money. So an answer is kept for `seconds`, and a request
that is identical to one still in flight waits for that one instead of sending its own.

Only answers are kept: a failure is shared with the requests that were waiting on it (they asked
at the same moment and would have failed alike) but is never stored, so the next request tries
again. Every caller gets its own copy of the lists, because callers filter them in place.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

from research.sources.provider_base import Retrieval

CacheKey = tuple[str, str, int]  # (provider, query, limit)


def copy_retrieval(result: Retrieval) -> Retrieval:
    """A copy whose lists and dicts the caller may change (sources themselves are immutable)."""
    return Retrieval(
        sources=list(result.sources),
        texts=dict(result.texts),
        warnings=list(result.warnings),
        providers_used=list(result.providers_used),
        off_topic=result.off_topic,
        dropped=list(result.dropped),
    )


class _Flight:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Retrieval | None = None


class SearchCache:
    """`cache.fetch(key, search, keep)`: the cached answer, the in-flight one, or a new search."""

    def __init__(self, seconds: float, max_entries: int = 512) -> None:
        self.seconds = seconds
        self.max_entries = max_entries
        self._entries: OrderedDict[CacheKey, tuple[float, Retrieval]] = OrderedDict()
        self._flights: dict[CacheKey, _Flight] = {}
        self._lock = threading.Lock()
        self.hits = 0  # answers served without a request of their own (stored or in flight)

    @property
    def enabled(self) -> bool:
        return self.seconds > 0

    def fetch(self, key: CacheKey, search: Callable[[], Retrieval], keep: Callable[[Retrieval], bool]) -> Retrieval:
        """`search()` unless a fresh answer for `key` is stored or in flight; `keep(result)` says
        whether an answer may be stored (a provider that failed gives one that may not)."""
        if not self.enabled:
            return search()
        with self._lock:
            stored = self._fresh(key)
            if stored is not None:
                self.hits += 1
                return copy_retrieval(stored)
            flight = self._flights.get(key)
            leader = flight is None
            if leader:
                flight = self._flights[key] = _Flight()
        assert flight is not None
        if not leader:
            flight.done.wait()
            with self._lock:
                self.hits += 1
            assert flight.result is not None
            return copy_retrieval(flight.result)
        try:
            result = search()
            flight.result = result
            with self._lock:
                if keep(result):
                    self._store(key, result)
            return copy_retrieval(result)
        finally:
            if flight.result is None:  # search() raised: the waiting requests get nothing from it
                flight.result = Retrieval()
            with self._lock:
                self._flights.pop(key, None)
            flight.done.set()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def _fresh(self, key: CacheKey) -> Retrieval | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        stored_at, result = entry
        if time.monotonic() - stored_at > self.seconds:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return result

    def _store(self, key: CacheKey, result: Retrieval) -> None:
        self._entries[key] = (time.monotonic(), copy_retrieval(result))
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
