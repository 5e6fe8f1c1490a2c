"""SourceRouter: library / live / auto modes, the per-kind library fallback, the circuit breaker,
parallel providers, and a DNS failure that falls back at once instead of being retried.

Providers here are small stubs (the router only needs `name`, `kind` and `search`), except for the
DNS test, which drives the real OpenAlex provider through the real HTTP core.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from research.schemas.researchers import ResearcherKind
from research.schemas.state_shapes import RunWarning, Source
from research.settings import Settings
from research.sources import http as http_core
from research.sources.provider_base import ProviderError, Retrieval, SourceProvider
from research.sources.providers.openalex import OpenAlexProvider
from research.sources.router import CircuitBreaker, SourceRouter, live_providers
from tests.fakes.clock import FakeClock

SECRET = "sk-test-ROUTER-SECRET-999"
Answer = Callable[[str], Retrieval]


def found(name: str, kind: ResearcherKind, n: int = 2) -> Answer:
    """A provider answer with `n` sources for the query."""

    def answer(query: str) -> Retrieval:
        sources = [
            Source(title=f"{query} {i}", url=f"https://{name}.example.org/{i}", kind=kind, provider=name)
            for i in range(n)
        ]
        return Retrieval(sources=sources, providers_used=[name])

    return answer


def fails(name: str, message: str = "HTTP 503 after 3 attempts") -> Answer:
    def answer(_query: str) -> Retrieval:
        raise ProviderError(name, message)

    return answer


class StubProvider:
    """Answers with `answer(query)`; records each call's query and start/end (monotonic)."""

    def __init__(self, name: str, kind: ResearcherKind, answer: Answer) -> None:
        self.name, self.kind, self.answer = name, kind, answer
        self.calls: list[tuple[str, float, float]] = []
        self._lock = threading.Lock()

    def search(self, query: str, *, limit: int) -> Retrieval:
        start = time.monotonic()
        try:
            return self.answer(query)
        finally:
            with self._lock:
                self.calls.append((query, start, time.monotonic()))


class Setup:
    """A router over stub providers per kind, a stub library, and a private circuit breaker."""

    def __init__(
        self,
        mode: str,
        providers: dict[str, list[StubProvider]],
        *,
        breaker_seconds: float = 60.0,
        cache_seconds: float = 600.0,
    ) -> None:
        self.providers = providers
        self.library = {
            kind: StubProvider("library", kind, found("library", kind, 1)) for kind in ("web", "academic", "book")
        }
        self.factory_calls = 0
        self.breaker = CircuitBreaker(seconds=breaker_seconds)
        self.settings = Settings(_env_file=None, sources=mode, search_cache_seconds=cache_seconds)
        self.router = SourceRouter(
            self.settings, self.library.__getitem__, providers=self._factory, breaker=self.breaker
        )

    def _factory(self, kind: ResearcherKind, _settings: Settings) -> list[SourceProvider]:
        self.factory_calls += 1
        return self.providers.get(kind, [])

    def retrieve(self, kind: ResearcherKind, query: str = "mRNA vaccines") -> Retrieval:
        return self.router.retrieve(kind, query, 5)


def warnings_from(result: Retrieval, source: str) -> list[str]:
    return [w.message for w in result.warnings if w.source == source]


def providers_of(result: Retrieval) -> set[str]:
    return {s.provider for s in result.sources}


# --- modes ------------------------------------------------------------------------------------------


def test_library_mode_uses_only_the_library() -> None:
    arxiv = StubProvider("arxiv", "academic", found("arxiv", "academic"))
    setup = Setup("library", {"academic": [arxiv]})
    result = setup.retrieve("academic")
    assert providers_of(result) == {"library"} and result.providers_used == ["library"]
    assert arxiv.calls == [] and setup.factory_calls == 0  # live providers are not even built
    assert not result.warnings
    assert setup.router.describe("academic") == ["library"]


def test_live_mode_never_falls_back() -> None:
    arxiv = StubProvider("arxiv", "academic", fails("arxiv"))
    openalex = StubProvider("openalex", "academic", fails("openalex", "malformed JSON from api/works"))
    setup = Setup("live", {"academic": [arxiv, openalex]})
    result = setup.retrieve("academic")
    assert result.sources == [] and setup.library["academic"].calls == []
    assert warnings_from(result, "arxiv") == ["HTTP 503 after 3 attempts"]
    assert warnings_from(result, "openalex") == ["malformed JSON from api/works"]
    assert setup.router.describe("academic") == ["arxiv", "openalex"]


