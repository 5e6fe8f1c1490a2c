"""Source controls: one typed model, applied in the router before anything reaches state, every
drop recorded with its rule and reason; a run records its controls in run_started and a run
continued by another process (a dashboard restart) still applies them."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from research.events.payloads import RunStarted, SourcesDroppedData, SourcesFound
from research.runs.runner import ResearchRunner
from research.schemas.researchers import ResearcherKind
from research.schemas.source_quality import SourceControls
from research.schemas.state_shapes import ResearchRequest, Source
from research.settings import Settings
from research.sources.library.library_store import Library, LibraryProvider
from research.sources.provider_base import Retrieval
from research.sources.router import CircuitBreaker, SourceRouter
from tests.helpers import events_of
from tests.settings_presets import library_settings

TOPIC = "How did Impressionism change painting?"


def test_controls_validate_and_normalise() -> None:
    controls = SourceControls(
        year_from=2010,
        include_domains="https://www.Example.org/path, sub.example.net",  # as a form sends it
        exclude_domains=["medium.com", "MEDIUM.com"],
    )
    assert controls.include_domains == ("example.org", "sub.example.net")
    assert controls.exclude_domains == ("medium.com",)
    assert controls.describe() == [
        "years 2010–…",
        "web only from example.org, sub.example.net",
        "never from medium.com",
    ]
    assert not SourceControls().active and controls.active
    with pytest.raises(ValidationError, match="after year to"):
        SourceControls(year_from=2020, year_to=2010)
    with pytest.raises(ValidationError, match="not a domain"):
        SourceControls(exclude_domains=("not a domain!",))
    with pytest.raises(ValidationError):
        SourceControls(min_relevance=1.5)


@pytest.fixture
def library_router(settings: Settings) -> SourceRouter:
    library = Library(settings.library_db)
    library.ensure_sample()
    return SourceRouter(settings, lambda kind: LibraryProvider(library, kind))


def test_years_and_peer_review_drop_in_the_router_with_their_reasons(library_router: SourceRouter) -> None:
    controls = SourceControls(year_from=2010, peer_reviewed_only=True)
    books = library_router.retrieve("book", "Impressionism painters", 10, topic=TOPIC, controls=controls)
    assert books.sources and all(s.year is not None and s.year >= 2010 for s in books.sources)
    years = [d for d in books.dropped if d.rule == "years"]
    assert {d.reason for d in years} >= {"published 1998, before 2010", "published 2003, before 2010"}

    papers = library_router.retrieve("academic", "Impressionism", 10, topic=TOPIC, controls=controls)
    assert papers.sources and all(s.facts.peer_reviewed is True for s in papers.sources)
    (unreviewed,) = [d for d in papers.dropped if d.rule == "peer_reviewed"]
    assert "not known to be peer reviewed" in unreviewed.reason
    # Everything kept carries its relevance and its reliability.
    assert all(s.relevance is not None and s.reliability is not None for s in [*books.sources, *papers.sources])

    plain = library_router.retrieve("book", "Impressionism painters", 10, topic=TOPIC)
    assert len(plain.sources) > len(books.sources) and not [d for d in plain.dropped if d.rule != "off_topic"]


def test_minimum_relevance_raises_the_bar(library_router: SourceRouter) -> None:
    plain = library_router.retrieve("web", "Impressionism exhibition", 10, topic=TOPIC)
    scores = sorted(s.relevance or 0.0 for s in plain.sources)
    assert len(set(scores)) > 1, "the sample needs sources of different relevance"
    bar = scores[-1]
    strict = library_router.retrieve(
        "web", "Impressionism exhibition", 10, topic=TOPIC, controls=SourceControls(min_relevance=bar)
    )
    assert strict.sources and all((s.relevance or 0.0) >= bar for s in strict.sources)
    low = [d for d in strict.dropped if d.rule == "min_relevance"]
    assert low and all(d.score < bar and f"below the run's minimum {bar:.2f}" in d.reason for d in low)


class _WebSearch:
    """A live web provider answering with pages on the given hosts."""

    name, kind = "websearch", "web"

    def __init__(self, hosts: list[str]) -> None:
        self.hosts = hosts

    def search(self, query: str, *, limit: int) -> Retrieval:
        sources = [
            Source(
                title=f"Impressionism painting on {h}", url=f"https://{h}/impressionism", kind="web", provider=self.name
            )
            for h in self.hosts
        ]
        return Retrieval(sources=sources, providers_used=[self.name])


def _live_router(settings: Settings, library_router: SourceRouter, hosts: list[str]) -> SourceRouter:
    def providers(kind: ResearcherKind, _settings: Settings) -> list:
        return [_WebSearch(hosts)]

    live = settings.model_copy(update={"sources": "live"})
    return SourceRouter(live, library_router._library_provider, providers=providers, breaker=CircuitBreaker())


def test_include_and_exclude_domains(settings: Settings, library_router: SourceRouter) -> None:
    router = _live_router(
        settings, library_router, ["www.museum.org", "blog.museum.org", "medium.com", "news.example.com"]
    )
    controls = SourceControls(include_domains=("museum.org", "medium.com"), exclude_domains=("blog.museum.org",))
    result = router.retrieve("web", "Impressionism painting", 10, topic=TOPIC, controls=controls)
    assert sorted(s.domain for s in result.sources) == ["medium.com", "museum.org"]
    reasons = {d.rule: d.reason for d in result.dropped}
    assert reasons == {
        "exclude_domains": "blog.museum.org is an excluded domain",
        "include_domains": "news.example.com is not among the included domains",
    }
    assert {s.domain: s.reliability.label for s in result.sources if s.reliability} == {
        "museum.org": "medium",
        "medium.com": "low",
    }


def test_a_run_records_its_controls_and_keeps_them_when_continued_elsewhere(tmp_path: Path) -> None:
    settings = library_settings(tmp_path / "data", tmp_path / "logs", llm="offline")
    controls = SourceControls(year_from=2010, peer_reviewed_only=True)
    runner = ResearchRunner(settings)
    run_id = runner.run(ResearchRequest(topic=TOPIC, allocation="011", review_plan=True, source_controls=controls))
    assert runner.store.get_run(run_id).status == "paused"

    ResearchRunner(settings).continue_plan(run_id)  # another process: only the event log carries the controls

    assert runner.store.get_run(run_id).status == "finished"
    started = [e.data for e in events_of(runner, run_id, "run_started")]
    assert started and all(isinstance(d, RunStarted) and d.source_controls == controls for d in started)
    found = [
        s
        for e in events_of(runner, run_id, "sources_found")
        if isinstance(e.data, SourcesFound)
        for s in e.data.sources
    ]
    assert found and all(s.year is not None and s.year >= 2010 for s in found)
    assert all(s.facts.peer_reviewed is True for s in found if s.kind == "academic")
    dropped = [
        d
        for e in events_of(runner, run_id, "sources_dropped")
        if isinstance(e.data, SourcesDroppedData)
        for d in e.data.dropped
    ]
    assert {"years", "peer_reviewed"} <= {d.rule for d in dropped}
    assert runner.stored_request(runner.store.get_run(run_id)).source_controls == controls


def test_agent_researchers_tools_apply_the_controls_and_report_the_drops(tmp_path: Path) -> None:
    settings = library_settings(tmp_path / "data", tmp_path / "logs", llm="offline")
    runner = ResearchRunner(settings)
    request = ResearchRequest(
        topic=TOPIC, allocation="001", researcher_mode="agent", source_controls=SourceControls(year_from=2010)
    )
    run_id = runner.run(request)
    assert runner.store.get_run(run_id).status == "finished"
    found = [s for e in events_of(runner, run_id, "sources_found") for s in e.data.sources]
    assert found and all(s.year is not None and s.year >= 2010 for s in found)
    dropped = [d for e in events_of(runner, run_id, "sources_dropped") for d in e.data.dropped]
    assert any(d.rule == "years" and d.reason == "published 1998, before 2010" for d in dropped)
