"""The one HTTP core every live provider goes through: timeouts, bounded retries, rate limits.

Why one module: every external call must be bounded (a timeout, a total deadline, a size cap),
retried only when retrying can help (429, 5xx, timeouts, dropped connections), and throttled per
provider across every researcher in the process, so a wide fan-out cannot start a 429 storm.

The retry policy itself is tenacity's (retrying.py, shared with client_retry.py); the per-provider
limits are rate_limits.py's. This module classifies each attempt's outcome and bounds its body.

Error messages name the provider, the host and path, and what went wrong; never headers, query
strings or bodies, which is where keys and tokens live.
"""

from __future__ import annotations

import email.utils
import functools
import http.cookiejar
import logging
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import httpx
import tenacity

from research.sources.context_pool import in_caller_context
from research.sources.provider_base import ProviderError
from research.sources.rate_limits import (  # re-exported: providers and tests reach them here
    PROVIDER_LIMITS,
    RateLimiter,
    limiter_for,
    request_spacing_enabled,
    reset_limiters,
    set_limiter,
    set_request_spacing,
)
from research.sources.retrying import RetryableFailure, backoff_delay, backoff_wait, retrying

log = logging.getLogger(__name__)
T = TypeVar("T")
__all__ = [
    "DEFAULT_MAX_BYTES",
    "PROVIDER_LIMITS",
    "RETRYABLE_STATUS",
    "USER_AGENT",
    "HttpPolicy",
    "HttpStatusError",
    "RateLimiter",
    "call_with_timeout",
    "get_json",
    "is_name_resolution_failure",
    "limiter_for",
    "parse_retry_after",
    "request_spacing_enabled",
    "request_with_retries",
    "reset_limiters",
    "safe_url",
    "set_limiter",
    "set_request_spacing",
    "shared_client",
    "tls_context",
]

# Indirection so tests can record back-off delays without waiting (monkeypatch `http._sleep`).
# The rate limiter (rate_limits.py) uses time.sleep directly, so its spacing never shows up here.
_sleep: Callable[[float], None] = time.sleep

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
USER_AGENT = "ResearchDesk/1.0 (+https://github.com/; research assistant)"


@dataclass(frozen=True)
class HttpPolicy:
    """How patient to be with one provider call.

    `retries` is the total number of attempts, the first included ("HTTP 503 after 3 attempts").
    `timeout` bounds each network phase (connect, read, ...) and, as a deadline, a whole attempt.
    """

    timeout: float = 15.0
    retries: int = 3
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    retry_after_cap: float = 30.0
    max_bytes: int = DEFAULT_MAX_BYTES

    @classmethod
    def from_settings(cls, settings: Any) -> HttpPolicy:
        return cls(timeout=float(settings.http_timeout))

    def backoff(self, attempt: int) -> float:
        """Exponential back-off with jitter before retry number `attempt` (1-based)."""
        return backoff_delay(backoff_wait(self.backoff_base, self.backoff_cap), attempt)

    def retrying(self, provider: str) -> tenacity.Retrying:
        """This policy's retry loop (tenacity); its sleeps go through `_sleep` (tests record them)."""
        return retrying(
            provider=provider,
            attempts=self.retries,
            backoff=backoff_wait(self.backoff_base, self.backoff_cap),
            retry_after_cap=self.retry_after_cap,
            sleep=lambda seconds: _sleep(seconds),  # looked up per call: tests monkeypatch `_sleep`
        )


class HttpStatusError(ProviderError):
    """A non-retryable HTTP status (4xx other than 429), or a retryable one that never cleared."""

    def __init__(self, provider: str, message: str, status_code: int) -> None:
        super().__init__(provider, message)
        self.status_code = status_code


# --- retries ---------------------------------------------------------------------------------------


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header: delta-seconds or an HTTP date. None if unusable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


def safe_url(url: str | httpx.URL) -> str:
    """Host and path only: query strings and userinfo may carry keys."""
    parts = urlsplit(str(url))
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return f"{host}{parts.path}"


def _read_bounded(response: httpx.Response, deadline: float, max_bytes: int, timeout: float) -> bytes:
    """Read the raw body, giving up past the attempt's deadline or the size cap."""
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_raw():
        size += len(chunk)
        if size > max_bytes:
            raise _BodyTooLarge(max_bytes)
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout(f"body not received within {timeout:g}s")
        chunks.append(chunk)
    return b"".join(chunks)


