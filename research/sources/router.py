"""Which providers serve each researcher kind, and the per-kind fallback to the local library.

RESEARCH_SOURCES: `library` = offline only; `live` = providers only; `auto` = providers, falling
back per kind to the library when every provider of that kind failed, with a warning.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Sequence

from research.schemas.researchers import ResearcherKind
from research.schemas.source_quality import SourceControls
from research.schemas.state_shapes import RunWarning, Source
from research.secrets import mask
from research.settings import Settings
from research.sources.context_pool import ContextPool
from research.sources.identity import dedupe_works
from research.sources.provider_base import ProviderError, Retrieval, SourceProvider
from research.sources.retrieve_timings import RetrieveTimings
from research.sources.screening import NO_CONTROLS, screen
from research.sources.search_cache import SearchCache
from research.sources.shapes import as_retrieval

log = logging.getLogger("research.sources")

# After a provider fails, skip it for this long: with no network, every query would otherwise
# wait out its retries before falling back to the library.
BREAKER_SECONDS = 60.0
# The providers of a kind, searched at once, for every retrieve of the process: its threads are
# kept, so a retrieve starts none between its researcher's queries and their requests. Provider
# searches never submit here themselves (Open Library's descriptions have a pool of their own).
_PROVIDER_SEARCHES = ContextPool(max_workers=64, thread_name_prefix="provider-search")
PAGES_PER_QUERY = 2


class CircuitBreaker:
    """Process-wide memory of which providers just failed.

    Kept rather than pybreaker, which wraps calls and leaves "open" only when a call goes through
    it; the router asks by provider name whether it failed in the last minute (bench/libraries.py).
    """

    def __init__(self, seconds: float = BREAKER_SECONDS) -> None:
        self.seconds = seconds
        self._open_until: dict[str, float] = {}
        self._lock = threading.Lock()

    def is_open(self, name: str) -> bool:
        with self._lock:
            return self._open_until.get(name, 0.0) > time.monotonic()

    def trip(self, name: str) -> None:
        with self._lock:
            self._open_until[name] = time.monotonic() + self.seconds

    def reset(self, name: str) -> None:
        with self._lock:
            self._open_until.pop(name, None)


BREAKER = CircuitBreaker()


def live_providers(kind: ResearcherKind, settings: Settings) -> list[SourceProvider]:
    """The live services for one kind, as the settings enable them (imported lazily).

    Every live provider is built here (runs and the Settings page's check), so this is also where
    the process-wide RESEARCH_RATE_LIMITS switch takes effect.
    """
    from research.sources.http import set_request_spacing

    set_request_spacing(settings.rate_limits)
    if kind == "web":
        from research.sources.providers.scraper import PageTextProvider

        if settings.tavily_api_key:
            from research.sources.providers.tavily_provider import TavilyProvider

            search: SourceProvider = TavilyProvider(settings)
        else:
            from research.sources.providers.ddgs_provider import DuckDuckGoProvider

            search = DuckDuckGoProvider(settings)
        # Search services give snippets; the writer quotes page text, so fetch a few pages.
        providers: list[SourceProvider] = [PageTextProvider(search, settings, max_pages=PAGES_PER_QUERY)]
        if settings.enable_github:
            from research.sources.providers.github_provider import GitHubProvider

            providers.append(GitHubProvider(settings))
        if settings.enable_stackexchange:
            from research.sources.providers.stackexchange_provider import StackExchangeProvider

            providers.append(StackExchangeProvider(settings))
        return providers
    if kind == "academic":
        from research.sources.providers.arxiv_provider import ArxivProvider
        from research.sources.providers.openalex import OpenAlexProvider

        return [ArxivProvider(settings), OpenAlexProvider(settings)]
    from research.sources.providers.openlibrary import OpenLibraryProvider
    from research.sources.providers.wikipedia_provider import WikipediaProvider

    return [OpenLibraryProvider(settings), WikipediaProvider(settings)]


class SourceRouter:
    """Runs one query against every provider of a kind, in parallel, and merges the results."""

    def __init__(
        self,
        settings: Settings,
        library_provider: Callable[[ResearcherKind], SourceProvider],
        providers: Callable[[ResearcherKind, Settings], list[SourceProvider]] = live_providers,
        breaker: CircuitBreaker = BREAKER,
        cache: SearchCache | None = None,
    ) -> None:
        self.settings = settings
        self._library_provider = library_provider
        self._providers = providers
        self.breaker = breaker
        self.cache = cache if cache is not None else SearchCache(settings.search_cache_seconds)
        self.timings = RetrieveTimings()

    def describe(self, kind: ResearcherKind) -> list[str]:
        """Provider names in use for a kind (for the dashboard and the Settings page)."""
        if self.settings.sources == "library":
            return ["library"]
        names = [p.name for p in self._providers(kind, self.settings)]
        return names + (["library (fallback)"] if self.settings.sources == "auto" else [])

    def retrieve(
        self,
        kind: ResearcherKind,
        query: str,
        limit: int,
        topic: str | None = None,
        controls: SourceControls = NO_CONTROLS,
    ) -> Retrieval:
        """Sources for one query. With a `topic`, results not about its subject are dropped, and
        results outside the run's `controls` too, before deciding on the fallback, so a kind whose
        live hits are all dropped still gets the library's."""
        started = time.monotonic()
        try:
            return self._retrieve(kind, query, limit, topic, controls)
        finally:
            self.timings.record(kind, time.monotonic() - started)

    def expected_seconds(self, kind: ResearcherKind) -> float | None:
        """How long a retrieve of this kind has been taking (None before the first one)."""
        return self.timings.expected(kind)

    def _retrieve(
        self, kind: ResearcherKind, query: str, limit: int, topic: str | None, controls: SourceControls
    ) -> Retrieval:
        if self.settings.sources == "library":
            result = screen(self._library_search(kind, query, limit), topic, query, controls)
            result.sources = dedupe_works(result.sources, result.texts)
            return result
        try:
            providers = self._providers(kind, self.settings)
        except Exception as exc:  # noqa: BLE001 - a provider that cannot even be built is a failure too
            providers = []
            setup_warning: RunWarning | None = RunWarning(source=kind, message=f"{kind} providers unavailable: {exc}")
        else:
            setup_warning = None
        outcome = Retrieval()
        if setup_warning:
            outcome.warnings.append(setup_warning)
        resting = [p for p in providers if self.breaker.is_open(p.name)]
        active = [p for p in providers if p not in resting]
        for provider in resting:
            outcome.warnings.append(
                RunWarning(
                    source=provider.name,
                    message=f"skipped: it failed within the last {self.breaker.seconds:g} s",
                )
            )
        if active:
            secrets = self.settings.secret_values()
            # One provider is searched on this thread: a pool thread would only add its start.
            searches = (
                [self._search(active[0], query, limit, secrets)]
                if len(active) == 1
                else _PROVIDER_SEARCHES.map(lambda p: self._search(p, query, limit, secrets), active)
            )
            for provider, result in zip(active, searches, strict=True):  # one per provider
                if provider.name in result.providers_used:
                    self.breaker.reset(provider.name)
                    if not result.sources and not result.warnings:  # an empty reply is shown, not hidden
                        result.warnings.append(RunWarning(source=provider.name, message=f"no results for {query!r}"))
                else:
                    self.breaker.trip(provider.name)
                outcome.extend(screen(result, topic, query, controls))
        # Fall back when the kind has nothing to show: every provider failed, rested, or found nothing.
        if not outcome.sources and self.settings.sources == "auto":
            outcome.warnings.append(
                RunWarning(
                    source="library",
                    message=f"{_why_nothing(kind, providers, outcome.providers_used)} for {query!r}; "
                    "used the local library instead.",
                )
            )
            outcome.extend(screen(self._library_search(kind, query, limit), topic, query, controls))
        outcome.sources = dedupe_works(outcome.sources, outcome.texts)  # one work, one source
        return outcome

    # --- one provider at a time: the tools of agent-mode researchers (research/sources/tools.py) ---
    def tool_providers(self, kind: ResearcherKind) -> list[SourceProvider]:
        """The live providers an agent may call by name (none in library mode, or when unbuildable)."""
        if self.settings.sources == "library":
            return []
        try:
            return list(self._providers(kind, self.settings))
        except Exception:  # noqa: BLE001 - no live tools then; the library tool remains
            log.warning("%s providers unavailable for tools", kind)
            return []

    def search_provider(
        self,
        provider: SourceProvider,
        query: str,
        limit: int,
        topic: str | None,
        controls: SourceControls = NO_CONTROLS,
    ) -> Retrieval:
        """One provider's on-topic answer, through the same cache, breaker and filter as `retrieve`."""
        if self.breaker.is_open(provider.name):
            return Retrieval(
                warnings=[
                    RunWarning(
                        source=provider.name,
                        message=f"skipped: it failed within the last {self.breaker.seconds:g} s",
                    )
                ]
            )
        result = self._search(provider, query, limit, self.settings.secret_values())
        if provider.name in result.providers_used:
            self.breaker.reset(provider.name)
        else:
            self.breaker.trip(provider.name)
        return screen(result, topic, controls=controls)

    def search_library(
        self, kind: ResearcherKind, query: str, limit: int, topic: str | None, controls: SourceControls = NO_CONTROLS
    ) -> Retrieval:
        return screen(self._library_search(kind, query, limit), topic, controls=controls)

    def filter_on_topic(
        self, result: Retrieval, topic: str | None, controls: SourceControls = NO_CONTROLS
    ) -> Retrieval:
        return screen(result, topic, controls=controls)

    def _search(self, provider: SourceProvider, query: str, limit: int, secrets: Sequence[str]) -> Retrieval:
        """One provider's answer, from the cache when the same request was answered recently."""
        key = (provider.name, " ".join(query.split()), limit)
        return self.cache.fetch(
            key,
            lambda: _safe_search(provider, query, limit, secrets),
            # Only clean answers are kept: not failures, and not answers missing some detail.
            keep=lambda result: provider.name in result.providers_used and not result.warnings,
        )

    def _library_search(self, kind: ResearcherKind, query: str, limit: int) -> Retrieval:
        if self.settings.demo_delay:  # presenters pace a live demo so the audience can follow it
            time.sleep(self.settings.demo_delay)
        return _safe_search(self._library_provider(kind), query, limit)


def _why_nothing(kind: ResearcherKind, providers: list[SourceProvider], answered: list[str]) -> str:
    """'arxiv, openalex failed' / 'tavily found nothing' / 'arxiv failed and openalex found nothing'."""
    if not providers:
        return f"{kind} providers unavailable"
    failed = [p.name for p in providers if p.name not in answered]
    empty = [p.name for p in providers if p.name in answered]
    parts = ([f"{', '.join(failed)} failed"] if failed else []) + (
        [f"{', '.join(empty)} found nothing"] if empty else []
    )
    return " and ".join(parts)


def _safe_search(provider: SourceProvider, query: str, limit: int, secrets: Sequence[str] = ()) -> Retrieval:
    """One provider call that can never raise: failures become warnings (and no provider used)."""
    try:
        result: object = provider.search(query, limit=limit)  # not always a Retrieval: see below
    except ProviderError as exc:
        log.warning("Provider %s failed: %s", provider.name, exc.message)
        return Retrieval(warnings=[RunWarning(source=provider.name, message=exc.message)])
    except Exception as exc:  # noqa: BLE001 - a bug in one provider must not end the run
        # Not log.exception: client libraries put URLs (keys included) in exception texts, and the
        # log's secret filter only sees the message, not the traceback.
        log.error("Provider %s crashed\n%s", provider.name, mask("".join(traceback.format_exception(exc)), secrets))
        return Retrieval(warnings=[RunWarning(source=provider.name, message=f"unexpected error: {type(exc).__name__}")])
    if not isinstance(result, Retrieval):  # a tool's raw list: flat or grouped records
        result = as_retrieval(result, kind=provider.kind, provider=provider.name, query=query)
    elif not all(isinstance(s, Source) for s in result.sources):  # records left as dicts or groups
        raw = as_retrieval(result.sources, kind=provider.kind, provider=provider.name, query=query)
        result.sources, result.warnings = raw.sources, [*result.warnings, *raw.warnings]
    if provider.name not in result.providers_used:
        result.providers_used.append(provider.name)
    return result
