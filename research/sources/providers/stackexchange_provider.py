"""Stack Overflow question search through the Stack Exchange API 2.3 (/search/advanced) over httpx.

The API always answers gzip-compressed JSON (httpx decodes it). Two of its rules matter here:
a reply may carry `backoff` (seconds before the same method may be called again; ignoring it
gets the client throttled), and `quota_remaining` counts down a daily allowance. Titles come
HTML-escaped ("&quot;", "&#39;"). The `withbody` filter adds each question's HTML body, kept as
text in Retrieval.texts.
"""

from __future__ import annotations

import html
import threading
import time
from typing import Any

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import RunWarning, Source
from research.settings import Settings
from research.sources import http as http_core
from research.sources.provider_base import ProviderError, Retrieval
from research.sources.providers.html_text import html_to_text
from research.sources.providers.http_provider import HttpProvider, listed_items

NAME = "stackexchange"
SITE = "stackoverflow"
LOW_QUOTA = 20


class BackoffGate:
    """Remembers a `backoff` the API asked for, per API base URL, for every caller in the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._not_before: dict[str, float] = {}

    def remaining(self, key: str) -> float:
        with self._lock:
            return max(0.0, self._not_before.get(key, 0.0) - time.monotonic())

    def hold(self, key: str, seconds: float) -> None:
        with self._lock:
            until = time.monotonic() + seconds
            self._not_before[key] = max(until, self._not_before.get(key, 0.0))


BACKOFF = BackoffGate()


class StackExchangeProvider(HttpProvider):
    name = NAME
    kind: ResearcherKind = "web"

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.stackexchange_url.rstrip("/"))

    def search(self, query: str, *, limit: int) -> Retrieval:
        self._respect_backoff()
        reply = http_core.get_json(
            f"{self.url}/search/advanced",
            provider=NAME,
            policy=self.policy,
            params={
                "order": "desc",
                "sort": "relevance",
                "q": query,
                "site": SITE,
                "pagesize": max(1, min(limit, 100)),
                "filter": "withbody",
            },
        )
        if isinstance(reply, dict) and _positive(reply.get("backoff")):
            BACKOFF.hold(self.url, float(reply["backoff"]))
        return to_retrieval(reply, query, limit)

    def _respect_backoff(self) -> None:
        wait = BACKOFF.remaining(self.url)
        if not wait:
            return
        if wait > self.policy.retry_after_cap:
            raise ProviderError(NAME, f"the API asked to back off for another {wait:.0f}s")
        http_core._sleep(wait)


def to_retrieval(reply: Any, query: str, limit: int) -> Retrieval:
    retrieval = Retrieval(providers_used=[NAME])
    for item in listed_items(reply, NAME, limit, "title", "link"):
        source = Source(
            title=html.unescape(str(item["title"])),
            url=str(item["link"]),
            kind="web",
            provider=NAME,
            snippet=_snippet(item),
            authors=_authors(item),
            year=_year(item.get("creation_date")),
            score=float(item["score"]) if _number(item.get("score")) else 0.0,
            query=query,
        )
        retrieval.sources.append(source)
        if isinstance(item.get("body"), str) and item["body"].strip():
            retrieval.texts[source.id] = html_to_text(item["body"])
    quota = reply.get("quota_remaining")
    if isinstance(quota, int) and quota < LOW_QUOTA:
        retrieval.warnings.append(
            RunWarning(source=NAME, message=f"Stack Exchange daily quota nearly used up: {int(quota)} requests left")
        )
    return retrieval


def _snippet(item: dict[str, Any]) -> str:
    facts = []
    if isinstance(item.get("tags"), list) and item["tags"]:
        facts.append("tags: " + ", ".join(str(t) for t in item["tags"][:6]))
    facts.append("answered" if item.get("is_answered") else "unanswered")
    if _number(item.get("answer_count")):
        facts.append(f"{int(item['answer_count'])} answers")
    if _number(item.get("score")):
        facts.append(f"score {int(item['score'])}")
    excerpt = html_to_text(item["body"])[:300] if isinstance(item.get("body"), str) else ""
    return f"{excerpt} ({'; '.join(facts)})".strip()


def _authors(item: dict[str, Any]) -> list[str]:
    owner = item.get("owner")
    if isinstance(owner, dict) and owner.get("display_name"):
        return [html.unescape(str(owner["display_name"]))]
    return []


def _year(epoch: Any) -> int | None:
    if not _number(epoch):
        return None
    return time.gmtime(int(epoch)).tm_year


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _positive(value: Any) -> bool:
    return _number(value) and value > 0
