"""The reliability signal from each provider's own input: OpenAlex's venue and citation count,
arXiv's journal reference, Open Library's publisher and editions, the library's front matter, a
web page's domain, and a source's age on a fast-moving topic. Providers run against the loopback
fakes of their services; every factor is checked with its points and reason."""

from __future__ import annotations

import pytest

from research.schemas.source_quality import SourceFacts
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources.library.library_store import Library, LibraryProvider
from research.sources.providers.arxiv_provider import ArxivProvider
from research.sources.providers.openalex import OpenAlexProvider
from research.sources.providers.openlibrary import OpenLibraryProvider
from research.sources.reliability import assess, is_fast_moving
from tests.fakes import Reply, lift_rate_limits
from tests.fakes.service_fakes import (
    OPENALEX_PATH,
    install_academic_book_fakes,
    install_openlibrary,
    openalex_reply,
    openalex_work,
    openlibrary_doc,
)


@pytest.fixture
def settings(server) -> Settings:
    lift_rate_limits()
    return Settings(_env_file=None, **install_academic_book_fakes(server), http_timeout=2.0)


def _points(source: Source, topic: str = "") -> dict[str, float]:
    return {f.factor: f.points for f in assess(source, topic, this_year=2026).factors}


def test_openalex_journal_and_citations_make_a_source_reliable(server, settings: Settings) -> None:
    works = [
        openalex_work("Cited journal work", cited_by=250, venue=("Nature", "journal")),
        openalex_work(
            "Fresh preprint", work_id="W2", doi=None, work_type="preprint", cited_by=0, venue=("SSRN", "repository")
        ),
        openalex_work("Bare record", work_id="W3", doi=None, cited_by=None, venue=None),
    ]
    server.route(OPENALEX_PATH, lambda _r: Reply(200, openalex_reply(works)))
    cited, preprint, bare = OpenAlexProvider(settings).search("open access", limit=5).sources

    assert cited.facts == SourceFacts(venue="Nature", peer_reviewed=True, cited_by=250)
    assert _points(cited) == {"peer_review": 0.25, "citations": 0.20}
    high = assess(cited, this_year=2026)
    assert (high.score, high.label) == (0.95, "high")
    assert "peer-reviewed venue: Nature" in high.reasons and "cited 250 times (OpenAlex)" in high.reasons

    assert preprint.facts == SourceFacts(venue="SSRN", peer_reviewed=False, cited_by=0)
    assert _points(preprint) == {"peer_review": -0.10, "citations": -0.05}
    assert assess(preprint, this_year=2026).label == "low"

    assert bare.facts == SourceFacts()  # nothing said, nothing assumed
    unknown = assess(bare, this_year=2026)
    assert (unknown.score, unknown.factors, unknown.reasons) == (0.5, [], "no signal from the provider")


def test_arxiv_papers_are_preprints_unless_a_journal_is_named(settings: Settings) -> None:
    sources = ArxivProvider(settings).search("printing press", limit=5).sources
    by_venue = {s.facts.venue: s for s in sources}
    published = by_venue["J. Econ. Hist. 75, 812 (2015)"]  # the fixture entry with arxiv:journal_ref
    assert published.facts.peer_reviewed is True
    assert _points(published) == {"peer_review": 0.25}
    preprints = [s for s in sources if s.facts.venue == "arXiv"]
    assert preprints and all(s.facts.peer_reviewed is False for s in preprints)
    assert "preprint on arXiv, not peer reviewed" in assess(preprints[0]).reasons


def test_open_library_publisher_and_editions(server, settings: Settings) -> None:
    install_openlibrary(
        server,
        docs=[
            openlibrary_doc("The Printing Press as an Agent of Change"),
            openlibrary_doc("A pamphlet", key="/works/OL9W", publisher=("Small House",), editions=1),
            openlibrary_doc("Unknown", key="/works/OL8W", publisher=(), editions=None),
        ],
        descriptions={},
    )
    press, pamphlet, unknown = OpenLibraryProvider(settings).search("printing press", limit=5).sources
    assert press.facts == SourceFacts(publisher="Cambridge University Press", editions=12)
    assert _points(press) == {"publisher": 0.15, "editions": 0.10}
    assert "university press: Cambridge University Press" in assess(press).reasons
    assert _points(pamphlet) == {"publisher": 0.05}  # a named publisher; one edition adds nothing
    assert _points(unknown) == {}


def test_library_documents_carry_their_front_matter_publisher(settings: Settings, tmp_path) -> None:
    library = Library(tmp_path / "library.db")
    library.ensure_sample()
    academic = LibraryProvider(library, "academic").search("Chevreul colour theory impressionism", limit=10).sources
    journal = next(s for s in academic if s.facts.venue == "Sample Journal of Technical Art History")
    assert journal.facts.peer_reviewed is True and _points(journal) == {"peer_review": 0.25}
    studies = next(s for s in academic if s.facts.venue == "Sample Studies in Modern Art")
    assert studies.facts.peer_reviewed is None  # not named like a reviewed venue: unknown, not assumed
    books = LibraryProvider(library, "book").search("Renoir Degas modern life", limit=10).sources
    press = next(s for s in books if s.facts.publisher == "Sample University Press Handbooks")
    assert _points(press) == {"publisher": 0.15}
    web = LibraryProvider(library, "web").search("women impressionists", limit=10).sources
    blog = next(s for s in web if s.facts.publisher == "Sample Gallery Blog")
    assert _points(blog) == {"domain": -0.15}


@pytest.mark.parametrize(
    ("url", "points", "reason"),
    [
        ("https://www.cdc.gov/vaccines/", 0.25, "government site (cdc.gov)"),
        ("https://www.gov.uk/guidance", 0.25, "government site (gov.uk)"),
        ("https://www.ox.ac.uk/research", 0.20, "university or academic site (ox.ac.uk)"),
        ("https://cs.stanford.edu/page", 0.20, "university or academic site (cs.stanford.edu)"),
        ("https://en.wikipedia.org/wiki/Impressionism", 0.05, "reference encyclopedia (en.wikipedia.org)"),
        ("https://www.who.int.example.org/x", 0.05, "organisation site (who.int.example.org)"),
        ("https://someone.medium.com/post", -0.15, "user-generated or social site (someone.medium.com)"),
        ("https://blog.example.com/post", -0.15, "user-generated or social site (blog.example.com)"),
        ("https://stackoverflow.com/q/1", 0.0, "community site (stackoverflow.com)"),
        ("https://shop.example.com/item", 0.0, "commercial or unknown site (shop.example.com)"),
    ],
)
def test_web_domain_types(url: str, points: float, reason: str) -> None:
    (factor,) = assess(Source(title="Page", url=url, kind="web", provider="ddgs"), this_year=2026).factors
    assert (factor.factor, factor.points, factor.reason) == ("domain", points, reason)


def test_recency_counts_only_on_fast_moving_topics() -> None:
    assert is_fast_moving("Latest LLM agents in 2026") and not is_fast_moving("Impressionism and its painters")
    old = Source(title="Old", url="https://x.example.com", kind="academic", provider="openalex", year=2012)
    new = old.model_copy(update={"year": 2025})
    mid = old.model_copy(update={"year": 2021})
    assert _points(old, "LLM agents") == {"recency": -0.15}
    assert _points(new, "LLM agents") == {"recency": 0.10}
    assert _points(mid, "LLM agents") == {"recency": 0.0}
    assert _points(old, "Impressionism and its painters") == {}
    assert "14 years old on a fast-moving topic" in assess(old, "LLM agents", this_year=2026).reasons