def test_live_mode_reports_an_empty_reply_without_falling_back() -> None:
    tavily = StubProvider("tavily", "web", found("tavily", "web", 0))
    setup = Setup("live", {"web": [tavily]})
    result = setup.retrieve("web", "obscure topic")
    assert result.sources == [] and setup.library["web"].calls == []
    assert warnings_from(result, "tavily") == ["no results for 'obscure topic'"]


def test_auto_mode_falls_back_per_kind_naming_the_failed_providers() -> None:
    academic = [
        StubProvider("arxiv", "academic", fails("arxiv")),
        StubProvider("openalex", "academic", fails("openalex")),
    ]
    web = [StubProvider("tavily", "web", found("tavily", "web"))]
    setup = Setup("auto", {"academic": academic, "web": web})

    result = setup.retrieve("academic", "lipid nanoparticles")
    assert providers_of(result) == {"library"} and len(setup.library["academic"].calls) == 1
    [fallback] = warnings_from(result, "library")
    assert "arxiv, openalex failed" in fallback and "'lipid nanoparticles'" in fallback
    assert "local library" in fallback
    assert warnings_from(result, "arxiv") and warnings_from(result, "openalex")

    web_result = setup.retrieve("web")  # the other kind is unaffected: no fallback there
    assert providers_of(web_result) == {"tavily"} and setup.library["web"].calls == []
    assert not web_result.warnings
    assert setup.router.describe("web") == ["tavily", "library (fallback)"]


def test_auto_mode_keeps_live_results_when_one_provider_of_the_kind_answers() -> None:
    arxiv = StubProvider("arxiv", "academic", fails("arxiv"))
    openalex = StubProvider("openalex", "academic", found("openalex", "academic"))
    setup = Setup("auto", {"academic": [arxiv, openalex]})
    result = setup.retrieve("academic")
    assert providers_of(result) == {"openalex"} and setup.library["academic"].calls == []
    assert warnings_from(result, "arxiv") == ["HTTP 503 after 3 attempts"]
    assert not warnings_from(result, "library")


def test_auto_mode_falls_back_when_every_provider_found_nothing() -> None:
    arxiv = StubProvider("arxiv", "academic", fails("arxiv"))
    openalex = StubProvider("openalex", "academic", found("openalex", "academic", 0))
    setup = Setup("auto", {"academic": [arxiv, openalex]})
    result = setup.retrieve("academic", "q")
    assert providers_of(result) == {"library"}
    assert warnings_from(result, "openalex") == ["no results for 'q'"]
    [fallback] = warnings_from(result, "library")
    assert fallback.startswith("arxiv failed and openalex found nothing for 'q'")


def test_providers_that_cannot_be_built_fall_back_with_a_warning() -> None:
    setup = Setup("auto", {})

    def broken(_kind: ResearcherKind, _settings: Settings) -> list[SourceProvider]:
        raise ProviderError("tavily", "no API key configured (set TAVILY_API_KEY)")

    setup.router = SourceRouter(setup.settings, setup.library.__getitem__, providers=broken, breaker=setup.breaker)
    result = setup.retrieve("web")
    assert providers_of(result) == {"library"}
    assert any("no API key configured" in m for m in warnings_from(result, "web"))


# --- failures never escape ---------------------------------------------------------------------------


def test_an_unexpected_exception_becomes_a_warning_not_a_crash() -> None:
    def crash(_query: str) -> Retrieval:
        raise RuntimeError(f"bug in the client, key={SECRET}")

    buggy = StubProvider("openlibrary", "book", crash)
    wikipedia = StubProvider("wikipedia", "book", found("wikipedia", "book"))
    setup = Setup("auto", {"book": [buggy, wikipedia]})
    result = setup.retrieve("book")
    assert warnings_from(result, "openlibrary") == ["unexpected error: RuntimeError"]
    assert providers_of(result) == {"wikipedia"}
    assert SECRET not in repr(result.warnings)
    assert setup.breaker.is_open("openlibrary") and not setup.breaker.is_open("wikipedia")


def test_an_unexpected_exception_in_the_only_provider_falls_back_in_auto_mode() -> None:
    def crash(_query: str) -> Retrieval:
        raise KeyError("results")

    setup = Setup("auto", {"web": [StubProvider("tavily", "web", crash)]})
    result = setup.retrieve("web")
    assert providers_of(result) == {"library"}
    assert warnings_from(result, "tavily") == ["unexpected error: KeyError"]


# --- circuit breaker ---------------------------------------------------------------------------------


