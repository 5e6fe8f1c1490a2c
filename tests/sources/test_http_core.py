"""The HTTP core against a loopback server: retries, Retry-After, timeouts, limits, secrets."""

from __future__ import annotations

import gzip
import socket
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from research.settings import Settings
from research.sources.http import (
    HttpPolicy,
    HttpStatusError,
    RateLimiter,
    call_with_timeout,
    get_json,
    parse_retry_after,
    request_with_retries,
    set_limiter,
)
from research.sources.provider_base import ProviderError
from tests.concurrency import Gauge, concurrently
from tests.conftest import NetworkBlockedError
from tests.fakes import Reply, faults, json_reply, lift_rate_limits, slow
from tests.fakes.clock import FakeClock

FAST = HttpPolicy(timeout=0.5, retries=3, backoff_base=0.2, backoff_cap=1.0, retry_after_cap=5.0)


@pytest.fixture(autouse=True)
def _unthrottled():
    lift_rate_limits("core")
    yield
    lift_rate_limits()


def get(url: str, policy: HttpPolicy = FAST, **kwargs) -> httpx.Response:
    return request_with_retries("GET", url, provider="core", policy=policy, **kwargs)


def test_policy_from_settings_uses_http_timeout():
    policy = HttpPolicy.from_settings(Settings(_env_file=None, http_timeout=0.5))
    assert (policy.timeout, policy.retries, policy.backoff_base, policy.backoff_cap, policy.retry_after_cap) == (
        0.5,
        3,
        0.5,
        8.0,
        30.0,
    )


def test_500_then_success_is_retried_with_backoff(server, sleeps):
    server.route("/r", faults(json_reply({"ok": True}), Reply(500)))
    assert get(server.url("/r")).json() == {"ok": True}
    assert len(server.requests("/r")) == 2
    assert len(sleeps) == 1 and 0.1 <= sleeps[0] <= 0.2  # base 0.2 with jitter in [0.5, 1]


def test_backoff_grows_exponentially_and_is_capped():
    policy = HttpPolicy(backoff_base=1.0, backoff_cap=3.0)
    assert [policy.backoff(n) <= c for n, c in [(1, 1.0), (2, 2.0), (3, 3.0), (6, 3.0)]] == [True] * 4
    assert policy.backoff(2) >= 1.0 and policy.backoff(6) >= 1.5


def test_429_retry_after_seconds_is_honoured(server, sleeps):
    server.route("/r", faults(json_reply([]), Reply(429, {}, {"Retry-After": "1"})))
    assert get(server.url("/r")).status_code == 200
    assert sleeps == [1.0]


def test_retry_after_is_capped(server, sleeps):
    server.route("/r", faults(json_reply([]), Reply(503, {}, {"Retry-After": "3600"})))
    get(server.url("/r"))
    assert sleeps == [FAST.retry_after_cap]


def test_retry_after_http_date_is_honoured(server, sleeps):
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=3), usegmt=True)
    server.route("/r", faults(json_reply([]), Reply(429, {}, {"Retry-After": when})))
    get(server.url("/r"))
    assert len(sleeps) == 1 and 1.0 < sleeps[0] <= 3.0


def test_parse_retry_after_forms():
    now = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("7", now=now) == 7.0
    assert parse_retry_after("Wed, 01 May 2024 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Wed, 01 May 2024 11:00:00 GMT", now=now) == 0.0  # in the past
    assert parse_retry_after("soon", now=now) is None
    assert parse_retry_after(None) is None


def test_persistent_503_fails_after_all_attempts(server, sleeps):
    server.route("/r", Reply(503))
    with pytest.raises(HttpStatusError) as caught:
        get(server.url("/r"))
    assert "HTTP 503 after 3 attempts" in str(caught.value) and caught.value.status_code == 503
    assert len(server.requests("/r")) == 3 and len(sleeps) == 2


