"""Full page text for web results that came without it (DuckDuckGo, GitHub, ...).

Fetching URLs that search results (and their redirects) choose is an SSRF risk, so every hop is
checked by url_safety.check_url after DNS resolution, redirects are followed by hand (at most
MAX_REDIRECTS), the body is capped in bytes and the whole fetch in time, and only text content
types are read. Text comes from trafilatura (main content) with a stdlib fallback; scripts and
styles never reach the result. Failures are warnings: a page that cannot be read leaves its
source with only a snippet.
"""

from __future__ import annotations

import re
import time
from urllib.parse import urljoin

import httpx
import trafilatura

from research.schemas.state_shapes import RunWarning
from research.settings import Settings
from research.sources import http as http_core
from research.sources.context_pool import ContextPool
from research.sources.provider_base import ProviderError, Retrieval, SourceProvider
from research.sources.providers.html_text import html_to_text
from research.sources.providers.pinned_transport import PinnedTransport
from research.sources.providers.url_safety import CheckedURL, Resolver, UnsafeURLError, check_url

NAME = "scraper"
MAX_PAGE_BYTES = 2 * 1024 * 1024
MAX_REDIRECTS = 5
MAX_TEXT_CHARS = 100_000
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = HTML_TYPES | {"text/plain"}
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})


class ScrapeError(Exception):
    """A page could not be read (status, type, timeout, too many redirects, no text)."""


def fetch_page_text(
    url: str,
    settings: Settings,
    *,
    resolver: Resolver | None = None,
    max_bytes: int = MAX_PAGE_BYTES,
) -> str:
    """The readable text of the page at `url`.

    Raises UnsafeURLError for a refused URL (first hop or any redirect) and ScrapeError for
    everything else. `resolver` replaces DNS for the address checks (tests).
    """
    timeout = settings.http_timeout
    deadline = time.monotonic() + timeout
    headers = {"User-Agent": http_core.USER_AGENT, "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9"}
    current = url
    # Connect to the address that was checked (no second DNS lookup: DNS rebinding). With
    # allow_private_urls nothing is checked and the system resolver is used as usual.
    # One TLS context for every fetch (http_core.tls_context): a new one per fetch cost ~20 ms of CPU.
    tls = http_core.tls_context()
    transport = None if settings.allow_private_urls else PinnedTransport(verify=tls)
    with httpx.Client(
        follow_redirects=False, timeout=timeout, headers=headers, transport=transport, verify=tls
    ) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            checked = _check_hop(current, settings, resolver, deadline)
            if transport is not None and checked.addresses:
                transport.pin(checked.host, checked.addresses[0])
            try:
                with http_core.limiter_for(NAME), client.stream("GET", current) as response:
                    if response.status_code in REDIRECT_STATUS:
                        location = response.headers.get("location")
                        if not location:
                            raise ScrapeError(f"HTTP {response.status_code} redirect without a location")
                        current = urljoin(str(response.url), location)
                        continue
                    body, content_type = _read_text_body(response, max_bytes, deadline, timeout)
            except httpx.TimeoutException:
                raise ScrapeError(f"timed out after {timeout:g}s") from None
            except (httpx.TransportError, httpx.InvalidURL) as exc:
                raise ScrapeError(f"connection failed ({type(exc).__name__})") from None
            text = extract_text(body, content_type)
            if not text:
                raise ScrapeError("no readable text on the page")
            return text
    raise ScrapeError(f"more than {MAX_REDIRECTS} redirects")


def _check_hop(url: str, settings: Settings, resolver: Resolver | None, deadline: float) -> CheckedURL:
    """check_url, with DNS bounded by what is left of the fetch's time (getaddrinfo has no timeout)."""
    remaining = max(0.05, deadline - time.monotonic())
    try:
        return http_core.call_with_timeout(
            check_url, url, settings.allow_private_urls, resolver=resolver, timeout=remaining, provider=NAME
        )
    except ProviderError:
        raise ScrapeError(f"DNS lookup timed out after {settings.http_timeout:g}s") from None


def _read_text_body(response: httpx.Response, max_bytes: int, deadline: float, timeout: float) -> tuple[str, str]:
    """The decoded body (first max_bytes only) and its content type; refuses non-text replies."""
    if not 200 <= response.status_code < 300:
        raise ScrapeError(f"HTTP {response.status_code}")
    content_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type not in TEXT_TYPES:
        raise ScrapeError(f"not a text page ({content_type or 'no content type'})")
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():  # decompressed, so the cap also bounds gzip bombs
        if time.monotonic() > deadline:
            raise ScrapeError(f"timed out after {timeout:g}s")
        chunks.append(chunk[: max_bytes - size])
        size += len(chunk)
        if size >= max_bytes:
            break  # stop reading: leaving the block closes the connection
    raw = b"".join(chunks)
    try:
        return raw.decode(response.charset_encoding or "utf-8", errors="replace"), content_type
    except LookupError:  # an unknown charset name
        return raw.decode("utf-8", errors="replace"), content_type


def extract_text(body: str, content_type: str = "text/html") -> str:
    """Main text of an HTML page (trafilatura, else the stdlib converter) or a plain-text body."""
    if content_type in HTML_TYPES:
        text = trafilatura.extract(body, include_comments=False, include_tables=True, favor_recall=True)
        if not text or not text.strip():
            text = html_to_text(body)
    else:
        text = body
    text = re.sub(r"[ \t\r\f\v]+", " ", text.replace("\x00", ""))
    text = re.sub(r"\n\s*\n+", "\n\n", text).strip()
    return text[:MAX_TEXT_CHARS]


def enrich_with_page_text(
    retrieval: Retrieval,
    settings: Settings,
    max_pages: int = 3,
    *,
    resolver: Resolver | None = None,
) -> Retrieval:
    """Fill Retrieval.texts for up to `max_pages` sources without text; failures become warnings.

    Never raises: a refused or unreadable page is one RunWarning, and the source keeps its snippet.
    """
    wanted = [
        s for s in retrieval.sources if s.id not in retrieval.texts and s.url.startswith(("http://", "https://"))
    ][: max(0, max_pages)]
    if not wanted:
        return retrieval

    def fetch(url: str) -> str | Exception:
        try:
            return fetch_page_text(url, settings, resolver=resolver)
        except Exception as exc:  # every failure is reported, none ends the run
            return exc

    with ContextPool(max_workers=len(wanted), thread_name_prefix="scrape") as pool:
        outcomes = list(pool.map(fetch, [s.url for s in wanted]))
    for source, outcome in zip(wanted, outcomes, strict=True):
        if isinstance(outcome, str):
            retrieval.texts[source.id] = outcome
            continue
        if isinstance(outcome, (ScrapeError, UnsafeURLError)):
            reason = str(outcome)
        else:
            reason = f"unexpected {type(outcome).__name__}"
        retrieval.warnings.append(
            RunWarning(source=NAME, message=f"Could not read the page on {source.domain}: {reason}")
        )
    return retrieval


class PageTextProvider:
    """A web provider whose results also get page text (for sources the service gave none)."""

    def __init__(self, inner: SourceProvider, settings: Settings, max_pages: int = 3) -> None:
        self.inner = inner
        self.name = inner.name
        self.kind = inner.kind
        self._settings = settings
        self._max_pages = max_pages

    def search(self, query: str, *, limit: int) -> Retrieval:
        retrieval = self.inner.search(query, limit=limit)  # ProviderError propagates as usual
        return enrich_with_page_text(retrieval, self._settings, self._max_pages)