class _BodyTooLarge(Exception):
    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"reply larger than {max_bytes // 1024} KiB")


def _attempt(client: httpx.Client, method: str, url: str, policy: HttpPolicy, **kwargs: Any) -> httpx.Response:
    deadline = time.monotonic() + policy.timeout
    with client.stream(method, url, timeout=policy.timeout, **kwargs) as streamed:
        try:
            raw = _read_bounded(streamed, deadline, policy.max_bytes, policy.timeout)
        except httpx.StreamConsumed:  # an in-memory transport already holds the decoded body
            return streamed
    # A fresh response from the raw bytes decodes Content-Encoding itself and is fully read.
    return httpx.Response(streamed.status_code, headers=streamed.headers, content=raw, request=streamed.request)


def _attempts(n: int) -> str:
    return f"{n} attempt" if n == 1 else f"{n} attempts"


_NAME_RESOLUTION_MARKERS = (
    "name or service not known",
    "temporary failure in name resolution",
    "nodename nor servname",
    "no address associated",
    "getaddrinfo failed",
    "dns",
)


def is_name_resolution_failure(exc: BaseException) -> bool:
    """True when a connection failed because the host name could not be resolved."""
    text = f"{type(exc).__name__} {exc} {exc.__cause__ or ''}".lower()
    return any(marker in text for marker in _NAME_RESOLUTION_MARKERS)


class StatelessClient(httpx.Client):
    """An httpx client that keeps no cookies: a search API needs none, and a process-wide client
    that stored them (Wikipedia sets some on every answer) would send one user's run's cookies with
    every later run's requests. It also skips httpx's cookie bookkeeping on each request and reply
    (a urllib request and response built around every reply): about a tenth of a loopback
    request's client CPU."""

    @property
    def cookies(self) -> httpx.Cookies:
        return _NO_COOKIES

    @cookies.setter
    def cookies(self, _cookies: Any) -> None:
        return  # nothing is kept


class _EmptyJar(http.cookiejar.CookieJar):
    """A jar that stays empty, whoever sets a cookie in it."""

    def set_cookie(self, cookie: http.cookiejar.Cookie) -> None:
        return

    def extract_cookies(self, response: Any, request: Any) -> None:
        return


class _NoCookies(httpx.Cookies):
    """An always-empty jar: what a reply sets is dropped, not parsed."""

    def __init__(self) -> None:
        super().__init__(_EmptyJar())

    def extract_cookies(self, response: httpx.Response) -> None:
        return


_NO_COOKIES = _NoCookies()


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The process's one verifying TLS context, httpx's default (certifi's bundle, or SSL_CERT_FILE
    or SSL_CERT_DIR), for every client and transport the sources build. Building one loads the CA
    bundle, about 20 ms of CPU that holds the GIL, and each page fetch's new client built its own."""
    return httpx.create_ssl_context()


_clients: dict[str, httpx.Client] = {}
_clients_lock = threading.Lock()


def shared_client(provider: str) -> httpx.Client:
    """The process-wide pooled client of one provider, for its requests that bring none
    (thread-safe, created once per provider).

    A client per request cost every request a new CA-bundle load (~25 ms of CPU, which parallel
    researchers queue for) and a new TCP and TLS handshake; a pooled one reuses connections. One
    pool per provider, not one for all: httpcore scans every connection of its pool on each request
    and each response's close (and polls each idle one's socket), so one pool holding every
    provider's connections cost each request a scan of all of them.
    """
    with _clients_lock:
        client = _clients.get(provider)
        if client is None:
            client = _clients[provider] = StatelessClient(
                follow_redirects=True, headers={"User-Agent": USER_AGENT}, verify=tls_context()
            )
        return client


