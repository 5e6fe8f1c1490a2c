"""Bounded retries for providers that call a client library instead of httpx (Tavily, ddgs).

`http.request_with_retries` owns the HTTP-level loop for httpx providers. Client libraries raise
their own exceptions and do not retry, so their providers classify each failure as retryable
(429, 5xx, timeouts, dropped connections: raise `Retryable`) or final (raise ProviderError),
and this applies the same policy (retrying.py, on tenacity): attempts, exponential back-off with
jitter, Retry-After up to a cap, the provider's shared rate limiter, and a hard deadline per attempt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from research.sources import http as http_core
from research.sources.provider_base import ProviderError
from research.sources.retrying import RetryableFailure

T = TypeVar("T")


class Retryable(RetryableFailure):
    """One attempt failed in a way a later attempt may not (message must carry no secrets)."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message, retry_after)


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
    limit = deadline if deadline is not None else policy.timeout + 1.0

    def guarded() -> T:
        try:
            return attempt()
        except ProviderError as exc:  # final: keep it apart from call_with_timeout's own error
            raise _Final(exc) from None

    def once() -> T:
        try:
            with http_core.limiter_for(provider):
                return http_core.call_with_timeout(guarded, timeout=limit, provider=provider)
        except _Final as final:
            raise final.error from None
        except ProviderError as exc:  # only call_with_timeout raises it here: the hard deadline
            raise RetryableFailure(exc.message) from None

    try:
        for try_ in policy.retrying(provider):
            with try_:
                return once()
    except RetryableFailure as last:  # every attempt failed (Retryable included)
        attempts = max(1, policy.retries)
        raise ProviderError(provider, f"{last.message} (after {attempts} attempt{'s' * (attempts > 1)})") from None
    raise AssertionError("unreachable")  # tenacity returns the result or raises
