"""One work, one source: arXiv versions, DOIs and title + year name the same work, across
providers (the real arXiv client and OpenAlex over loopback), in the graph's reducer and the run view."""

from __future__ import annotations

import pytest

from research.events import Event
from research.graph.state import merge_sources
from research.runs.view import fold
from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources.identity import arxiv_id, dedupe_works, work_keys
from research.sources.providers.arxiv_provider import ArxivProvider
from research.sources.providers.openalex import OpenAlexProvider
from research.sources.router import CircuitBreaker, SourceRouter
from tests.fakes import FakeServer, Reply, lift_rate_limits, text_reply
from tests.fakes.service_fakes import ARXIV_PATH, ATOM_TYPE, OPENALEX_PATH, openalex_reply, openalex_work

TITLE = "Attention Is All You Need"
ABSTRACT = "The dominant sequence transduction models are based on complex recurrent or convolutional networks."
FEED = f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
  <title>arXiv Query</title><id>http://arxiv.org/api/q</id><updated>2024-01-01T00:00:00Z</updated>
  <entry>
    <id>http://arxiv.org/abs/1706.03762v5</id>
    <updated>2017-12-06T03:30:32Z</updated><published>2017-06-12T17:57:34Z</published>
    <title>{TITLE}</title>
    <summary>{ABSTRACT} We propose a new simple network architecture, the Transformer, based solely on attention mechanisms.</summary>
    <author><name>Ashish Vaswani</name></author><author><name>Noam Shazeer</name></author>
    <arxiv:doi>10.48550/arXiv.1706.03762</arxiv:doi>
    <link href="http://arxiv.org/abs/1706.03762v5" rel="alternate" type="text/html"/>
    <arxiv:primary_category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CL" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
</feed>""".encode()


def src(title: str = TITLE, url: str = "", **fields) -> Source:
    return Source(
        title=title, url=url, kind=fields.pop("kind", "academic"), provider=fields.pop("provider", "x"), **fields
    )


@pytest.mark.parametrize(
    "url, doi, expected",
    [
        ("http://arxiv.org/abs/1706.03762v5", None, "1706.03762"),
        ("https://arxiv.org/abs/1706.03762", None, "1706.03762"),
        ("https://arxiv.org/pdf/1706.03762v2", None, "1706.03762"),
        ("https://doi.org/10.48550/arXiv.1706.03762", None, "1706.03762"),
        ("https://openalex.org/W1", "10.48550/arxiv.1706.03762", "1706.03762"),
        ("http://arxiv.org/abs/hep-th/9901001v1", None, "hep-th/9901001"),
        ("https://example.org/paper", None, None),
    ],
)
def test_arxiv_ids_from_urls_and_dois(url: str, doi: str | None, expected: str | None) -> None:
    assert arxiv_id(src(url=url, doi=doi)) == expected


def test_versions_dois_and_title_year_are_one_work_and_the_richest_record_is_kept() -> None:
    versions = [
        src(url="https://arxiv.org/abs/1706.03762", provider="library", snippet="Short."),
        src(url="http://arxiv.org/abs/1706.03762v5", provider="arxiv", snippet=ABSTRACT, year=2017),
        src(url="https://doi.org/10.48550/arXiv.1706.03762", provider="openalex", authors=["A. Vaswani"], year=2017),
        # The same title and year under a journal DOI, from yet another provider.
        src(title="Attention is all you need.", url="https://doi.org/10.5555/3295222", provider="crossref", year=2017),
        src(title="Attention Is All You Need", url="https://example.org/other", year=2019),  # not the same year
    ]
    kept = dedupe_works(versions)

    assert len(kept) == 2
    work = kept[0]
    assert work.provider == "arxiv" and work.snippet == ABSTRACT  # the longest snippet
    assert work.authors == ["A. Vaswani"] and work.year == 2017  # filled in from the other records
    assert kept[1].url == "https://example.org/other"
    assert dedupe_works(list(reversed(versions)))[-1].id == work.id  # the pick ignores arrival order


def test_short_titles_alone_do_not_merge_different_works() -> None:
    a = src(title="Introduction", url="https://a.example/1", year=2019)
    b = src(title="Introduction", url="https://b.example/2", year=2019)
    assert len(dedupe_works([a, b])) == 2
    assert not work_keys(a) & work_keys(b)


def test_the_reducer_keeps_one_record_per_work_in_first_appearance_order() -> None:
    first = [
        src(title="Other paper on transformers", url="https://x.example/1"),
        src(url="https://arxiv.org/abs/1706.03762"),
    ]
    merged = merge_sources(first, [src(url="http://arxiv.org/abs/1706.03762v5", snippet=ABSTRACT, year=2017)])
    assert [s.url for s in merged] == ["https://x.example/1", "http://arxiv.org/abs/1706.03762v5"]


def test_the_run_view_shows_one_source_per_work() -> None:
    older = src(url="https://arxiv.org/abs/1706.03762", snippet="Short.")
    richer = src(url="http://arxiv.org/abs/1706.03762v5", snippet=ABSTRACT, year=2017)
    other = src(title="A different study of attention heads", url="https://y.example/2")
    events = [
        Event(type="sources_found", seq=i, researcher_id=rid, data={"sources": [s.model_dump() for s in batch]})
        for i, (rid, batch) in enumerate([("academic-1", [older, other]), ("academic-2", [richer])], 1)
    ]
    view = fold(events)
    assert list(view.sources) == [richer.id, other.id]  # the richer record took the older one's place
    assert view.sources[richer.id].snippet == ABSTRACT
    assert view.researchers["academic-2"].source_ids == [richer.id]


def test_arxiv_and_openalex_records_of_one_paper_are_one_source() -> None:
    lift_rate_limits("arxiv", "openalex")
    with FakeServer() as server:
        server.route(ARXIV_PATH, text_reply(FEED, ATOM_TYPE))
        works = [
            openalex_work(
                TITLE,
                work_id="W2963403868",
                doi="10.48550/arXiv.1706.03762",
                year=2017,
                authors=("Ashish Vaswani",),
                abstract=ABSTRACT,
            ),
            openalex_work(
                "Attention is all you need",
                work_id="W2626778328",
                doi="10.5555/3295222.3295349",
                year=2017,
                authors=("Ashish Vaswani",),
                abstract="Short abstract.",
            ),
        ]
        server.route(OPENALEX_PATH, lambda _r: Reply(200, openalex_reply(works)))
        settings = Settings(
            _env_file=None,
            sources="live",
            http_timeout=1.0,
            arxiv_url=server.url(ARXIV_PATH),
            openalex_url=server.url(),
        )
        router = SourceRouter(
            settings,
            lambda kind: None,
            providers=lambda kind, s: [ArxivProvider(s), OpenAlexProvider(s)],
            breaker=CircuitBreaker(),
        )
        result = router.retrieve("academic", "attention transformer", 5)

    assert set(result.providers_used) == {"arxiv", "openalex"}
    [paper] = result.sources
    assert paper.provider == "arxiv" and paper.url == "http://arxiv.org/abs/1706.03762v5"
    assert paper.doi == "10.48550/arXiv.1706.03762"
