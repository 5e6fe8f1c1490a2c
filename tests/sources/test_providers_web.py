"""Web providers through their real clients (tavily-python, ddgs/primp, httpx) against loopback fakes
that speak each service's wire format: results, 500, 429 + Retry-After, timeout, malformed, empty."""

from __future__ import annotations

import gzip
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from research.settings import Settings
from research.sources import http as http_core
from research.sources.provider_base import ProviderError, SourceProvider
from research.sources.providers import stackexchange_provider
from research.sources.providers.ddgs_provider import DuckDuckGoProvider, to_retrieval, unwrap_redirect
from research.sources.providers.github_provider import GitHubProvider
from research.sources.providers.stackexchange_provider import StackExchangeProvider
from research.sources.providers.tavily_provider import TavilyProvider
from tests.fakes import lift_rate_limits
from tests.fakes.http_server import FakeRequest, FakeServer, Reply, faults, slow

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "web"
TAVILY_KEY = "tvly-test-SECRET-0123456789"
GITHUB_TOKEN = "ghp_test_SECRET_abcdefghij"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def gzip_json(payload: Any, status: int = 200) -> Reply:
    """How the Stack Exchange API answers: always gzip-compressed JSON."""
    body = gzip.compress(json.dumps(payload).encode())
    return Reply(status, body, {"Content-Type": "application/json; charset=utf-8", "Content-Encoding": "gzip"})


@dataclass
class Spec:
    """One provider and the fake service it talks to."""

    name: str
    path: str
    method: str
    settings: Callable[[FakeServer, float], Settings]
    ok: Reply
    empty: Reply
    malformed: Reply
    first_title: str
    build: Callable[[Settings], SourceProvider]


def _settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)


def _html(text: str, status: int = 200) -> Reply:
    return Reply(status, text.encode(), {"Content-Type": "text/html; charset=UTF-8"})


SPECS = [
    Spec(
        name="tavily",
        path="/search",
        method="POST",
        settings=lambda s, t: _settings(tavily_url=s.url(), tavily_api_key=TAVILY_KEY, http_timeout=t),
        ok=Reply(200, json.loads(fixture_text("tavily_search.json"))),
        empty=Reply(200, {"query": "q", "answer": None, "images": [], "results": [], "response_time": 0.4}),
        malformed=Reply(200, b"<html>upstream proxy error</html>", {"Content-Type": "text/html"}),
        first_title="Printing press - Wikipedia",
        build=TavilyProvider,
    ),
    Spec(
        name="duckduckgo",
        path="/html/",
        method="POST",
        settings=lambda s, t: _settings(ddgs_url=s.url("/html/"), http_timeout=t),
        ok=_html(fixture_text("duckduckgo_results.html")),
        empty=_html(fixture_text("duckduckgo_no_results.html")),
        malformed=_html("<html><body><h1>Unexpected error. Please try again.</h1></body></html>"),
        first_title="Printing press - Wikipedia",
        build=DuckDuckGoProvider,
    ),
    Spec(
        name="github",
        path="/search/repositories",
        method="GET",
        settings=lambda s, t: _settings(github_url=s.url(), enable_github=True, http_timeout=t),
        ok=Reply(200, json.loads(fixture_text("github_search_repositories.json"))),
        empty=Reply(200, {"total_count": 0, "incomplete_results": False, "items": []}),
        malformed=Reply(200, b'{"total_count": 3, "items": [', {"Content-Type": "application/json"}),
        first_title="langchain-ai/langgraph",
        build=GitHubProvider,
    ),
    Spec(
        name="stackexchange",
        path="/search/advanced",
        method="GET",
        settings=lambda s, t: _settings(stackexchange_url=s.url(), enable_stackexchange=True, http_timeout=t),
        ok=gzip_json(json.loads(fixture_text("stackexchange_search_advanced.json"))),
        empty=gzip_json({"items": [], "has_more": False, "quota_max": 300, "quota_remaining": 280}),
        malformed=Reply(200, {"error": "not the search shape"}),
        first_title='How do I use "asyncio.gather" with a timeout & cancel what\'s left?',
        build=StackExchangeProvider,
    ),
]
IDS = [spec.name for spec in SPECS]


