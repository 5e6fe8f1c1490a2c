"""GitHub repository search (REST API v3, /search/repositories) over httpx.

Anonymous calls work (10 searches a minute); a token (settings.github_token) raises the limit.
The token travels only in the Authorization header, which http.py never logs.
"""

from __future__ import annotations

from typing import Any

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources import http as http_core
from research.sources.provider_base import ProviderError, Retrieval
from research.sources.providers.http_provider import HttpProvider, listed_items

NAME = "github"
MAX_QUERY_CHARS = 256  # GitHub rejects longer search queries with 422


class GitHubProvider(HttpProvider):
    name = NAME
    kind: ResearcherKind = "web"

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.github_url.rstrip("/"))
        self._token = settings.github_token

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}
        if self._token is not None and self._token.get_secret_value():
            headers["Authorization"] = f"Bearer {self._token.get_secret_value()}"
        return headers

    def search(self, query: str, *, limit: int) -> Retrieval:
        try:
            reply = http_core.get_json(
                f"{self.url}/search/repositories",
                provider=NAME,
                policy=self.policy,
                params={"q": query[:MAX_QUERY_CHARS], "per_page": max(1, min(limit, 100))},
                headers=self._headers(),
            )
        except http_core.HttpStatusError as exc:
            if exc.status_code == 403:  # GitHub's primary rate limit answers 403, not 429
                hint = "" if self._token else "; set GITHUB_TOKEN for a higher limit"
                raise ProviderError(NAME, f"rate limit reached or access refused (HTTP 403){hint}") from None
            raise
        return to_retrieval(reply, query, limit)


def to_retrieval(reply: Any, query: str, limit: int) -> Retrieval:
    retrieval = Retrieval(providers_used=[NAME])
    for item in listed_items(reply, NAME, limit, "full_name", "html_url"):
        owner_field = item.get("owner")
        owner: dict[str, Any] = owner_field if isinstance(owner_field, dict) else {}
        retrieval.sources.append(
            Source(
                title=str(item["full_name"]),
                url=str(item["html_url"]),
                kind="web",
                provider=NAME,
                snippet=_snippet(item),
                authors=[str(owner["login"])] if owner.get("login") else [],
                year=_year(item.get("updated_at")),
                score=_number(item.get("score")),  # GitHub's relevance; stars go in the snippet
                query=query,
            )
        )
    return retrieval


def _snippet(item: dict[str, Any]) -> str:
    facts = [f"{_stars(item):,.0f} stars"]
    if item.get("language"):
        facts.append(str(item["language"]))
    if isinstance(item.get("topics"), list) and item["topics"]:
        facts.append("topics: " + ", ".join(str(t) for t in item["topics"][:6]))
    description = str(item.get("description") or "").strip()
    return f"{description} ({'; '.join(facts)})" if description else f"({'; '.join(facts)})"


def _stars(item: dict[str, Any]) -> float:
    return _number(item.get("stargazers_count"))


def _number(value: Any) -> float:
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0.0


def _year(value: Any) -> int | None:
    text = str(value or "")
    return int(text[:4]) if len(text) >= 4 and text[:4].isdigit() else None