def request_with_retries(
    method: str,
    url: str,
    *,
    provider: str,
    policy: HttpPolicy,
    client: httpx.Client | None = None,
    params: Any = None,
    headers: dict[str, str] | None = None,
    json: Any = None,
    data: Any = None,
) -> httpx.Response:
    """One HTTP request, bounded and retried; a < 400 response, or ProviderError.

    Retries (up to policy.retries attempts in all) on 429 and 5xx, honouring Retry-After up to
    policy.retry_after_cap, and on timeouts and connection errors. Any other 4xx raises
    HttpStatusError at once. Each attempt holds the provider's rate-limiter slot; back-off
    sleeps do not. With a caller's client, its redirect policy is kept (3xx are returned).
    """
    where = safe_url(url)
    client = client if client is not None else shared_client(provider)
    kwargs = {"params": params, "headers": headers, "json": json, "data": data}
    limiter = limiter_for(provider)
    try:
        for attempt in policy.retrying(provider):
            with attempt:
                number = attempt.retry_state.attempt_number
                return _classified_attempt(client, method, url, policy, limiter, provider, where, number, kwargs)
    except RetryableFailure as last:  # every attempt failed
        if last.status is not None:
            raise HttpStatusError(provider, last.message, last.status) from None
        raise ProviderError(provider, last.message) from None
    raise AssertionError("unreachable")  # tenacity returns the response or raises


def _classified_attempt(
    client: httpx.Client,
    method: str,
    url: str,
    policy: HttpPolicy,
    limiter: RateLimiter,
    provider: str,
    where: str,
    attempt: int,
    kwargs: dict[str, Any],
) -> httpx.Response:
    """One attempt: the response, RetryableFailure when another attempt may help, else ProviderError."""
    try:
        with limiter:
            try:
                response = _attempt(client, method, url, policy, **kwargs)
            except httpx.TransportError as exc:
                if is_name_resolution_failure(exc):
                    limiter.refund()  # nothing reached the service: the next caller need not wait
                raise
    except httpx.TimeoutException:
        raise RetryableFailure(f"timed out after {policy.timeout:g}s ({_attempts(attempt)}) at {where}") from None
    except httpx.UnsupportedProtocol:
        raise ProviderError(provider, f"unsupported URL scheme for {where}") from None
    except httpx.TransportError as exc:
        if is_name_resolution_failure(exc):  # no DNS: offline, retrying only delays the fallback
            raise ProviderError(provider, f"host not found (no network?) at {where}") from None
        raise RetryableFailure(
            f"connection failed ({type(exc).__name__}) after {_attempts(attempt)} at {where}"
        ) from None
    except _BodyTooLarge as exc:
        raise ProviderError(provider, f"{exc} from {where}") from None
    except httpx.InvalidURL:
        raise ProviderError(provider, f"invalid URL {where}") from None
    except httpx.DecodingError:
        raise ProviderError(provider, f"malformed reply: undecodable body from {where}") from None
    except httpx.HTTPError as exc:  # e.g. too many redirects: not worth retrying
        raise ProviderError(provider, f"request failed ({type(exc).__name__}) at {where}") from None
    status = response.status_code
    if status < 400:
        return response
    if status not in RETRYABLE_STATUS:
        raise HttpStatusError(provider, f"HTTP {status} from {where}", status)
    raise RetryableFailure(
        f"HTTP {status} after {_attempts(attempt)} from {where}",
        retry_after=parse_retry_after(response.headers.get("Retry-After")),
        status=status,
    )


def get_json(
    url: str,
    *,
    provider: str,
    policy: HttpPolicy,
    params: Any = None,
    headers: dict[str, str] | None = None,
    client: httpx.Client | None = None,
) -> Any:
    """GET and decode JSON; ProviderError("malformed JSON ...") when the body is not JSON."""
    response = request_with_retries(
        "GET", url, provider=provider, policy=policy, client=client, params=params, headers=headers
    )
    try:
        return response.json()
    except ValueError:
        raise ProviderError(provider, f"malformed JSON from {safe_url(url)}") from None


# --- libraries without timeouts ------------------------------------------------------------------


def call_with_timeout(fn: Callable[..., T], *args: Any, timeout: float, provider: str, **kwargs: Any) -> T:
    """Run a blocking call in a daemon thread and stop waiting after `timeout` seconds.

    The thread cannot be killed; it is a daemon so a stuck call never blocks process exit.
    Exceptions from `fn` are re-raised unchanged; a timeout raises ProviderError.
    """
    outcome: dict[str, Any] = {}

    def runner() -> None:
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # handed back to the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=in_caller_context(runner), name=f"{provider}-call", daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        raise ProviderError(provider, f"timed out after {timeout:g}s")
    if "error" in outcome:
        raise outcome["error"]
    return cast(T, outcome["value"])