def test_404_is_not_retried(server, sleeps):
    server.route("/r", Reply(404, {"error": "nope"}))
    with pytest.raises(HttpStatusError) as caught:
        get(server.url("/r"))
    assert caught.value.status_code == 404
    assert len(server.requests("/r")) == 1 and sleeps == []


def test_timeout_is_bounded_and_retried(server, sleeps):
    server.route("/r", slow(json_reply({}), 5))
    started = time.monotonic()
    with pytest.raises(ProviderError, match=r"timed out after 0.2s \(2 attempts\)"):
        get(server.url("/r"), HttpPolicy(timeout=0.2, retries=2))
    assert time.monotonic() - started < 9.0  # two unbounded attempts would take 10 s
    assert len(server.requests("/r")) == 2


def test_connection_errors_are_retried(sleeps):
    with socket.socket() as probe:  # a loopback port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ProviderError, match="connection failed .* after 3 attempts"):
        get(f"http://127.0.0.1:{port}/r")
    assert len(sleeps) == 2


def test_errors_never_echo_query_strings_or_headers(server, sleeps):
    server.route("/r", Reply(500))
    with pytest.raises(ProviderError) as caught:
        get(server.url("/r"), params={"api_key": "sk-SECRET"}, headers={"Authorization": "Bearer sk-SECRET"})
    assert "sk-SECRET" not in str(caught.value) and "/r" in str(caught.value)
    assert server.requests("/r")[0].headers["Authorization"] == "Bearer sk-SECRET"  # it was sent


def test_get_json_reports_malformed_body(server):
    server.route("/r", Reply(200, b"{not json", {"Content-Type": "application/json"}))
    with pytest.raises(ProviderError, match="malformed JSON"):
        get_json(server.url("/r"), provider="core", policy=FAST)


def test_compressed_bodies_are_decoded(server):
    server.route(
        "/r", Reply(200, gzip.compress(b'{"a": 1}'), {"Content-Encoding": "gzip", "Content-Type": "application/json"})
    )
    assert get_json(server.url("/r"), provider="core", policy=FAST) == {"a": 1}


def test_undecodable_body_is_malformed_not_a_crash(server, sleeps):
    server.route("/r", Reply(200, b"not gzip at all", {"Content-Encoding": "gzip"}))
    with pytest.raises(ProviderError, match="malformed reply: undecodable body"):
        get(server.url("/r"))
    assert sleeps == []


def test_oversized_body_is_refused(server):
    server.route("/r", Reply(200, b"x" * 5000))
    with pytest.raises(ProviderError, match="larger than"):
        get(server.url("/r"), HttpPolicy(timeout=0.5, max_bytes=1024))


def test_rate_limiter_bounds_concurrency():
    limiter = RateLimiter(concurrency=2, per_second=0)
    gauge = Gauge()

    def work() -> None:
        with limiter, gauge.entered():
            time.sleep(0.05)

    concurrently(work, 6)
    assert gauge.peak == 2


def test_rate_limiter_spaces_request_starts():
    clock = FakeClock()
    limiter = RateLimiter(concurrency=4, per_second=20, clock=clock, sleep=clock.sleep)  # one start per 50 ms
    starts: list[float] = []
    for _ in range(4):
        with limiter:
            starts.append(clock())
    assert [round(b - a, 6) for a, b in zip(starts, starts[1:], strict=False)] == [0.05, 0.05, 0.05]
    clock.advance(1.0)  # a quiet second later the next start goes at once
    with limiter:
        pass
    assert clock.sleeps == pytest.approx([0.05, 0.05, 0.05])


def test_requests_share_the_provider_limiter(server):
    in_flight = Gauge()

    def handler(_request):
        with in_flight.entered():
            time.sleep(0.05)
        return Reply(200, {})

    server.route("/r", handler)
    set_limiter("core", concurrency=1, per_second=0)
    concurrently(lambda: get(server.url("/r")), 4)
    assert len(server.requests("/r")) == 4 and in_flight.peak == 1


