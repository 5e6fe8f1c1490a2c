"""Loopback fakes of the external services, for offline tests.

`http_server` is the generic fake (routes, request log, scripted faults); `service_fakes` holds
replies in each service's real wire format. Provider rate limits are process-wide and, for arXiv,
one request per three seconds: tests call `lift_rate_limits()` (or `set_limiter`) first.
"""

from __future__ import annotations

from research.sources.http import PROVIDER_LIMITS, reset_limiters, set_limiter
from tests.fakes.http_server import (
    FakeRequest,
    FakeServer,
    Handler,
    Reply,
    faults,
    json_reply,
    sequence,
    slow,
    text_reply,
)


def lift_rate_limits(*providers: str, concurrency: int = 8) -> None:
    """Forget all limiters, then give `providers` (default: every known one) no request spacing."""
    reset_limiters()
    for provider in providers or tuple(PROVIDER_LIMITS):
        set_limiter(provider, concurrency=concurrency, per_second=0)


__all__ = [
    "FakeRequest",
    "FakeServer",
    "Handler",
    "Reply",
    "faults",
    "json_reply",
    "lift_rate_limits",
    "sequence",
    "slow",
    "text_reply",
]
