"""Open Library book search, plus work descriptions, over its JSON API.

GET {openlibrary_url}/search.json?q=...&limit=N, then (optionally) GET {openlibrary_url}{key}.json
per work for its description, which may be a plain string or {"type": "/type/text", "value": ...}.

Reply handling, as in every provider: an empty `docs` list is zero results; a search body that is
not JSON or has no `docs` list raises ProviderError; docs without a title are skipped with a
RunWarning. Descriptions are enrichment: one that fails leaves its book without a description and
adds a RunWarning, it never fails the search (and is not retried, to keep a query bounded).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from research.schemas.researchers import ResearcherKind
from research.schemas.source_quality import SourceFacts
from research.schemas.state_shapes import RunWarning, Source
from research.settings import Settings
from research.sources.context_pool import ContextPool
from research.sources.http import get_json
from research.sources.provider_base import ProviderError, Retrieval
from research.sources.providers.http_provider import QueryProvider, add_source, rank_score

SEARCH_FIELDS = "key,title,author_name,first_publish_year,first_sentence,subject,publisher,edition_count"
# Descriptions are fetched all at once; the process-wide openlibrary rate limiter (2 in flight) is
# what throttles them. A pool of 2 here made each search three sequential waves of requests even
# where the limiter allows more (mirrors, fakes), and added nothing where it does not. One pool for
# every search of the process, its threads kept: a pool per search started a thread per work,
# between the search's answer and its description requests (the book researcher's critical path).
_DESCRIPTIONS = ContextPool(max_workers=64, thread_name_prefix="openlibrary")


def description_text(value: Any) -> str:
    """A work's description: a string, or {"type": "/type/text", "value": "..."}."""
    if isinstance(value, dict):
        value = value.get("value")
    return " ".join(value.split()) if isinstance(value, str) else ""


class OpenLibraryProvider(QueryProvider):
    """Books from Open Library (settings.openlibrary_url, e.g. https://openlibrary.org)."""

    name = "openlibrary"
    kind: ResearcherKind = "book"

    def __init__(self, settings: Settings, *, fetch_descriptions: bool = True) -> None:
        super().__init__(settings, settings.openlibrary_url.rstrip("/"))
        self.fetch_descriptions = fetch_descriptions
        # One attempt per description: optional detail must not multiply a query's worst case.
        self.description_policy = dataclasses.replace(self.policy, retries=1)

    def fill(self, retrieval: Retrieval, query: str, limit: int) -> None:
        params = {"q": query, "limit": limit, "fields": SEARCH_FIELDS}
        listed = self.get_list(f"{self.url}/search.json", "docs", params=params)[:limit]
        docs: list[dict[str, Any]] = [
            d for d in listed if isinstance(d, dict) and isinstance(d.get("title"), str) and d["title"].strip()
        ]
        descriptions = self._descriptions(docs, retrieval) if self.fetch_descriptions else {}
        for rank, doc in enumerate(docs):
            key: str = doc["key"] if isinstance(doc.get("key"), str) else ""
            description = descriptions.get(key, "")
            fallback = _first_sentence(doc.get("first_sentence"))
            source = Source(
                title=" ".join(doc["title"].split()),
                url=f"{self.url}{key}" if key else "",
                kind="book",
                provider=self.name,
                snippet=description or fallback or _subjects(doc.get("subject")),
                authors=[a for a in doc.get("author_name") or [] if isinstance(a, str)],
                year=doc.get("first_publish_year") if isinstance(doc.get("first_publish_year"), int) else None,
                score=rank_score(rank, len(docs)),
                query=query,
                facts=_book_facts(doc),
            )
            add_source(retrieval, source, description or fallback)
        self.warn_skipped(retrieval, len(listed) - len(docs), "Open Library docs", query)

    def _descriptions(self, docs: list[dict[str, Any]], retrieval: Retrieval) -> dict[str, str]:
        keys = [d["key"] for d in docs if isinstance(d.get("key"), str) and d["key"].startswith("/")]
        if not keys:
            return {}
        outcomes = list(_DESCRIPTIONS.map(self._description, keys))
        failures = [error for _, error in outcomes if error]
        if failures:
            retrieval.warnings.append(
                RunWarning(
                    source=self.name,
                    message=f"{len(failures)} of {len(keys)} work descriptions unavailable ({failures[0]})",
                )
            )
        return {key: text for key, (text, _) in zip(keys, outcomes, strict=True) if text}

    def _description(self, key: str) -> tuple[str, str | None]:
        """(description, error message or None) for one work key such as /works/OL45804W."""
        try:
            work = get_json(f"{self.url}{key}.json", provider=self.name, policy=self.description_policy)
        except ProviderError as exc:
            return "", exc.message
        return description_text(work.get("description") if isinstance(work, dict) else None), None


def _book_facts(doc: dict[str, Any]) -> SourceFacts:
    """The first publisher Open Library lists and how many editions the work has had."""
    publishers = doc.get("publisher")
    listed = publishers if isinstance(publishers, list) else []
    first = next((p for p in listed if isinstance(p, str) and p.strip()), None)
    editions = doc.get("edition_count")
    valid = isinstance(editions, int) and not isinstance(editions, bool) and editions >= 0
    return SourceFacts(publisher=first, editions=editions if valid else None)


def _first_sentence(value: Any) -> str:
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str)), "")
    return description_text(value)


def _subjects(value: Any) -> str:
    subjects = [s for s in value if isinstance(s, str)][:8] if isinstance(value, list) else []
    return "Subjects: " + ", ".join(subjects) if subjects else ""
