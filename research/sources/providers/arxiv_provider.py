"""arXiv search through the official `arxiv` client, bounded by the shared HTTP core.

`arxiv.Client` (v4) builds the query URL and parses the Atom feed, but fetches with a bare
`requests.Session.get`: no timeout, immediate retries on any non-200 (404 included), no Retry-After.
So `_BoundedArxivClient` keeps the library's URL building, pagination and parsing and replaces only
the fetch with `request_with_retries` (timeout, backoff, Retry-After, the process-wide arxiv rate
limit of one request per three seconds, which also replaces the client's own `delay_seconds`).

Reply handling, as in every provider: an empty feed is zero results; a body that is not an Atom
feed (or an arXiv error feed) raises ProviderError; entries the library cannot read are skipped
with a RunWarning.
"""

from __future__ import annotations

from typing import Any

import arxiv
from arxiv import _feed as arxiv_feed  # the library's own Atom parser (arxiv >= 4)
from lxml import etree

from research.schemas.researchers import ResearcherKind
from research.schemas.source_quality import SourceFacts
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources.http import HttpPolicy, request_with_retries
from research.sources.provider_base import ProviderError, Retrieval
from research.sources.providers.http_provider import QueryProvider, add_source, rank_score

ATOM_NS = "http://www.w3.org/2005/Atom"
MAX_QUERY_CHARS = 300  # arXiv rejects very long search_query values


class _BoundedArxivClient(arxiv.Client):  # type: ignore[misc]  # arxiv ships no type information
    """An `arxiv.Client` pointed at `query_url` whose every page fetch goes through the HTTP core."""

    def __init__(self, *, query_url: str, policy: HttpPolicy, provider: str, page_size: int) -> None:
        # Retries and spacing are the HTTP core's job; the library's own would multiply them.
        super().__init__(page_size=page_size, delay_seconds=0.0, num_retries=0)
        separator = "&" if "?" in query_url else "?"
        self.query_url_format = query_url.replace("{", "{{").replace("}", "}}") + separator + "{}"
        self._policy = policy
        self._provider = provider
        self.skipped_entries = 0

    def _parse_feed(self, url: str, first_page: bool = True, _try_index: int = 0) -> Any:
        if not first_page:
            # One request per search: the first page already asked for `limit` results, and under
            # arXiv's one-request-per-3-seconds rule a short page is not worth a second request.
            return arxiv_feed.ParsedFeed(header=arxiv_feed.FeedHeader())
        response = request_with_retries("GET", url, provider=self._provider, policy=self._policy)
        content = response.content
        entries = _count_atom_entries(content, self._provider)
        feed = arxiv_feed.parse(content)
        if feed.malformed:
            raise ProviderError(self._provider, "malformed Atom feed (unparseable XML)")
        self.skipped_entries += max(0, entries - len(feed.results))
        for result in feed.results:
            if "/api/errors" in result.entry_id:  # arXiv reports bad queries as an error entry
                raise ProviderError(self._provider, f"arXiv API error: {result.summary.strip()[:200]}")
        return feed


def _facts(journal_ref: str | None) -> SourceFacts:
    """An arXiv paper is a preprint unless its authors give the journal that published it."""
    if journal_ref and journal_ref.strip():
        return SourceFacts(venue=journal_ref, peer_reviewed=True)
    return SourceFacts(venue="arXiv", peer_reviewed=False)


def _count_atom_entries(content: bytes, provider: str) -> int:
    """Entries in an Atom feed; ProviderError if the body is not one (the library's lenient
    parser would read an HTML error page as an empty feed)."""
    try:
        parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=False)
        root = etree.fromstring(content, parser=parser)
    except etree.XMLSyntaxError:
        raise ProviderError(provider, "malformed Atom feed (unparseable XML)") from None
    if root is None or root.tag != f"{{{ATOM_NS}}}feed":
        raise ProviderError(provider, "malformed reply: not an Atom feed")
    return len(root.findall(f"{{{ATOM_NS}}}entry"))


class ArxivProvider(QueryProvider):
    """Academic preprints from arXiv (settings.arxiv_url is the `api/query` endpoint)."""

    name = "arxiv"
    kind: ResearcherKind = "academic"
    max_query_chars = MAX_QUERY_CHARS

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.arxiv_url)

    def fill(self, retrieval: Retrieval, query: str, limit: int) -> None:
        client = _BoundedArxivClient(query_url=self.url, policy=self.policy, provider=self.name, page_size=limit)
        results = list(client.results(arxiv.Search(query=query, max_results=limit)))
        for rank, result in enumerate(results):
            source = self._to_source(result, query=query, score=rank_score(rank, len(results)))
            add_source(retrieval, source, " ".join(result.summary.split()))
        self.warn_skipped(retrieval, client.skipped_entries, "arXiv entries", query)

    def _to_source(self, result: arxiv.Result, *, query: str, score: float) -> Source:
        return Source(
            title=" ".join(result.title.split()) or result.entry_id,
            url=result.entry_id,  # the abs page, e.g. http://arxiv.org/abs/2101.00001v1
            kind="academic",
            provider=self.name,
            snippet=result.summary,
            authors=[a.name for a in result.authors if a.name],
            year=result.published.year if result.published else None,
            doi=(result.doi or None),  # the published version's DOI: the same work as OpenAlex's record
            score=score,
            query=query,
            facts=_facts(result.journal_ref),
        )
