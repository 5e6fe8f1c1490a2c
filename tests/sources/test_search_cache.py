"""SearchCache: recent answers reused, identical requests in flight sent once, failures never kept,
and every caller free to change its copy. The router's use of it is tested in test_router.py."""

from __future__ import annotations

import contextlib
import threading
import time

from research.schemas.state_shapes import RunWarning, Source
from research.sources.provider_base import Retrieval
from research.sources.search_cache import SearchCache
from tests.concurrency import concurrently

KEY = ("arxiv", "heat pumps", 5)


def answer(name: str = "arxiv") -> Retrieval:
    source = Source(title="Heat pumps", url="https://example.org/hp", kind="academic", provider=name)
    return Retrieval(sources=[source], texts={source.id: "text"}, providers_used=[name])


class CountingSearch:
    def __init__(self, result: Retrieval | None = None, *, delay: float = 0.0) -> None:
        self.result = result if result is not None else answer()
        self.delay = delay
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self) -> Retrieval:
        with self._lock:
            self.calls += 1
        time.sleep(self.delay)
        return self.result


def always(_result: Retrieval) -> bool:
    return True


def test_a_repeated_request_is_answered_from_the_cache() -> None:
    cache, search = SearchCache(seconds=60), CountingSearch()
    first = cache.fetch(KEY, search, always)
    second = cache.fetch(KEY, search, always)
    assert search.calls == 1 and cache.hits == 1
    assert [s.url for s in second.sources] == [s.url for s in first.sources]


def test_a_different_query_or_limit_is_a_different_request() -> None:
    cache, search = SearchCache(seconds=60), CountingSearch()
    cache.fetch(KEY, search, always)
    cache.fetch(("arxiv", "heat pump noise", 5), search, always)
    cache.fetch(("arxiv", "heat pumps", 10), search, always)
    cache.fetch(("openalex", "heat pumps", 5), search, always)
    assert search.calls == 4


def test_answers_expire() -> None:
    cache, search = SearchCache(seconds=0.05), CountingSearch()
    cache.fetch(KEY, search, always)
    time.sleep(0.1)
    cache.fetch(KEY, search, always)
    assert search.calls == 2


def test_zero_seconds_turns_the_cache_off() -> None:
    cache, search = SearchCache(seconds=0), CountingSearch()
    cache.fetch(KEY, search, always)
    cache.fetch(KEY, search, always)
    assert search.calls == 2 and not cache.enabled


def test_answers_that_may_not_be_kept_are_fetched_again() -> None:
    cache, search = (
        SearchCache(seconds=60),
        CountingSearch(Retrieval(warnings=[RunWarning(source="arxiv", message="HTTP 503")])),
    )
    cache.fetch(KEY, search, keep=lambda result: bool(result.providers_used))
    cache.fetch(KEY, search, keep=lambda result: bool(result.providers_used))
    assert search.calls == 2


def test_identical_requests_in_flight_are_sent_once() -> None:
    cache, search = SearchCache(seconds=60), CountingSearch(delay=0.2)
    results = concurrently(lambda: cache.fetch(KEY, search, always), 5, timeout=5)
    assert search.calls == 1 and len(results) == 5
    assert all(r.providers_used == ["arxiv"] and len(r.sources) == 1 for r in results)


def test_a_failure_in_flight_is_shared_but_not_kept() -> None:
    failure = Retrieval(warnings=[RunWarning(source="arxiv", message="timed out")])
    cache, search = SearchCache(seconds=60), CountingSearch(failure, delay=0.2)

    def keep(result: Retrieval) -> bool:
        return bool(result.providers_used)

    results = concurrently(lambda: cache.fetch(KEY, search, keep), 3, timeout=5)
    assert search.calls == 1 and all(r.warnings[0].message == "timed out" for r in results)
    cache.fetch(KEY, search, keep)  # nothing was kept: the next request tries again
    assert search.calls == 2


def test_a_search_that_raises_releases_the_requests_waiting_on_it() -> None:
    cache = SearchCache(seconds=60)
    started = threading.Event()

    def broken() -> Retrieval:
        started.set()
        time.sleep(0.3)
        raise RuntimeError("bug in a provider")

    waiter_result: list[Retrieval] = []

    def leader() -> None:
        with contextlib.suppress(RuntimeError):
            cache.fetch(KEY, broken, always)

    first = threading.Thread(target=leader)
    first.start()
    started.wait(2)
    waiter = threading.Thread(target=lambda: waiter_result.append(cache.fetch(KEY, broken, always)))
    waiter.start()
    first.join(5)
    waiter.join(5)
    assert not waiter.is_alive(), "a waiter must not hang when the request it waits on raised"
    assert waiter_result[0].sources == [] and waiter_result[0].providers_used == []


def test_every_caller_gets_its_own_lists() -> None:
    cache, search = SearchCache(seconds=60), CountingSearch()
    first = cache.fetch(KEY, search, always)
    first.sources.clear()  # the router filters results in place
    first.texts.clear()
    first.off_topic = 3
    second = cache.fetch(KEY, search, always)
    assert len(second.sources) == 1 and second.texts and second.off_topic == 0


def test_the_oldest_answers_make_room_for_new_ones() -> None:
    cache, search = SearchCache(seconds=60, max_entries=2), CountingSearch()
    for query in ("a", "b", "c"):
        cache.fetch(("arxiv", query, 5), search, always)
    cache.fetch(("arxiv", "c", 5), search, always)
    cache.fetch(("arxiv", "a", 5), search, always)  # evicted: fetched again
    assert search.calls == 4