@pytest.fixture(autouse=True)
def _unthrottled() -> Iterator[None]:
    """The web providers' rate limiters get no spacing."""
    lift_rate_limits(*IDS)
    yield
    http_core.reset_limiters()


def provider_for(spec: Spec, server: FakeServer, timeout: float = 2.0) -> SourceProvider:
    return spec.build(spec.settings(server, timeout))


def handler_of(reply: Reply) -> Callable[[FakeRequest], Reply]:
    return lambda _request: reply


# --- behaviour every web provider shares --------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_normal_results_are_normalised_sources(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    server.route(spec.path, spec.ok, method=spec.method)
    retrieval = provider_for(spec, server).search("printing press", limit=5)
    assert retrieval.sources, "expected sources from the fake"
    first = retrieval.sources[0]
    assert first.title == spec.first_title
    assert first.provider == spec.name and first.kind == "web"
    assert first.url.startswith("https://") and first.id
    assert retrieval.providers_used == [spec.name]
    assert len(server.requests(spec.path)) == 1 and not sleeps


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_limit_caps_the_number_of_sources(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    server.route(spec.path, spec.ok, method=spec.method)
    assert len(provider_for(spec, server).search("printing press", limit=1).sources) == 1


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_a_500_is_retried_then_succeeds(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    server.route(spec.path, faults(handler_of(spec.ok), Reply(500, {"error": "boom"})), method=spec.method)
    retrieval = provider_for(spec, server).search("printing press", limit=5)
    assert retrieval.sources[0].title == spec.first_title
    assert len(server.requests(spec.path)) == 2
    assert len(sleeps) == 1 and 0 < sleeps[0] <= http_core.HttpPolicy().backoff_cap


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_a_500_that_persists_becomes_provider_error(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    server.route(spec.path, Reply(500, {"error": "boom"}), method=spec.method)
    with pytest.raises(ProviderError) as caught:
        provider_for(spec, server).search("printing press", limit=5)
    assert caught.value.provider == spec.name and "500" in caught.value.message
    attempts = http_core.HttpPolicy().retries
    assert len(server.requests(spec.path)) == attempts  # bounded
    assert len(sleeps) == attempts - 1


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_a_429_waits_for_retry_after(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    throttled = Reply(429, {"error": "slow down"}, {"Retry-After": "7"})
    server.route(spec.path, faults(handler_of(spec.ok), throttled), method=spec.method)
    retrieval = provider_for(spec, server).search("printing press", limit=5)
    assert retrieval.sources[0].title == spec.first_title
    assert sleeps == [7.0]  # the server's number, not the default back-off


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_a_hanging_service_times_out(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    server.route(spec.path, slow(handler_of(spec.ok), 5.0), method=spec.method)
    provider = provider_for(spec, server, timeout=0.2)
    started = time.monotonic()
    with pytest.raises(ProviderError) as caught:
        provider.search("printing press", limit=5)
    assert "timed out" in caught.value.message
    assert (
        time.monotonic() - started < 10.0
    )  # three bounded attempts, not a five-second hang each (15 s); generous for a busy machine


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_a_malformed_reply_is_a_provider_error(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    server.route(spec.path, spec.malformed, method=spec.method)
    with pytest.raises(ProviderError) as caught:
        provider_for(spec, server).search("printing press", limit=5)
    assert "malformed" in caught.value.message or "unrecognised" in caught.value.message


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_an_empty_reply_is_zero_results_not_an_error(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    server.route(spec.path, spec.empty, method=spec.method)
    retrieval = provider_for(spec, server).search("zzqqxx", limit=5)
    assert retrieval.sources == [] and retrieval.texts == {}
    assert len(server.requests(spec.path)) == 1


@pytest.mark.parametrize("spec", SPECS, ids=IDS)
def test_a_client_error_is_not_retried(spec: Spec, server: FakeServer, sleeps: list[float]) -> None:
    server.route(spec.path, Reply(404, {"message": "Not Found"}), method=spec.method)
    with pytest.raises(ProviderError):
        provider_for(spec, server).search("printing press", limit=5)
    assert len(server.requests(spec.path)) == 1 and not sleeps


# --- Tavily --------------------------------------------------------------------------------------


def test_tavily_sends_key_and_query_and_keeps_raw_content(server: FakeServer, sleeps: list[float]) -> None:
    spec = SPECS[0]
    server.route("/search", spec.ok, method="POST")
    retrieval = provider_for(spec, server).search("history of the printing press", limit=4)
    request = server.requests("/search")[0]
    assert request.headers["Authorization"] == f"Bearer {TAVILY_KEY}"
    body = request.json()
    assert body["query"] == "history of the printing press" and body["max_results"] == 4
    wiki, britannica = retrieval.sources
    assert wiki.score == pytest.approx(0.8841)
    assert "Gutenberg developed a hand press around 1440" in retrieval.texts[wiki.id]
    assert britannica.id not in retrieval.texts  # raw_content null: no text, no crash


def test_tavily_refused_key_is_final_and_never_echoed(server: FakeServer, sleeps: list[float]) -> None:
    server.route("/search", Reply(401, {"detail": {"error": f"Unauthorized: bad key {TAVILY_KEY}"}}), method="POST")
    with pytest.raises(ProviderError) as caught:
        provider_for(SPECS[0], server).search("q", limit=3)
    assert "401" in str(caught.value) and TAVILY_KEY not in str(caught.value)
    assert len(server.requests("/search")) == 1


def test_tavily_without_a_key_refuses_to_start() -> None:
    with pytest.raises(ProviderError):
        TavilyProvider(_settings(tavily_api_key=None))


# --- DuckDuckGo ----------------------------------------------------------------------------------


def test_duckduckgo_posts_the_html_form_and_unwraps_redirect_links(server: FakeServer, sleeps: list[float]) -> None:
    server.route("/html/", SPECS[1].ok, method="POST")
    retrieval = provider_for(SPECS[1], server).search("printing press history", limit=10)
    form = server.requests("/html/")[0].body.decode()
    assert "q=printing+press+history" in form
    urls = [s.url for s in retrieval.sources]
    assert urls == [
        "https://en.wikipedia.org/wiki/Printing_press",
        "https://www.britannica.com/technology/printing-press",  # was //duckduckgo.com/l/?uddg=...
        "https://www.history.com/articles/printing-press",
    ]  # the ad (duckduckgo.com/y.js) is dropped
    assert "mechanical device" in retrieval.sources[0].snippet


def test_duckduckgo_throttle_page_202_is_retried(server: FakeServer, sleeps: list[float]) -> None:
    challenge = _html("<html><body><div class='anomaly-modal'>Select all squares</div></body></html>", status=202)
    server.route("/html/", faults(handler_of(SPECS[1].ok), challenge), method="POST")
    assert provider_for(SPECS[1], server).search("q", limit=3).sources
    assert len(server.requests("/html/")) == 2


def test_duckduckgo_mapping_of_library_result_dicts() -> None:
    results = [
        {"title": "A", "href": "https://a.example/x", "body": "first"},
        {"title": "A again", "href": "https://a.example/x", "body": "duplicate"},
        {"title": "", "href": "https://b.example", "body": "untitled"},
        {"title": "Not a page", "href": "javascript:void(0)", "body": ""},
        {"title": "C", "href": "https://c.example/", "body": "third"},
    ]
    retrieval = to_retrieval(results, "q", limit=5)
    assert [(s.title, s.url) for s in retrieval.sources] == [("A", "https://a.example/x"), ("C", "https://c.example/")]
    assert unwrap_redirect("//duckduckgo.com/l/?uddg=https://d.example/p&rut=1") == "https://d.example/p"


# --- GitHub --------------------------------------------------------------------------------------


def test_github_query_token_and_mapping(server: FakeServer, sleeps: list[float]) -> None:
    server.route("/search/repositories", SPECS[2].ok, method="GET")
    settings = _settings(github_url=server.url(), github_token=GITHUB_TOKEN)
    retrieval = GitHubProvider(settings).search("language agents graph", limit=5)
    request = server.requests("/search/repositories")[0]
    assert request.param("q") == "language agents graph" and request.param("per_page") == "5"
    assert request.headers["Authorization"] == f"Bearer {GITHUB_TOKEN}"
    assert request.headers["Accept"] == "application/vnd.github+json"
    top, other = retrieval.sources
    assert top.url == "https://github.com/langchain-ai/langgraph" and top.year == 2025
    assert top.authors == ["langchain-ai"]
    assert "Build resilient language agents" in top.snippet and "19,876 stars" in top.snippet
    assert other.year == 2024 and "12 stars" in other.snippet  # null description handled


def test_github_without_token_sends_no_authorization(server: FakeServer, sleeps: list[float]) -> None:
    server.route("/search/repositories", SPECS[2].ok, method="GET")
    provider_for(SPECS[2], server).search("x", limit=2)
    assert "Authorization" not in server.requests("/search/repositories")[0].headers


def test_github_error_never_contains_the_token(server: FakeServer, sleeps: list[float]) -> None:
    server.route("/search/repositories", Reply(500, {"message": "Server Error"}), method="GET")
    with pytest.raises(ProviderError) as caught:
        GitHubProvider(_settings(github_url=server.url(), github_token=GITHUB_TOKEN)).search("x", limit=2)
    assert GITHUB_TOKEN not in str(caught.value)


def test_github_rate_limit_403_explains_itself(server: FakeServer, sleeps: list[float]) -> None:
    limited = Reply(403, {"message": "API rate limit exceeded"}, {"x-ratelimit-remaining": "0"})
    server.route("/search/repositories", limited, method="GET")
    with pytest.raises(ProviderError, match="rate limit.*GITHUB_TOKEN"):
        provider_for(SPECS[2], server).search("x", limit=2)
    assert len(server.requests("/search/repositories")) == 1


# --- Stack Exchange ------------------------------------------------------------------------------


def test_stackexchange_query_gzip_entities_and_bodies(server: FakeServer, sleeps: list[float]) -> None:
    server.route("/search/advanced", SPECS[3].ok, method="GET")
    retrieval = provider_for(SPECS[3], server).search("asyncio gather timeout", limit=5)
    request = server.requests("/search/advanced")[0]
    assert {k: request.param(k) for k in ("order", "sort", "q", "site", "pagesize")} == {
        "order": "desc",
        "sort": "relevance",
        "q": "asyncio gather timeout",
        "site": "stackoverflow",
        "pagesize": "5",
    }
    first, second = retrieval.sources
    assert first.authors == ["Ana & Bo"] and first.year == 2015 and first.score == 45
    assert "tags: python, python-asyncio" in first.snippet and "answered" in first.snippet
    text = retrieval.texts[first.id]
    assert "stop waiting after 5 seconds" in text and "alert" not in text
    assert "unanswered" in second.snippet
    assert not retrieval.warnings  # quota is healthy


def test_stackexchange_backoff_delays_the_next_call(server: FakeServer, sleeps: list[float]) -> None:
    payload = json.loads(fixture_text("stackexchange_search_advanced.json")) | {"backoff": 10}
    server.route("/search/advanced", gzip_json(payload), method="GET")
    provider = provider_for(SPECS[3], server)
    provider.search("a", limit=2)
    assert sleeps == []
    provider.search("b", limit=2)
    assert len(sleeps) == 1 and 9.0 < sleeps[0] <= 10.0  # waited out the backoff first
    assert len(server.requests("/search/advanced")) == 2


def test_stackexchange_long_backoff_refuses_without_calling(server: FakeServer, sleeps: list[float]) -> None:
    payload = json.loads(fixture_text("stackexchange_search_advanced.json")) | {"backoff": 600}
    server.route("/search/advanced", gzip_json(payload), method="GET")
    provider = provider_for(SPECS[3], server)
    provider.search("a", limit=2)
    with pytest.raises(ProviderError, match="back off"):
        provider.search("b", limit=2)
    assert len(server.requests("/search/advanced")) == 1


def test_stackexchange_low_quota_is_a_warning(server: FakeServer, sleeps: list[float]) -> None:
    payload = json.loads(fixture_text("stackexchange_search_advanced.json")) | {"quota_remaining": 3}
    server.route("/search/advanced", gzip_json(payload), method="GET")
    retrieval = provider_for(SPECS[3], server).search("a", limit=2)
    assert retrieval.sources and "3 requests left" in retrieval.warnings[0].message


def test_stackexchange_backoff_gate_is_per_base_url() -> None:
    gate = stackexchange_provider.BackoffGate()
    gate.hold("http://a", 5)
    assert 4 < gate.remaining("http://a") <= 5 and gate.remaining("http://b") == 0
