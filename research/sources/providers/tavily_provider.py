"""Tavily web search through the official `tavily-python` client.

The client (requests-based) does not retry and drops the HTTP response when it raises, so the
session it is given has a response hook that notes each response for the calling thread: that is
how a 429's Retry-After and a 5xx status reach the retry loop. The session is one per API key and
base URL, kept for the process, so searches reuse their connections (a new one per search cost a
TCP and TLS handshake each); it keeps no cookies. Tavily returns page text (`raw_content`), kept
in Retrieval.texts, not in the Source.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from http.cookiejar import DefaultCookiePolicy
from typing import Any

import requests
from tavily import TavilyClient
from tavily import errors as tavily_errors

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources import http as http_core
from research.sources.client_retry import Retryable, call_with_retries
from research.sources.provider_base import ProviderError, Retrieval

NAME = "tavily"
_YEAR = re.compile(r"\b(19|20)\d{2}\b")
MAX_SESSIONS = 8  # distinct (key, URL) pairs kept; the least recently used is closed beyond that
_sessions: OrderedDict[tuple[str, str], requests.Session] = OrderedDict()
_sessions_lock = threading.Lock()
_last = threading.local()  # the response the calling thread's last request got


def _note_response(response: requests.Response, *_args: Any, **_kwargs: Any) -> None:
    _last.response = response


def session_for(api_key: str, base_url: str) -> requests.Session:
    """The pooled session for this key and URL (the client puts the key in its headers, so a
    session never serves another key)."""
    ident = (hashlib.sha256(api_key.encode()).hexdigest(), base_url)
    with _sessions_lock:
        session = _sessions.get(ident)
        if session is not None:
            _sessions.move_to_end(ident)
            return session
        session = requests.Session()
        session.cookies.set_policy(DefaultCookiePolicy(allowed_domains=[]))  # nothing carried between searches
        session.hooks["response"].append(_note_response)
        _sessions[ident] = session
        while len(_sessions) > MAX_SESSIONS:
            _sessions.popitem(last=False)[1].close()
        return session


class TavilyProvider:
    name = NAME
    kind: ResearcherKind = "web"

    def __init__(self, settings: Settings) -> None:
        if settings.tavily_api_key is None or not settings.tavily_api_key.get_secret_value():
            raise ProviderError(NAME, "no API key configured (set TAVILY_API_KEY)")
        self._api_key = settings.tavily_api_key
        self._base_url = settings.tavily_url.rstrip("/")
        self._policy = http_core.HttpPolicy.from_settings(settings)

    def search(self, query: str, *, limit: int) -> Retrieval:
        reply = call_with_retries(lambda: self._search_once(query, limit), provider=NAME, policy=self._policy)
        return _to_retrieval(reply, query, limit)

    def _search_once(self, query: str, limit: int) -> dict[str, Any]:
        _last.response = None
        client = TavilyClient(
            api_key=self._api_key.get_secret_value(),
            api_base_url=self._base_url,
            session=session_for(self._api_key.get_secret_value(), self._base_url),
            client_source="research-desk",
        )
        try:
            reply: dict[str, Any] = client.search(
                query,
                max_results=limit,
                search_depth="basic",
                include_raw_content="text",
                timeout=self._policy.timeout,
            )
            return reply
        except Exception as exc:  # the client's exceptions, mapped to retryable or final
            raise _classify(exc, _last.response, self._policy.timeout) from None


def _classify(exc: Exception, response: requests.Response | None, timeout: float) -> Exception:
    """A Retryable for transient failures, otherwise a ProviderError. Never echoes the key."""
    status = response.status_code if response is not None else None
    if isinstance(exc, (tavily_errors.TimeoutError, requests.Timeout)):
        return Retryable(f"timed out after {timeout:g}s")
    if isinstance(exc, requests.ConnectionError):
        return Retryable("connection failed")
    if response is not None and status is not None and (status == 429 or status >= 500):
        retry_after = http_core.parse_retry_after(response.headers.get("Retry-After"))
        return Retryable(f"HTTP {status}", retry_after)
    if isinstance(exc, tavily_errors.InvalidAPIKeyError):
        return ProviderError(NAME, "the API key was refused (HTTP 401)")
    if isinstance(exc, tavily_errors.ForbiddenError):
        return ProviderError(NAME, f"access refused or plan limit reached (HTTP {status})")
    if isinstance(exc, tavily_errors.BadRequestError):
        return ProviderError(NAME, "the request was rejected (HTTP 400)")
    if isinstance(exc, ValueError) and status == 200:  # requests' JSONDecodeError
        return ProviderError(NAME, "malformed JSON in the reply")
    if status is not None:
        return ProviderError(NAME, f"HTTP {status}")
    return ProviderError(NAME, f"request failed ({type(exc).__name__})")


def _to_retrieval(reply: Any, query: str, limit: int) -> Retrieval:
    if not isinstance(reply, dict) or not isinstance(reply.get("results", []), list):
        raise ProviderError(NAME, "malformed reply: no results list")
    retrieval = Retrieval(providers_used=[NAME])
    for item in reply.get("results", [])[:limit]:
        if not isinstance(item, dict) or not item.get("url") or not item.get("title"):
            continue
        source = Source(
            title=str(item["title"]),
            url=str(item["url"]),
            kind="web",
            provider=NAME,
            snippet=str(item.get("content") or ""),
            score=_float(item.get("score")),
            year=_year(item.get("published_date")),
            query=query,
        )
        retrieval.sources.append(source)
        raw = item.get("raw_content")
        if isinstance(raw, str) and raw.strip():
            retrieval.texts[source.id] = raw.strip()
    return retrieval


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def _year(value: Any) -> int | None:
    match = _YEAR.search(str(value or ""))
    return int(match.group(0)) if match else None