def test_the_breaker_skips_a_provider_that_just_failed_then_tries_it_again() -> None:
    answers = iter([fails("arxiv"), found("arxiv", "academic")])
    arxiv = StubProvider("arxiv", "academic", lambda q: next(answers)(q))
    setup = Setup("auto", {"academic": [arxiv]}, breaker_seconds=0.5)

    setup.retrieve("academic")
    assert len(arxiv.calls) == 1 and setup.breaker.is_open("arxiv")

    skipped = setup.retrieve("academic")
    assert len(arxiv.calls) == 1, "a provider that just failed must not be called again"
    assert any(m.startswith("skipped: it failed within the last") for m in warnings_from(skipped, "arxiv"))
    assert providers_of(skipped) == {"library"}

    deadline = time.monotonic() + 30.0
    while setup.breaker.is_open("arxiv") and time.monotonic() < deadline:
        time.sleep(0.02)
    recovered = setup.retrieve("academic")
    assert len(arxiv.calls) == 2 and providers_of(recovered) == {"arxiv"}
    assert not recovered.warnings


def test_a_success_resets_the_breaker() -> None:
    """A slow query that succeeds after a quick one failed closes the breaker again, so the next
    query uses the provider instead of waiting out the rest period."""
    started, release = threading.Event(), threading.Event()

    def answer(query: str) -> Retrieval:
        if query == "slow":
            started.set()
            assert release.wait(5)
            return found("openalex", "academic")(query)
        if query == "bad":
            raise ProviderError("openalex", "HTTP 500 after 3 attempts")
        return found("openalex", "academic")(query)

    openalex = StubProvider("openalex", "academic", answer)
    setup = Setup("auto", {"academic": [openalex]}, breaker_seconds=60.0)
    slow = threading.Thread(target=setup.retrieve, args=("academic", "slow"))
    slow.start()
    assert started.wait(5)
    setup.retrieve("academic", "bad")
    assert setup.breaker.is_open("openalex")
    release.set()
    slow.join(5)
    assert not setup.breaker.is_open("openalex")
    result = setup.retrieve("academic", "next")
    assert providers_of(result) == {"openalex"} and [c[0] for c in openalex.calls][-1] == "next"


# --- recent answers are reused ---------------------------------------------------------------------


def test_a_repeated_query_is_served_from_the_cache_with_the_same_sources() -> None:
    arxiv = StubProvider("arxiv", "academic", found("arxiv", "academic"))
    setup = Setup("live", {"academic": [arxiv]})
    first = setup.retrieve("academic", "heat pumps")
    second = setup.retrieve("academic", "heat  pumps ")  # the same query, spaced differently
    assert len(arxiv.calls) == 1 and setup.router.cache.hits == 1
    assert [s.url for s in second.sources] == [s.url for s in first.sources]
    assert second.providers_used == ["arxiv"] and not second.warnings