def test_call_with_timeout_bounds_a_blocking_library_call():
    release = threading.Event()
    started = time.monotonic()
    with pytest.raises(ProviderError, match="wikipedia: timed out after 0.1s"):
        call_with_timeout(release.wait, 10, timeout=0.1, provider="wikipedia")
    assert time.monotonic() - started < 8.0  # the call itself would block 10 s
    release.set()


def test_call_with_timeout_returns_values_and_reraises_errors():
    assert call_with_timeout(lambda a, b=0: a + b, 2, b=3, timeout=1, provider="x") == 5
    with pytest.raises(KeyError):
        call_with_timeout({}.__getitem__, "missing", timeout=1, provider="x")


def test_network_guard_refuses_non_loopback_addresses():
    with pytest.raises(NetworkBlockedError):
        socket.create_connection(("10.255.255.1", 80), timeout=0.2)
    with socket.socket() as sock, pytest.raises(NetworkBlockedError):
        sock.connect(("10.255.255.1", 80))
    with pytest.raises(NetworkBlockedError):
        socket.getaddrinfo("example.com", 443)
    with pytest.raises(NetworkBlockedError):
        httpx.get("http://10.255.255.1/", timeout=0.2)


def test_network_guard_allows_loopback(server):
    server.route("/r", json_reply({"ok": 1}))
    assert httpx.get(server.url("/r").replace("127.0.0.1", "localhost")).json() == {"ok": 1}


def test_a_refunded_start_lets_the_next_request_go_at_once():
    """A request whose host did not resolve reached no server: it must not pace the queue behind it
    (offline, arXiv's 3 s spacing would otherwise delay every fallback to the library)."""
    clock = FakeClock()
    limiter = RateLimiter(concurrency=1, per_second=1 / 3, clock=clock, sleep=clock.sleep)
    with limiter:
        limiter.refund()
    with limiter:
        pass
    assert clock.sleeps == []  # without the refund: a 3 s wait
    with limiter:
        pass
    assert clock.sleeps == pytest.approx([3.0])  # a start that reached a server still paces the next


def test_dns_failures_refund_the_provider_limiter(monkeypatch):
    import socket

    from research.sources import http as http_core

    def no_dns(address, *args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "create_connection", no_dns)
    clock = FakeClock()
    http_core.set_limiter("slowsvc", concurrency=1, per_second=1 / 3, clock=clock, sleep=clock.sleep)
    try:
        policy = HttpPolicy(timeout=2, retries=3)
        for _ in range(3):
            with pytest.raises(ProviderError, match="host not found"):
                request_with_retries("GET", "http://slowsvc.invalid/x", provider="slowsvc", policy=policy)
        assert clock.sleeps == []  # three spaced starts would wait 3 s each
    finally:
        http_core.reset_limiters()


def test_each_provider_keeps_its_own_pool_of_connections(server):
    # One pool per provider (httpcore scans every connection of a pool on each request): two
    # providers on the same host hold a connection each, and each reuses its own.
    server.route("/r", json_reply({}))
    lift_rate_limits("core", "other")
    for provider in ("core", "other", "core", "other", "core"):
        request_with_retries("GET", server.url("/r"), provider=provider, policy=FAST)
    assert len(server.requests("/r")) == 5
    assert server.connections == 2


def test_cookies_a_service_sets_are_never_sent_back(server):
    # The pooled clients serve every run of the process: a cookie one run's answer set must not
    # follow later requests (of any run) back to the service.
    server.route("/set", Reply(200, {}, headers={"Set-Cookie": "session=run-1; Path=/"}))
    server.route("/r", json_reply({}))
    get(server.url("/set"))
    get(server.url("/r"))
    (later,) = server.requests("/r")
    assert "session=run-1" not in str(later.headers)
    assert not any(name.lower() == "cookie" for name in later.headers)
