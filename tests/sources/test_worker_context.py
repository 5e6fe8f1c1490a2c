"""A line logged on a source call's worker thread belongs to its run: it names the run id and
masks the topic, as a line logged on the run's own thread does (logging_setup.RunIdFilter).
Worker threads start with an empty context; the pools hand theirs over (sources/context_pool.py)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import research.sources
from research.logging_setup import RunIdFilter, run_id_scope
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources import http as http_core
from research.sources.health import check_providers
from research.sources.provider_base import ProviderError, Retrieval
from research.sources.providers import scraper
from research.sources.providers.scraper import enrich_with_page_text
from research.sources.router import CircuitBreaker, SourceRouter

RUN = "run-worker-7"
TOPIC = "Pseudouridine in mRNA vaccines"


class Lines(logging.Handler):
    """The log's lines as multiagent.log writes them (its run filter and `run=` field), and the
    thread each came from."""

    def __init__(self) -> None:
        super().__init__()
        self.addFilter(RunIdFilter())
        self.setFormatter(logging.Formatter("run=%(run_id)s: %(message)s"))
        self.lines: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append((record.threadName or "", self.format(record)))


@pytest.fixture
def lines() -> Iterator[Lines]:
    handler = Lines()
    logger = logging.getLogger("research")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def from_workers(lines: Lines, prefix: str) -> list[str]:
    return [line for thread, line in lines.lines if thread.startswith(prefix)]


class Failing:
    name, kind = "openalex", "academic"

    def search(self, query: str, *, limit: int) -> Retrieval:
        raise ProviderError(self.name, f"HTTP 503 for {query!r}")


class FailingToo(Failing):
    name = "arxiv"


def test_a_provider_failure_logged_on_the_routers_worker_names_the_run_and_masks_the_topic(lines: Lines) -> None:
    router = SourceRouter(
        Settings(_env_file=None, sources="live", search_cache_seconds=0),
        lambda kind: Failing(),  # type: ignore[arg-type,return-value]
        # Two providers, so the router searches them on its pool's threads (one is searched inline).
        providers=lambda kind, settings: [Failing(), FailingToo()],  # type: ignore[list-item]
        breaker=CircuitBreaker(seconds=60.0),
    )
    with run_id_scope(RUN, topic=TOPIC):
        router.retrieve("academic", f"{TOPIC} review", 5)

    logged = sorted(from_workers(lines, "provider-search"))
    assert [line.split(" failed")[0] for line in logged] == [f"run={RUN}: Provider {p}" for p in ("arxiv", "openalex")]
    assert all("<topic> review" in line and "pseudouridine" not in line.lower() for line in logged)


def test_a_kind_with_one_live_provider_is_searched_on_the_calling_thread() -> None:
    threads: list[str] = []

    class Recording(Failing):
        def search(self, query: str, *, limit: int) -> Retrieval:
            threads.append(threading.current_thread().name)
            return Retrieval(
                sources=[Source(title="A", url="https://example.com/a", kind="academic", provider=self.name)]
            )

    router = SourceRouter(
        Settings(_env_file=None, sources="live", search_cache_seconds=0),
        lambda kind: Recording(),  # type: ignore[arg-type,return-value]
        providers=lambda kind, settings: [Recording()],  # type: ignore[list-item]
        breaker=CircuitBreaker(seconds=60.0),
    )
    result = router.retrieve("academic", "pseudouridine review", 5)
    assert [s.title for s in result.sources] == ["A"]
    assert threads == [threading.current_thread().name]  # no pool thread started for one search


def test_a_line_logged_on_a_scraper_worker_names_the_run_and_masks_the_topic(
    lines: Lines, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fetch(url: str, *args: Any, **kwargs: Any) -> str:
        logging.getLogger("research.sources.scraper").info("reading %s for %s", url, TOPIC)
        return "text"

    monkeypatch.setattr(scraper, "fetch_page_text", fetch)
    retrieval = Retrieval(sources=[Source(title="A", url="https://example.com/a", kind="web", provider="ddgs")])
    with run_id_scope(RUN, topic=TOPIC):
        enrich_with_page_text(retrieval, Settings(_env_file=None))

    assert from_workers(lines, "scrape") == [f"run={RUN}: reading https://example.com/a for <topic>"]


def test_a_library_call_given_a_timeout_runs_in_the_callers_context(lines: Lines) -> None:
    def call() -> str:
        logging.getLogger("research.sources.wikipedia").info("searching %s", TOPIC)
        return threading.current_thread().name

    with run_id_scope(RUN, topic=TOPIC):
        thread = http_core.call_with_timeout(call, timeout=30, provider="wikipedia")

    assert thread == "wikipedia-call"
    assert from_workers(lines, "wikipedia-call") == [f"run={RUN}: searching <topic>"]


def test_a_line_logged_during_the_health_check_names_the_run(lines: Lines) -> None:
    class Logging:
        name, kind = "openalex", "academic"

        def search(self, query: str, *, limit: int) -> Retrieval:
            logging.getLogger("research.sources.openalex").info("checking %s for %s", query, TOPIC)
            return Retrieval(providers_used=[self.name])

    with run_id_scope(RUN, topic=TOPIC):
        statuses = check_providers(
            Settings(_env_file=None),
            providers=lambda kind, settings: [Logging()] if kind == "academic" else [],  # type: ignore[list-item]
        )

    assert [s.ok for s in statuses] == [True]
    assert from_workers(lines, "health") == [f"run={RUN}: checking test for <topic>"]


def test_every_pool_of_source_calls_is_a_context_pool() -> None:
    """Open Library's description pool too (and any new one): no bare executor under sources/."""
    root = Path(research.sources.__file__).parent
    bare = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if path.name != "context_pool.py" and "ThreadPoolExecutor(" in path.read_text(encoding="utf-8")
    ]
    assert bare == []