def test_the_same_query_racing_from_two_researchers_is_sent_once() -> None:
    def slow(query: str) -> Retrieval:
        time.sleep(0.3)
        return found("openlibrary", "book")(query)

    openlibrary = StubProvider("openlibrary", "book", slow)
    setup = Setup("live", {"book": [openlibrary]})
    results: list[Retrieval] = []
    threads = [
        threading.Thread(target=lambda: results.append(setup.retrieve("book", "introduction to heat pumps")))
        for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert len(openlibrary.calls) == 1
    assert [len(r.sources) for r in results] == [2, 2, 2]


def test_failures_and_incomplete_answers_are_not_reused() -> None:
    answers = iter([fails("arxiv")] + [found("arxiv", "academic")] * 3)
    arxiv = StubProvider("arxiv", "academic", lambda q: next(answers)(q))
    setup = Setup("live", {"academic": [arxiv]}, breaker_seconds=0.0)
    assert setup.retrieve("academic").sources == []
    assert len(setup.retrieve("academic").sources) == 2  # the failure was not kept
    assert len(arxiv.calls) == 2

    def partial(query: str) -> Retrieval:
        result = found("openlibrary", "book")(query)
        result.warnings.append(RunWarning(source="openlibrary", message="3 of 5 work descriptions unavailable"))
        return result

    openlibrary = StubProvider("openlibrary", "book", partial)
    setup = Setup("live", {"book": [openlibrary]})
    setup.retrieve("book")
    setup.retrieve("book")
    assert len(openlibrary.calls) == 2  # an answer missing some detail is asked again


def test_search_cache_seconds_zero_sends_every_query() -> None:
    arxiv = StubProvider("arxiv", "academic", found("arxiv", "academic"))
    setup = Setup("live", {"academic": [arxiv]}, cache_seconds=0)
    setup.retrieve("academic")
    setup.retrieve("academic")
    assert len(arxiv.calls) == 2


# --- how long each kind takes, for scheduling ---------------------------------------------------------


def test_the_router_learns_how_long_each_kind_takes() -> None:
    def slow(query: str) -> Retrieval:
        time.sleep(0.2)
        return found("openlibrary", "book")(query)

    setup = Setup(
        "live",
        {
            "book": [StubProvider("openlibrary", "book", slow)],
            "web": [StubProvider("tavily", "web", found("tavily", "web"))],
        },
    )
    assert setup.router.expected_seconds("book") is None  # nothing observed yet
    setup.retrieve("book")
    setup.retrieve("web")
    assert setup.router.expected_seconds("book") >= 0.2 > setup.router.expected_seconds("web")


# --- parallelism -------------------------------------------------------------------------------------


def test_providers_of_one_kind_run_in_parallel() -> None:
    """Each provider waits at a two-party barrier: run one after the other, the first would time
    out there and fail; run in parallel, both pass and their call intervals overlap."""
    barrier = threading.Barrier(2, timeout=2.0)

    def meet(name: str) -> Answer:
        def answer(query: str) -> Retrieval:
            barrier.wait()
            time.sleep(0.05)
            return found(name, "book")(query)

        return answer

    openlibrary = StubProvider("openlibrary", "book", meet("openlibrary"))
    wikipedia = StubProvider("wikipedia", "book", meet("wikipedia"))
    setup = Setup("live", {"book": [openlibrary, wikipedia]})
    result = setup.retrieve("book")
    assert providers_of(result) == {"openlibrary", "wikipedia"}, result.warnings
    (_, start_a, end_a), (_, start_b, end_b) = openlibrary.calls[0], wikipedia.calls[0]
    assert max(start_a, start_b) < min(end_a, end_b)


# --- offline: no DNS ---------------------------------------------------------------------------------


def test_a_dns_failure_is_not_retried_so_the_fallback_is_quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real OpenAlex provider and HTTP core, with name resolution failing like it does offline."""
    lookups: list[str] = []
    sleeps: list[float] = []
    real_create_connection = socket.create_connection

    def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        if address[0] == "api.openalex.invalid":
            lookups.append(address[0])
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real_create_connection(address, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", create_connection)
    monkeypatch.setattr(http_core, "_sleep", sleeps.append)
    http_core.set_limiter("openalex", concurrency=4, per_second=0)
    try:
        settings = Settings(_env_file=None, sources="auto", openalex_url="http://api.openalex.invalid", http_timeout=2)
        library = StubProvider("library", "academic", found("library", "academic", 1))
        router = SourceRouter(
            settings, lambda _kind: library, providers=lambda _k, s: [OpenAlexProvider(s)], breaker=CircuitBreaker()
        )
        result = router.retrieve("academic", "mRNA", 3)
    finally:
        http_core.reset_limiters()
    assert lookups == ["api.openalex.invalid"], "a host that does not resolve must not be retried"
    assert sleeps == []  # no back-off either
    assert providers_of(result) == {"library"}
    assert any("host not found" in m for m in warnings_from(result, "openalex"))


# --- settings the router applies ---------------------------------------------------------------------


def test_rate_limits_off_removes_request_spacing_process_wide() -> None:
    clock = FakeClock()
    limiter = http_core.RateLimiter(concurrency=1, per_second=1 / 3, clock=clock, sleep=clock.sleep)  # arXiv's
    try:
        live_providers("academic", Settings(_env_file=None, rate_limits="off"))
        assert not http_core.request_spacing_enabled() and limiter.min_interval == 0.0
        for _ in range(3):
            with limiter:
                pass
        assert clock.sleeps == []  # spaced, three requests would wait three seconds each
    finally:
        live_providers("academic", Settings(_env_file=None))
    assert http_core.request_spacing_enabled() and limiter.min_interval == pytest.approx(3.0)


def test_web_providers_follow_the_settings() -> None:
    with_key = Settings(_env_file=None, tavily_api_key="tvly-x", enable_github=True, enable_stackexchange=True)
    assert [p.name for p in live_providers("web", with_key)] == ["tavily", "github", "stackexchange"]
    assert [p.name for p in live_providers("web", Settings(_env_file=None))] == ["duckduckgo"]
    assert [p.name for p in live_providers("academic", with_key)] == ["arxiv", "openalex"]
    assert [p.name for p in live_providers("book", with_key)] == ["openlibrary", "wikipedia"]
