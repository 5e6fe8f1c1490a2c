"""OpenAlex works search (all disciplines, humanities included) over its JSON API.

GET {openalex_url}/works?search=...&per-page=N. Abstracts arrive as an inverted index
({word: [positions]}) for copyright reasons; `rebuild_abstract` turns them back into text.

Reply handling, as in every provider: an empty `results` list is zero results; a body that is not
JSON or has no `results` list raises ProviderError; entries without a title are skipped with a
RunWarning.
"""

from __future__ import annotations

from typing import Any

from research.schemas.researchers import ResearcherKind
from research.schemas.source_quality import SourceFacts
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources.provider_base import Retrieval
from research.sources.providers.http_provider import QueryProvider, add_source, rank_score

# Only the fields we map: keeps replies small.
SELECT_FIELDS = (
    "id,doi,title,display_name,publication_year,authorships,abstract_inverted_index,"
    "type,cited_by_count,primary_location"
)
# The host venue's type (primary_location.source.type): a journal or conference reviews what it
# publishes; a repository (arXiv, SSRN, institutional) hosts preprints.
REVIEWED_VENUES = frozenset({"journal", "conference"})


def rebuild_abstract(inverted: Any) -> str:
    """Text from OpenAlex's abstract_inverted_index; '' when absent or not the expected shape."""
    if not isinstance(inverted, dict):
        return ""
    positioned: list[tuple[int, str]] = []
    for word, positions in inverted.items():
        if isinstance(positions, list):
            positioned.extend((p, str(word)) for p in positions if isinstance(p, int))
    return " ".join(word for _, word in sorted(positioned))


class OpenAlexProvider(QueryProvider):
    """Scholarly works from OpenAlex (settings.openalex_url, e.g. https://api.openalex.org)."""

    name = "openalex"
    kind: ResearcherKind = "academic"

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.openalex_url.rstrip("/"))

    def fill(self, retrieval: Retrieval, query: str, limit: int) -> None:
        params = {"search": query, "per-page": limit, "select": SELECT_FIELDS}
        works = self.get_list(f"{self.url}/works", "results", params=params)[:limit]
        skipped = 0
        for rank, work in enumerate(works):
            source, abstract = self._to_source(work, query=query, score=rank_score(rank, len(works)))
            if source is None:
                skipped += 1
                continue
            add_source(retrieval, source, abstract)
        self.warn_skipped(retrieval, skipped, "OpenAlex works", query)

    def _to_source(self, work: Any, *, query: str, score: float) -> tuple[Source | None, str]:
        if not isinstance(work, dict):
            return None, ""
        title = work.get("title") or work.get("display_name")
        if not isinstance(title, str) or not title.strip():
            return None, ""
        abstract = rebuild_abstract(work.get("abstract_inverted_index"))
        year = work.get("publication_year")
        source = Source(
            title=" ".join(title.split()),
            url=str(work.get("doi") or work.get("id") or ""),
            kind="academic",
            provider=self.name,
            snippet=abstract,
            authors=_author_names(work.get("authorships")),
            year=year if isinstance(year, int) else None,
            score=score,
            query=query,
            facts=work_facts(work),
        )
        return source, abstract


def work_facts(work: dict[str, Any]) -> SourceFacts:
    """Venue, peer review and citation count from an OpenAlex work (absent fields stay unknown)."""
    location = work.get("primary_location")
    venue = location.get("source") if isinstance(location, dict) else None
    venue = venue if isinstance(venue, dict) else {}
    venue_type, name = venue.get("type"), venue.get("display_name")
    reviewed: bool | None = None
    if work.get("type") == "preprint" or venue_type == "repository":
        reviewed = False
    elif venue_type in REVIEWED_VENUES:
        reviewed = True
    cited = work.get("cited_by_count")
    return SourceFacts(
        venue=name if isinstance(name, str) else None,
        peer_reviewed=reviewed,
        cited_by=cited if isinstance(cited, int) and not isinstance(cited, bool) and cited >= 0 else None,
    )


def _author_names(authorships: Any) -> list[str]:
    names: list[str] = []
    for authorship in authorships if isinstance(authorships, list) else []:
        author = authorship.get("author") if isinstance(authorship, dict) else None
        name = author.get("display_name") if isinstance(author, dict) else None
        if isinstance(name, str) and name.strip():
            names.append(name.strip())
    return names
