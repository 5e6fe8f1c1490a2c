"""Per-provider rate limits shared by every researcher in the process: a concurrency cap and
request spacing (RESEARCH_RATE_LIMITS=off removes the spacing, not the cap).

Kept hand-written rather than pyrate-limiter: a request whose host did not resolve gives its start
back (`refund`), the spacing switch is process-wide, and the concurrency cap is a semaphore either
way; bench/libraries.py measures the two side by side.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class RateLimiter:
    """At most `concurrency` requests in flight and at most `per_second` request starts per second.

    Thread-safe; one instance per provider is shared by every researcher (see `limiter_for`).
    Use as a context manager around one request attempt. `clock` and `sleep` are the time it
    reads and waits on (tests pass a fake clock, so spacing is checked without wall-clock luck).
    """

    def __init__(
        self,
        concurrency: int = 4,
        per_second: float = 5.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self.per_second = per_second
        self._clock, self._sleep = clock, sleep
        self._slots = threading.BoundedSemaphore(concurrency)
        self._lock = threading.Lock()
        self._next_start = 0.0  # monotonic time before which no new request may start

    @property
    def min_interval(self) -> float:
        if not _spacing_enabled:  # RESEARCH_RATE_LIMITS=off: servers that are not the real services
            return 0.0
        return 1.0 / self.per_second if self.per_second > 0 else 0.0

    def acquire(self) -> None:
        self._slots.acquire()
        with self._lock:
            now = self._clock()
            start = max(now, self._next_start)
            self._next_start = start + self.min_interval
        if start > now:
            self._sleep(start - now)

    def release(self) -> None:
        self._slots.release()

    def refund(self) -> None:
        """The last start reached no server (its host did not resolve): the next may go now.

        Call while holding the slot, so the next caller computes its start after the refund."""
        with self._lock:
            self._next_start = min(self._next_start, self._clock())

    def __enter__(self) -> RateLimiter:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


# Known services' published or polite limits; anything else gets limiter_for's arguments.
PROVIDER_LIMITS: dict[str, tuple[int, float]] = {
    "arxiv": (1, 1 / 3),  # arXiv API terms: one request every three seconds
    "openalex": (4, 8.0),  # polite pool allows 10/s
    "openlibrary": (2, 3.0),
    "wikipedia": (4, 5.0),
}
_limiters: dict[str, RateLimiter] = {}
_limiters_lock = threading.Lock()
_spacing_enabled = True


def set_request_spacing(enabled: bool) -> None:
    """Turn per-provider request spacing on or off for the whole process (RESEARCH_RATE_LIMITS).

    Off is for base URLs that are not the real services (local fakes, mirrors, a whole run in a
    test subprocess): arXiv's one request per three seconds would otherwise pace every run.
    Concurrency caps stay either way.
    """
    global _spacing_enabled
    _spacing_enabled = bool(enabled)


def request_spacing_enabled() -> bool:
    return _spacing_enabled


def limiter_for(provider: str, *, concurrency: int = 4, per_second: float = 5.0) -> RateLimiter:
    """The process-wide limiter for `provider`, created on first use.

    The arguments (or PROVIDER_LIMITS for known services) only apply when it is created; later
    calls get the same instance whatever they pass.
    """
    with _limiters_lock:
        limiter = _limiters.get(provider)
        if limiter is None:
            concurrency, per_second = PROVIDER_LIMITS.get(provider, (concurrency, per_second))
            limiter = _limiters[provider] = RateLimiter(concurrency, per_second)
        return limiter


def set_limiter(
    provider: str,
    *,
    concurrency: int,
    per_second: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> RateLimiter:
    """Replace a provider's limiter (tests use this to remove spacing or to give it a fake clock;
    apps to tune a service)."""
    with _limiters_lock:
        limiter = _limiters[provider] = RateLimiter(concurrency, per_second, clock=clock, sleep=sleep)
        return limiter


def reset_limiters() -> None:
    """Forget every limiter (tests)."""
    with _limiters_lock:
        _limiters.clear()
