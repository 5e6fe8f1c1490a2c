"""The retry policy every provider shares, built on tenacity.

Bounded attempts (the first included), exponential back-off with "equal" jitter (half the capped
delay fixed, half random), and a server's Retry-After honoured up to a cap instead of the back-off.
Only `RetryableFailure` is retried: anything else (a ProviderError, a DNS failure) ends the call at
once. `http.request_with_retries` (httpx providers) and `client_retry.call_with_retries` (client
libraries) each wrap one attempt and raise `RetryableFailure` when another attempt may help.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import tenacity
from tenacity.wait import wait_base

log = logging.getLogger("research.sources.http")


class RetryableFailure(Exception):
    """One attempt failed in a way a later one may not; the message must carry no secrets.

    `retry_after`: seconds the server asked for (Retry-After); `status`: the HTTP status, if any.
    """

    def __init__(self, message: str, retry_after: float | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after
        self.status = status


def backoff_wait(base: float, cap: float) -> wait_base:
    """min(cap, base * 2**(n-1)) * uniform(0.5, 1) before retry n: a fixed half plus a random half."""
    half_base, half_cap = base / 2, cap / 2
    return tenacity.wait_exponential(multiplier=half_base, max=half_cap) + tenacity.wait_random_exponential(
        multiplier=half_base, max=half_cap
    )


def backoff_delay(wait: wait_base, attempt: int) -> float:
    """The delay `wait` gives before retry number `attempt` (1-based), outside any retry loop."""
    state = tenacity.RetryCallState(retry_object=None, fn=None, args=(), kwargs={})  # type: ignore[arg-type]
    state.attempt_number = attempt
    return float(wait(state))


class _RetryAfterOrBackoff(wait_base):
    """The server's Retry-After (capped) when the failed attempt carried one, else the back-off."""

    def __init__(self, backoff: wait_base, retry_after_cap: float) -> None:
        self.backoff = backoff
        self.retry_after_cap = retry_after_cap

    def __call__(self, retry_state: tenacity.RetryCallState) -> float:
        outcome = retry_state.outcome
        failure = outcome.exception() if outcome is not None and outcome.failed else None
        if isinstance(failure, RetryableFailure) and failure.retry_after is not None:
            return min(failure.retry_after, self.retry_after_cap)
        return float(self.backoff(retry_state))


def retrying(
    *,
    provider: str,
    attempts: int,
    backoff: wait_base,
    retry_after_cap: float,
    sleep: Callable[[float], None],
) -> tenacity.Retrying:
    """A tenacity loop over one provider call: `for attempt in retrying(...): with attempt: ...`.

    When every attempt failed, the last RetryableFailure is raised (reraise), for the caller to
    turn into its ProviderError. `sleep` is the caller's (tests record the delays instead).
    """

    def announce(state: tenacity.RetryCallState) -> None:
        failure = state.outcome.exception() if state.outcome is not None else None
        wait = state.next_action.sleep if state.next_action is not None else 0.0
        log.info("%s: %s; retrying in %.2fs", provider, failure, wait)

    return tenacity.Retrying(
        stop=tenacity.stop_after_attempt(max(1, attempts)),
        wait=_RetryAfterOrBackoff(backoff, retry_after_cap),
        retry=tenacity.retry_if_exception_type(RetryableFailure),
        before_sleep=announce,
        sleep=sleep,
        reraise=True,
    )
