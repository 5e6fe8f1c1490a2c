"""DuckDuckGo web search (no key) through the `ddgs` package's DuckDuckGo HTML backend.

ddgs talks HTTP through primp, a Rust client Python mocks cannot see, so tests point the engine
itself somewhere else: the backend posts the form to its `search_url` attribute
(https://html.duckduckgo.com/html/), which `settings.ddgs_url` overrides per engine instance.

Why the engine and not `DDGS().text()`: DDGS swallows HTTP statuses (a 429 or 500 looks like "no
results") and, with backend="auto", fans out to a dozen other engines that no base-URL setting
could redirect. The engine's `request` is overridden only to keep the status, so 429/5xx are
retried (Retry-After honoured); parsing stays the library's.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ddgs.engines.duckduckgo import Duckduckgo
from ddgs.exceptions import DDGSException, TimeoutException

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources import http as http_core
from research.sources.client_retry import Retryable, call_with_retries
from research.sources.provider_base import ProviderError, Retrieval

NAME = "duckduckgo"
# DuckDuckGo's HTML endpoint answers 202 with a challenge page when it throttles a client.
_THROTTLE_STATUS = frozenset({202, 429})
# Present on every results page, including "No results." ones.
_RESULTS_PAGE = re.compile(r"""id=["']links["']|class=["'][^"']*\bno-results\b|result__body""")


class _StatusKeepingDuckduckgo(Duckduckgo):
    """The library's DuckDuckGo engine, raising on a non-200 reply instead of returning None."""

    def __init__(self, search_url: str | None, timeout: float) -> None:
        super().__init__(timeout=timeout)  # type: ignore[arg-type]  # primp accepts float seconds
        if search_url:
            self.search_url = search_url

    def request(self, *args: Any, **kwargs: Any) -> Any:  # noqa: ANN401
        try:
            response = self.http_client.request(*args, **kwargs)
        except TimeoutException:
            raise Retryable("timed out") from None
        except DDGSException as exc:  # primp connection errors, wrapped by ddgs
            if http_core.is_name_resolution_failure(exc):
                raise ProviderError(NAME, "host not found (no network?)") from None
            raise Retryable(f"connection failed ({type(exc.__cause__ or exc).__name__})") from None
        status = response.status_code
        if status == 200:
            return response.text
        if status in _THROTTLE_STATUS or status >= 500:
            headers = getattr(response._resp, "headers", None) or {}
            retry_after = http_core.parse_retry_after(_header(headers, "retry-after"))
            raise Retryable(f"HTTP {status}", retry_after)
        raise ProviderError(NAME, f"HTTP {status}")

    def extract_results(self, html_text: str) -> list[Any]:
        results = super().extract_results(html_text)
        if not results and not _RESULTS_PAGE.search(html_text):
            # A challenge page or an error document: report it rather than "no results".
            raise ProviderError(NAME, "unrecognised reply: not a DuckDuckGo results page")
        return results


class DuckDuckGoProvider:
    name = NAME
    kind: ResearcherKind = "web"

    def __init__(self, settings: Settings) -> None:
        self._search_url = settings.ddgs_url
        self._policy = http_core.HttpPolicy.from_settings(settings)

    def search(self, query: str, *, limit: int) -> Retrieval:
        results = call_with_retries(lambda: self._search_once(query), provider=NAME, policy=self._policy)
        return to_retrieval(results, query, limit)

    def _search_once(self, query: str) -> list[dict[str, str]]:
        # A fresh engine per call: primp clients are not shared across threads here.
        engine = _StatusKeepingDuckduckgo(self._search_url, self._policy.timeout)
        try:
            found = engine.search(query) or []
        except (ProviderError, Retryable):
            raise
        except Exception as exc:  # lxml parse errors and the like: a malformed page
            raise ProviderError(NAME, f"malformed results page ({type(exc).__name__})") from None
        return [{"title": r.title, "href": r.href, "body": r.body} for r in found]


def to_retrieval(results: list[dict[str, Any]], query: str, limit: int) -> Retrieval:
    """Sources from ddgs result dicts ({title, href, body}); skips anything that is not a page."""
    retrieval = Retrieval(providers_used=[NAME])
    seen: set[str] = set()
    for item in results:
        url = unwrap_redirect(str(item.get("href") or ""))
        title = str(item.get("title") or "").strip()
        if not title or not url.startswith(("http://", "https://")) or url in seen:
            continue
        seen.add(url)
        retrieval.sources.append(
            Source(title=title, url=url, kind="web", provider=NAME, snippet=str(item.get("body") or ""), query=query)
        )
        if len(retrieval.sources) >= limit:
            break
    return retrieval


def unwrap_redirect(href: str) -> str:
    """DuckDuckGo sometimes links through //duckduckgo.com/l/?uddg=<target>; return the target."""
    parts = urlsplit(href if "://" in href else f"https:{href}" if href.startswith("//") else href)
    if parts.netloc.endswith("duckduckgo.com") and parts.path.startswith("/l/"):
        target = parse_qs(parts.query).get("uddg")
        if target:
            return target[0]
    return href


def _header(headers: Any, name: str) -> str | None:
    for key, value in dict(headers).items():
        if str(key).lower() == name:
            return str(value)
    return None
