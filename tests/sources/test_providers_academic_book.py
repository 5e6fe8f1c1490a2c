"""arXiv, OpenAlex, Open Library and Wikipedia providers against loopback fakes of each service.

Every provider goes through its real client code (the `arxiv` package's Client, httpx) over a real
socket; the fakes answer in each service's wire format and script the faults.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from research.settings import Settings
from research.sources.http import HttpStatusError
from research.sources.provider_base import ProviderError, SourceProvider
from research.sources.providers.arxiv_provider import ArxivProvider
from research.sources.providers.openalex import OpenAlexProvider, rebuild_abstract
from research.sources.providers.openlibrary import OpenLibraryProvider
from research.sources.providers.wikipedia_provider import WikipediaProvider
from tests.fakes import FakeServer, Handler, Reply, faults, lift_rate_limits, slow, text_reply
from tests.fakes.service_fakes import (
    ARXIV_PATH,
    ATOM_TYPE,
    OPENALEX_PATH,
    OPENLIBRARY_SEARCH_PATH,
    WIKIPEDIA_PATH,
    WikiArticle,
    arxiv_fixture,
    arxiv_handler,
    install_academic_book_fakes,
    install_openlibrary,
    openalex_reply,
    openalex_work,
    openlibrary_doc,
    openlibrary_search_reply,
    wikipedia_handler,
)


@pytest.fixture
def settings(server) -> Settings:
    """Every provider pointed at the fake, with a short timeout."""
    return Settings(_env_file=None, **install_academic_book_fakes(server), http_timeout=0.5)


@pytest.fixture(autouse=True)
def _unthrottled():
    lift_rate_limits()
    yield
    lift_rate_limits()


@dataclass
class Case:
    """How to fault one provider: its class, the path its search hits, and bodies to serve."""

    provider: Callable[[Settings], SourceProvider]
    path: str
    normal: Callable[[FakeServer], Handler]
    empty: Reply
    malformed: Reply


CASES = {
    "arxiv": Case(
        ArxivProvider,
        ARXIV_PATH,
        lambda _s: arxiv_handler(),
        Reply(200, arxiv_fixture("arxiv_empty.xml"), {"Content-Type": ATOM_TYPE}),
        Reply(200, b"<html><body>Service temporarily unavailable</body></html>", {"Content-Type": "text/html"}),
    ),
    "openalex": Case(
        OpenAlexProvider,
        OPENALEX_PATH,
        lambda _s: lambda _r: Reply(200, openalex_reply([openalex_work("A paper")])),
        Reply(200, openalex_reply([])),
        Reply(200, b'{"meta": {"count": 1}, "results": ', {"Content-Type": "application/json"}),
    ),
    "openlibrary": Case(
        OpenLibraryProvider,
        OPENLIBRARY_SEARCH_PATH,
        lambda _s: lambda _r: Reply(200, openlibrary_search_reply([openlibrary_doc("A book")])),
        Reply(200, openlibrary_search_reply([])),
        Reply(200, {"error": "Internal Server Error"}),  # JSON, but no docs list
    ),
    "wikipedia": Case(
        WikipediaProvider,
        WIKIPEDIA_PATH,
        lambda s: wikipedia_handler(base_url=s.base_url),
        Reply(200, {"batchcomplete": True, "query": {"searchinfo": {"totalhits": 0}, "search": []}}),
        Reply(200, b"<!DOCTYPE html><html>MediaWiki internal error</html>", {"Content-Type": "text/html"}),
    ),
}
NAMES = list(CASES)


def search(case: Case, settings: Settings, limit: int = 5):
    return case.provider(settings).search("printing press", limit=limit)


# --- the same fault modes for every provider -----------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_provider_protocol(name, settings):
    provider = CASES[name].provider(settings)
    assert isinstance(provider, SourceProvider) and provider.name == name
    assert provider.kind == ("academic" if name in ("arxiv", "openalex") else "book")


@pytest.mark.parametrize("name", NAMES)
def test_500_then_success_is_retried(name, server, settings, sleeps):
    case = CASES[name]
    server.route(case.path, faults(case.normal(server), Reply(500, "boom")))
    retrieval = search(case, settings)
    assert retrieval.sources and all(s.provider == name for s in retrieval.sources)
    assert len(sleeps) == 1
    # the failed call and its retry (Wikipedia then also asks for intros on the same path)
    assert len(server.requests(case.path)) == (3 if name == "wikipedia" else 2)


@pytest.mark.parametrize("name", NAMES)
def test_429_retry_after_is_honoured(name, server, settings, sleeps):
    case = CASES[name]
    server.route(case.path, faults(case.normal(server), Reply(429, "slow down", {"Retry-After": "1"})))
    assert search(case, settings).sources
    assert sleeps == [1.0]


@pytest.mark.parametrize("name", NAMES)
def test_timeout_raises_within_bounds(name, server, sleeps):
    case = CASES[name]
    server.route(case.path, slow(case.normal(server), 5))
    settings = Settings(_env_file=None, **install_urls(server), http_timeout=0.2)
    started = time.monotonic()
    with pytest.raises(ProviderError, match="timed out after 0.2s"):
        search(case, settings)
    assert time.monotonic() - started < 10.0  # 3 attempts x 0.2 s, back-off not waited (unbounded: 15 s)
    assert len(server.requests(case.path)) == 3


@pytest.mark.parametrize("name", NAMES)
def test_malformed_reply_is_a_provider_error(name, server, settings, sleeps):
    case = CASES[name]
    server.route(case.path, case.malformed)
    with pytest.raises(ProviderError, match="malformed") as caught:
        search(case, settings)
    assert caught.value.provider == name
    assert len(server.requests(case.path)) == 1  # a 200 with a bad body is not retried


@pytest.mark.parametrize("name", NAMES)
def test_empty_reply_is_zero_results_without_warnings(name, server, settings):
    case = CASES[name]
    server.route(case.path, case.empty)
    retrieval = search(case, settings)
    assert (retrieval.sources, retrieval.texts, retrieval.warnings) == ([], {}, [])
    assert retrieval.providers_used == [name]


@pytest.mark.parametrize("name", NAMES)
def test_404_is_not_retried(name, server, settings, sleeps):
    case = CASES[name]
    server.route(case.path, Reply(404, "not found"))
    with pytest.raises(HttpStatusError) as caught:
        search(case, settings)
    assert caught.value.status_code == 404 and caught.value.provider == name
    assert len(server.requests(case.path)) == 1 and sleeps == []


def install_urls(server: FakeServer) -> dict[str, str]:
    return {
        "arxiv_url": server.url(ARXIV_PATH),
        "openalex_url": server.url(),
        "openlibrary_url": server.url(),
        "wikipedia_url": server.url(WIKIPEDIA_PATH),
    }


# --- arXiv ----------------------------------------------------------------------------------------


def test_arxiv_maps_atom_entries(server, settings):
    retrieval = ArxivProvider(settings).search("printing  press", limit=2)
    first, second = retrieval.sources
    assert first.title == "Diffusion of the Printing Press and Urban Growth in Early Modern Europe"
    assert first.url == "http://arxiv.org/abs/2103.01234v2"
    assert first.authors == ["Maria Keller", "Tomás Ruiz"] and first.year == 2021
    assert first.kind == "academic" and first.provider == "arxiv" and first.query == "printing press"
    assert first.snippet.startswith("We measure how the adoption of movable-type printing")
    assert retrieval.texts[first.id].endswith("two centuries after adoption.")
    assert second.year == 2015 and first.score > second.score
    (request,) = server.requests(ARXIV_PATH)  # the configured endpoint, one page of `limit`
    assert request.param("search_query") == "printing press" and request.param("max_results") == "2"


def test_arxiv_skips_unreadable_entries_with_a_warning(server, settings):
    broken = arxiv_fixture().replace(b"<published>2021-03-02T09:15:22Z</published>", b"")
    server.route(ARXIV_PATH, text_reply(broken, ATOM_TYPE))
    retrieval = ArxivProvider(settings).search("printing press", limit=5)
    assert [s.url for s in retrieval.sources] == ["http://arxiv.org/abs/1507.04567v1"]
    assert "skipped 1" in retrieval.warnings[0].message


def test_arxiv_unparseable_xml_is_malformed(server, settings):
    server.route(ARXIV_PATH, text_reply(b"<feed xmlns='http://www.w3.org/2005/Atom'><entry>", ATOM_TYPE))
    with pytest.raises(ProviderError, match="malformed Atom"):
        ArxivProvider(settings).search("printing press", limit=5)


# --- OpenAlex -------------------------------------------------------------------------------------


def test_openalex_maps_works(server, settings):
    retrieval = OpenAlexProvider(settings).search("open access", limit=5)
    paper, book = retrieval.sources
    assert paper.title == "The state of OA: a large-scale analysis of Open Access articles"
    assert paper.url == "https://doi.org/10.7717/peerj.4375" and paper.year == 2018
    assert paper.authors == ["Heather Piwowar", "Jason Priem"]
    assert retrieval.texts[paper.id] == "Despite growing interest in Open Access, its prevalence is unknown."
    assert book.url == "https://openalex.org/W1992763546"  # no DOI: the OpenAlex id
    assert book.id not in retrieval.texts  # no abstract, no text
    (request,) = server.requests(OPENALEX_PATH)
    assert request.param("search") == "open access" and request.param("per-page") == "5"


def test_openalex_rebuilds_abstract_from_inverted_index():
    assert rebuild_abstract({"the": [0, 3], "cat": [1], "saw": [2], "dog": [4]}) == "the cat saw the dog"
    assert rebuild_abstract(None) == "" and rebuild_abstract({"x": "bad"}) == ""


def test_openalex_skips_untitled_works_with_a_warning(server, settings):
    works = [openalex_work("Kept"), {"id": "https://openalex.org/W1", "title": None}, "junk"]
    server.route(OPENALEX_PATH, Reply(200, openalex_reply(works)))
    retrieval = OpenAlexProvider(settings).search("x", limit=5)
    assert [s.title for s in retrieval.sources] == ["Kept"]
    assert "skipped 2" in retrieval.warnings[0].message


# --- Open Library ---------------------------------------------------------------------------------


def test_openlibrary_maps_docs_and_descriptions(server, settings):
    retrieval = OpenLibraryProvider(settings).search("printing press", limit=5)
    agent, coming = retrieval.sources
    assert agent.title == "The Printing Press as an Agent of Change"
    assert agent.url == server.url("/works/OL1892617W") and agent.year == 1979
    assert agent.authors == ["Elizabeth L. Eisenstein"] and agent.kind == "book"
    # {"type": "/type/text", "value": ...} and plain-string descriptions both read
    assert retrieval.texts[agent.id] == "A study of the shift from script to print."
    assert retrieval.texts[coming.id] == "How printing changed the circulation of ideas in Europe."
    assert coming.authors == ["Lucien Febvre", "Henri-Jean Martin"]
    assert server.requests(OPENLIBRARY_SEARCH_PATH)[0].param("q") == "printing press"
    assert len(server.requests("/works/OL2677467W.json")) == 1


def test_openlibrary_failed_description_keeps_the_book(server, settings, sleeps):
    install_openlibrary(server, descriptions={"/works/OL2677467W": "Described."})
    server.route("/works/OL1892617W.json", Reply(500))
    retrieval = OpenLibraryProvider(settings).search("printing press", limit=5)
    assert len(retrieval.sources) == 2
    assert retrieval.texts[retrieval.sources[1].id] == "Described."
    assert retrieval.sources[0].id not in retrieval.texts
    assert "1 of 2 work descriptions unavailable" in retrieval.warnings[0].message
    assert len(server.requests("/works/OL1892617W.json")) == 1  # enrichment is not retried


def test_openlibrary_first_sentence_when_no_descriptions(server, settings):
    install_openlibrary(server, descriptions={})
    retrieval = OpenLibraryProvider(settings, fetch_descriptions=False).search("book", limit=5)
    coming = retrieval.sources[1]
    assert retrieval.texts[coming.id] == "The book is a relative newcomer in Western society."
    assert retrieval.sources[0].snippet.startswith("Subjects: Printing")
    assert len(server.requests()) == 1  # search only


# --- Wikipedia ------------------------------------------------------------------------------------


def test_wikipedia_maps_search_hits_and_intros(server, settings):
    retrieval = WikipediaProvider(settings).search("printing press", limit=5)
    press, gutenberg = retrieval.sources
    assert press.title == "Printing press" and press.kind == "book" and press.provider == "wikipedia"
    assert press.url == server.url("/wiki/Printing_press")
    assert retrieval.texts[press.id].startswith("A printing press is a mechanical device")
    assert gutenberg.url == server.url("/wiki/Johannes_Gutenberg")
    search_call, extracts_call = server.requests(WIKIPEDIA_PATH)
    assert search_call.param("list") == "search" and search_call.param("srsearch") == "printing press"
    assert extracts_call.param("pageids") == "23976|15766" and extracts_call.param("explaintext") == "1"


def test_wikipedia_falls_back_to_snippets_when_intros_fail(server, settings, sleeps):
    articles = [WikiArticle("Printing press", 23976, "", 'A <span class="searchmatch">printing</span> &amp; press')]
    normal = wikipedia_handler(articles, base_url=server.base_url)
    server.route(WIKIPEDIA_PATH, lambda r: Reply(503) if r.param("prop") else normal(r))
    retrieval = WikipediaProvider(settings).search("printing press", limit=5)
    (press,) = retrieval.sources
    assert press.snippet == "A printing & press" and press.id not in retrieval.texts
    assert press.url.endswith("/wiki/Printing_press")
    assert "intros unavailable" in retrieval.warnings[0].message


def test_wikipedia_api_error_is_a_provider_error(server, settings):
    error = {"error": {"code": "srsearch-text-disabled", "info": "Search is disabled", "*": "docs"}}
    server.route(WIKIPEDIA_PATH, Reply(200, error))
    with pytest.raises(ProviderError, match="MediaWiki API error srsearch-text-disabled"):
        WikipediaProvider(settings).search("printing press", limit=5)
