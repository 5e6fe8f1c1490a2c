"""Bounded retries for providers that call a client library instead of httpx (Tavily, ddgs).

`http.request_with_retries` owns the HTTP-level loop for httpx providers. Client libraries raise
their own exceptions and do not retry, so their providers classify each failure as retryable
(429, 5xx, timeouts, dropped connections: raise `Retryable`) or final (raise ProviderError),
and this loop applies the same policy: attempts, exponential back-off with jitter, Retry-After
up to a cap, the provider's shared rate limiter, and a hard deadline per attempt.
"""

from __future__ import annotations

import logging
from typing import Callable, TypeVar

from research.sources import http as http_core
from research.sources.base import ProviderError

log = logging.getLogger(__name__)
T = TypeVar("T")


class Retryable(Exception):
    """One attempt failed in a way a later attempt may not (message must carry no secrets)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class _Final(Exception):
    def __init__(self, error: ProviderError) -> None:
        super().__init__(str(error))
        self.error = error


def call_with_retries(
    attempt: Callable[[], T], *, provider: str, policy: http_core.HttpPolicy, deadline: float | None = None
) -> T:
    """Run `attempt` until it returns, raises ProviderError, or `policy.retries` attempts fail.

    Each attempt holds the provider's rate-limiter slot and is cut off after `deadline` seconds
    (default: policy.timeout plus a little, since the library has its own per-read timeout).
    """
    attempts = max(1, policy.retries)
    limit = deadline if deadline is not None else policy.timeout + 1.0

    def guarded() -> T:
        try:
            return attempt()
        except ProviderError as exc:  # final: keep it apart from call_with_timeout's own error
            raise _Final(exc) from None

    for number in range(1, attempts + 1):
        try:
            with http_core.limiter_for(provider):
                return http_core.call_with_timeout(guarded, timeout=limit, provider=provider)
        except _Final as final:
            raise final.error from None
        except Retryable as exc:
            failure, retry_after = exc.message, exc.retry_after
        except ProviderError as exc:  # only call_with_timeout raises it here: the hard deadline
            failure, retry_after = exc.message, None
        if number == attempts:
            raise ProviderError(provider, f"{failure} (after {attempts} attempt{'s' * (attempts > 1)})")
        wait = policy.backoff(number) if retry_after is None else min(retry_after, policy.retry_after_cap)
        log.info("%s: %s; retrying in %.2fs", provider, failure, wait)
        http_core._sleep(wait)
    raise AssertionError("unreachable")
