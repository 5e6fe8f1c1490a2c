"""Which providers serve each researcher kind, and the per-kind fallback to the local library.

RESEARCH_SOURCES: `library` = offline only; `live` = providers only; `auto` = providers, falling
back per kind to the library when every provider of that kind failed, with a warning.
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

from research.schemas import ResearcherKind, RunWarning
from research.settings import Settings
from research.sources.base import ProviderError, Retrieval, SourceProvider

log = logging.getLogger("research.sources")


def live_providers(kind: ResearcherKind, settings: Settings) -> list[SourceProvider]:
    """The live services for one kind, as the settings enable them (imported lazily)."""
    if kind == "web":
        if settings.tavily_api_key:
            from research.sources.tavily_provider import TavilyProvider

            providers: list[SourceProvider] = [TavilyProvider(settings)]
        else:
            from research.sources.ddgs_provider import DuckDuckGoProvider

            providers = [DuckDuckGoProvider(settings)]
        if settings.enable_github:
            from research.sources.github_provider import GitHubProvider

            providers.append(GitHubProvider(settings))
        if settings.enable_stackexchange:
            from research.sources.stackexchange_provider import StackExchangeProvider

            providers.append(StackExchangeProvider(settings))
        return providers
    if kind == "academic":
        from research.sources.arxiv_provider import ArxivProvider
        from research.sources.openalex import OpenAlexProvider

        return [ArxivProvider(settings), OpenAlexProvider(settings)]
    from research.sources.openlibrary import OpenLibraryProvider
    from research.sources.wikipedia_provider import WikipediaProvider

    return [OpenLibraryProvider(settings), WikipediaProvider(settings)]


class SourceRouter:
    """Runs one query against every provider of a kind, in parallel, and merges the results."""

    def __init__(
        self,
        settings: Settings,
        library_provider: Callable[[ResearcherKind], SourceProvider],
        providers: Callable[[ResearcherKind, Settings], list[SourceProvider]] = live_providers,
    ) -> None:
        self.settings = settings
        self._library_provider = library_provider
        self._providers = providers

    def describe(self, kind: ResearcherKind) -> list[str]:
        """Provider names in use for a kind (for the dashboard and the Settings page)."""
        if self.settings.sources == "library":
            return ["library"]
        names = [p.name for p in self._providers(kind, self.settings)]
        return names + (["library (fallback)"] if self.settings.sources == "auto" else [])

    def retrieve(self, kind: ResearcherKind, query: str, limit: int) -> Retrieval:
        if self.settings.sources == "library":
            return _safe_search(self._library_provider(kind), query, limit)
        try:
            providers = self._providers(kind, self.settings)
        except Exception as exc:  # noqa: BLE001 - a provider that cannot even be built is a failure too
            providers = []
            setup_warning = RunWarning(source=kind, message=f"{kind} providers unavailable: {exc}")
        else:
            setup_warning = None
        outcome = Retrieval()
        if setup_warning:
            outcome.warnings.append(setup_warning)
        if providers:
            with ThreadPoolExecutor(max_workers=len(providers), thread_name_prefix=f"src-{kind}") as pool:
                for result in pool.map(lambda p: _safe_search(p, query, limit), providers):
                    outcome.extend(result)
        live_failed = not outcome.providers_used
        if live_failed and self.settings.sources == "auto":
            fallback = _safe_search(self._library_provider(kind), query, limit)
            names = ", ".join(p.name for p in providers) or kind
            outcome.warnings.append(
                RunWarning(source="library", message=f"{names} failed for {query!r}; used the local library instead.")
            )
            outcome.extend(fallback)
        return outcome


def _safe_search(provider: SourceProvider, query: str, limit: int) -> Retrieval:
    """One provider call that can never raise: failures become warnings (and no provider used)."""
    try:
        result = provider.search(query, limit=limit)
    except ProviderError as exc:
        log.warning("Provider %s failed: %s", provider.name, exc.message)
        return Retrieval(warnings=[RunWarning(source=provider.name, message=exc.message)])
    except Exception as exc:  # noqa: BLE001 - a bug in one provider must not end the run
        log.exception("Provider %s crashed", provider.name)
        return Retrieval(warnings=[RunWarning(source=provider.name, message=f"unexpected error: {type(exc).__name__}")])
    if provider.name not in result.providers_used:
        result.providers_used.append(provider.name)
    return result
