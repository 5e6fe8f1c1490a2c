"""Wikipedia, for reference and historical context, through the MediaWiki API directly.

Why not the `wikipedia` package: it has no request timeout and caches per process. The API is two
small requests through the HTTP core: `list=search` for the hits, then `prop=extracts|info` for
their plain-text intros and canonical URLs.

Reply handling, as in every provider: no hits is zero results; a search body that is not JSON or
has no `query.search` list raises ProviderError (so does an API `error` object); hits without a
title are skipped with a RunWarning. Intros are enrichment: if that second request fails, the hits
are kept with their search snippets and a RunWarning says so.
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import quote, urljoin

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import RunWarning, Source
from research.settings import Settings
from research.sources.http import get_json
from research.sources.provider_base import ProviderError, Retrieval
from research.sources.providers.http_provider import QueryProvider, add_source, rank_score

_TAG = re.compile(r"<[^>]+>")


def strip_markup(text: str) -> str:
    """Search snippets carry <span class="searchmatch"> highlights and HTML entities."""
    return " ".join(html.unescape(_TAG.sub("", text)).split())


class WikipediaProvider(QueryProvider):
    """Encyclopedia articles (settings.wikipedia_url is the `api.php` endpoint)."""

    name = "wikipedia"
    kind: ResearcherKind = "book"

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.wikipedia_url)

    def fill(self, retrieval: Retrieval, query: str, limit: int) -> None:
        hits, skipped = self._search_hits(query, limit)
        pages = self._pages(hits, retrieval) if hits else {}
        for rank, hit in enumerate(hits):
            page = pages.get(hit.get("pageid")) or pages.get(hit["title"]) or {}
            intro = " ".join(str(page.get("extract") or "").split())
            source = Source(
                title=hit["title"],
                url=page.get("fullurl") or self._article_url(hit["title"]),
                kind="book",
                provider=self.name,
                snippet=intro or strip_markup(str(hit.get("snippet") or "")),
                score=rank_score(rank, len(hits)),
                query=query,
            )
            add_source(retrieval, source, intro)
        self.warn_skipped(retrieval, skipped, "Wikipedia hits", query)

    def _search_hits(self, query: str, limit: int) -> tuple[list[dict[str, Any]], int]:
        payload = self._api({"list": "search", "srsearch": query, "srlimit": limit, "srprop": "snippet"})
        hits = payload.get("query", {}).get("search") if isinstance(payload.get("query"), dict) else None
        if not isinstance(hits, list):
            raise ProviderError(self.name, "malformed reply: no 'query.search' list")
        good = [h for h in hits[:limit] if isinstance(h, dict) and isinstance(h.get("title"), str) and h["title"]]
        return good, min(len(hits), limit) - len(good)

    def _pages(self, hits: list[dict[str, Any]], retrieval: Retrieval) -> dict[Any, dict[str, Any]]:
        """Intro extracts and URLs keyed by pageid and by title; {} (plus a warning) on failure."""
        ids = [str(h["pageid"]) for h in hits if isinstance(h.get("pageid"), int)]
        selector = (
            {"pageids": "|".join(ids)} if len(ids) == len(hits) else {"titles": "|".join(h["title"] for h in hits)}
        )
        try:
            payload = self._api(
                {
                    "prop": "extracts|info",
                    "exintro": 1,
                    "explaintext": 1,
                    "exlimit": "max",
                    "inprop": "url",
                    **selector,
                }
            )
        except ProviderError as exc:
            retrieval.warnings.append(
                RunWarning(
                    source=self.name, message=f"article intros unavailable, using search snippets ({exc.message})"
                )
            )
            return {}
        raw = payload.get("query", {}).get("pages") if isinstance(payload.get("query"), dict) else None
        # formatversion=2 gives a list; the classic format a dict keyed by page id.
        pages = raw.values() if isinstance(raw, dict) else raw if isinstance(raw, list) else []
        out: dict[Any, dict[str, Any]] = {}
        for page in pages:
            if isinstance(page, dict):
                if isinstance(page.get("pageid"), int):
                    out[page["pageid"]] = page
                if isinstance(page.get("title"), str):
                    out[page["title"]] = page
        return out

    def _api(self, params: dict[str, Any]) -> dict[str, Any]:
        payload = get_json(
            self.url,
            provider=self.name,
            policy=self.policy,
            params={"action": "query", "format": "json", "formatversion": 2, **params},
        )
        if not isinstance(payload, dict):
            raise ProviderError(self.name, "malformed reply: not a JSON object")
        error = payload.get("error")
        if isinstance(error, dict):
            code = str(error.get("code") or "unknown")[:60]
            raise ProviderError(self.name, f"MediaWiki API error {code}")
        return payload

    def _article_url(self, title: str) -> str:
        """/wiki/Title on the API's host (api.php lives at /w/api.php on Wikimedia wikis)."""
        return urljoin(self.url, "/wiki/" + quote(title.replace(" ", "_")))
