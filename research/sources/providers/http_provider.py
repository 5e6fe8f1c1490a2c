"""What the providers over the HTTP core share: the endpoint and HTTP policy they are built with, the
guard a search applies before it asks anything, and how a reply's ranked hits fill a Retrieval."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import RunWarning, Source
from research.settings import Settings
from research.sources.http import HttpPolicy, get_json
from research.sources.provider_base import ProviderError, Retrieval


class HttpProvider:
    """One service endpoint (a URL from the settings), called with the settings' HTTP policy."""

    name: str
    kind: ResearcherKind

    def __init__(self, settings: Settings, url: str) -> None:
        self.url = url
        self.policy = HttpPolicy.from_settings(settings)

    def get_list(self, url: str, key: str, *, params: dict[str, Any]) -> list[Any]:
        """The `key` list of a JSON reply; ProviderError when the body is not an object with one."""
        payload = get_json(url, provider=self.name, policy=self.policy, params=params)
        items = payload.get(key) if isinstance(payload, dict) else None
        if not isinstance(items, list):
            raise ProviderError(self.name, f"malformed reply: no {key!r} list")
        return items

    def warn_skipped(self, retrieval: Retrieval, skipped: int, what: str, query: str) -> None:
        """Hits without what a source needs (a title, mostly) are left out, and a warning counts them."""
        if skipped:
            message = f"skipped {skipped} unreadable {what} for {query!r}"
            retrieval.warnings.append(RunWarning(source=self.name, message=message))


class QueryProvider(HttpProvider, ABC):
    """A search sends the query with its whitespace collapsed (and cut to `max_query_chars`); an empty
    query or a limit under 1 is zero results without a request."""

    max_query_chars: int | None = None

    def search(self, query: str, *, limit: int) -> Retrieval:
        query = " ".join(query.split())[: self.max_query_chars]
        retrieval = Retrieval(providers_used=[self.name])
        if query and limit >= 1:
            self.fill(retrieval, query, limit)
        return retrieval

    @abstractmethod
    def fill(self, retrieval: Retrieval, query: str, limit: int) -> None:
        """Add the service's results for a cleaned, non-empty query (raise ProviderError on a bad reply)."""


def rank_score(rank: int, total: int) -> float:
    """Services list their best hit first: 1.0 for the first of `total`, then evenly lower."""
    return round(1.0 - rank / total, 3)


def add_source(retrieval: Retrieval, source: Source, text: str = "") -> None:
    """A source, and its full text where the service gave one."""
    retrieval.sources.append(source)
    if text:
        retrieval.texts[source.id] = text


def listed_items(reply: Any, provider: str, limit: int, *required: str) -> list[dict[str, Any]]:
    """The first `limit` entries of a reply's `items` list (GitHub's and Stack Exchange's wrapper) that
    are objects with every `required` field set; ProviderError when the reply has no such list."""
    if not isinstance(reply, dict) or not isinstance(reply.get("items"), list):
        raise ProviderError(provider, "malformed reply: no items list")
    return [item for item in reply["items"][:limit] if isinstance(item, dict) and all(item.get(f) for f in required)]
