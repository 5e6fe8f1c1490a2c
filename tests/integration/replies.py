"""Bodies the fake services answer with, in each service's real wire format, all about the
integration tests' topic (mRNA vaccines): researchers drop hits that do not mention the subject.

Healthy replies (Tavily results on the fake's own article pages, an arXiv Atom feed, OpenAlex works,
Open Library docs and descriptions, MediaWiki articles), then the broken ones per fault mode.
"""

from __future__ import annotations

from typing import Any

from tests.fakes.http_server import FakeServer, Reply
from tests.fakes.service_fakes import (
    ATOM_TYPE,
    WikiArticle,
    arxiv_fixture,
    mediawiki_search_reply,
    openalex_reply,
    openalex_work,
    openlibrary_doc,
    openlibrary_search_reply,
)

PAGES = {
    "/pages/lipid-nanoparticles": (
        "How lipid nanoparticles deliver mRNA vaccines",
        "Lipid nanoparticles wrap the fragile mRNA strand of a vaccine and carry it into cells, where ribosomes "
        "translate it into the spike protein that trains the immune system.",
    ),
    "/pages/immune-response": (
        "The immune response to mRNA vaccines",
        "After vaccination, antigen-presenting cells display the spike protein; B cells make "
        "neutralising antibodies and T cells remember the pathogen for months.",
    ),
}
PAGE_PHRASE = "ribosomes translate it into the spike protein"  # only on a page: proves it was scraped


def page_html(title: str, text: str) -> bytes:
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
        f"<script>var tracker = 'SCRIPT-MARKER';</script></head><body><nav>Home | About</nav>"
        f"<article><h1>{title}</h1><p>{text}</p><p>{text}</p></article><footer>Example museum</footer>"
        f"</body></html>"
    ).encode()


def tavily_reply(server: FakeServer, query: str = "mRNA vaccines") -> dict[str, Any]:
    """POST /search as Tavily answers it, with results on the fake's pages and no raw_content."""
    return {
        "query": query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": [
            {"url": server.url(path), "title": title, "content": text[:90], "score": 0.9 - i / 10, "raw_content": None}
            for i, (path, (title, text)) in enumerate(PAGES.items())
        ],
        "response_time": 0.42,
        "request_id": "0b7d5c5e-5d8e-4d0c-9d4f-2c8f0e7a1b11",
    }


ARXIV_ENTRY = """  <entry>
    <id>http://arxiv.org/abs/{id}</id>
    <updated>2022-03-09T17:41:07Z</updated>
    <published>{published}T09:15:22Z</published>
    <title>{title}</title>
    <summary>  {summary}
</summary>
    <author>
      <name>{author}</name>
    </author>
    <link href="http://arxiv.org/abs/{id}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/{id}" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="q-bio.BM" scheme="http://arxiv.org/schemas/atom"/>
    <category term="q-bio.BM" scheme="http://arxiv.org/schemas/atom"/>
  </entry>
"""
ARXIV_ENTRIES = [
    {
        "id": "2203.01234v1",
        "published": "2022-03-02",
        "author": "Ana Kovac",
        "title": "Modelling antigen expression after mRNA vaccines",
        "summary": "We model how mRNA vaccines are translated in muscle cells and how long the spike antigen persists.",
    },
    {
        "id": "2106.04567v2",
        "published": "2021-06-16",
        "author": "Ravi Menon",
        "title": "Thermal stability of lipid nanoparticles in mRNA vaccines",
        "summary": "Lipid nanoparticles protect mRNA vaccines from degradation; we measure their stability when frozen.",
    },
]


def arxiv_feed(entries: list[dict[str, str]]) -> bytes:
    """An export.arxiv.org Atom reply with these entries."""
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
        '  <link href="http://arxiv.org/api/query?search_query%3Dall%3AmRNA" rel="self" type="application/atom+xml"/>\n'
        '  <title type="html">ArXiv Query: search_query=all:mRNA</title>\n'
        "  <id>http://arxiv.org/api/mRNAvaccinesQueryId</id>\n  <updated>2024-05-14T00:00:00-04:00</updated>\n"
        f'  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{len(entries)}</opensearch:totalResults>\n'
        '  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>\n'
        f'  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{len(entries)}</opensearch:itemsPerPage>\n'
    )
    return (head + "".join(ARXIV_ENTRY.format(**e) for e in entries) + "</feed>\n").encode()


OPENALEX_WORKS = [
    openalex_work(
        "Efficacy and safety of mRNA vaccines: a systematic review",
        work_id="W3200000001",
        doi="10.1000/mrna.2021.001",
        year=2021,
        authors=("Lea Fischer", "Omar Haddad"),
        abstract="Across phase 3 trials mRNA vaccines prevented symptomatic infection with high efficacy.",
    ),
    openalex_work(
        "How mRNA vaccines instruct the immune system",
        work_id="W3200000002",
        doi=None,
        year=2022,
        authors=("Grace Liu",),
        abstract="mRNA vaccines make cells produce an antigen that primes B and T cells.",
    ),
]
OPENLIBRARY_DOCS = [
    openlibrary_doc("mRNA Vaccines: A Handbook", key="/works/OL9000001W", authors=("Helen Park",), year=2022),
    openlibrary_doc(
        "The Messenger: the story of mRNA vaccines",
        key="/works/OL9000002W",
        authors=("Tom Reyes",),
        year=2023,
        first_sentence="Few expected mRNA vaccines to work at all.",
    ),
]
OPENLIBRARY_DESCRIPTIONS = {
    "/works/OL9000001W": {
        "type": "/type/text",
        "value": "A practical guide to how mRNA vaccines are designed and made.",
    },
    "/works/OL9000002W": "Decades of research behind the mRNA vaccines of 2020.",
}
WIKI_ARTICLES = [
    WikiArticle(
        "mRNA vaccine",
        60000001,
        "An mRNA vaccine is a type of vaccine that uses a copy of messenger RNA to produce an immune response.",
        'An <span class="searchmatch">mRNA</span> <span class="searchmatch">vaccine</span> is a type of vaccine',
    ),
    WikiArticle(
        "Lipid nanoparticle",
        60000002,
        "Lipid nanoparticles are the delivery vehicle of mRNA vaccines, carrying the mRNA into cells.",
        'the delivery vehicle of <span class="searchmatch">mRNA vaccines</span>',
    ),
]


# Broken replies per provider (every call gets the same one: a service that stays broken).
MALFORMED: dict[str, Reply] = {
    "tavily": Reply(200, b"<html><body>502 Bad Gateway</body></html>", {"Content-Type": "text/html"}),
    "arxiv": Reply(200, b"<html><body>Service unavailable</body></html>", {"Content-Type": "text/html"}),
    "openalex": Reply(200, b'{"meta": {"count": 3}, "results": [', {"Content-Type": "application/json"}),
    "openlibrary": Reply(200, b"upstream timed out", {"Content-Type": "text/plain"}),
    "wikipedia": Reply(200, {"batchcomplete": True, "warnings": {"main": {"*": "unrecognised"}}}),
}


def empty_reply(name: str) -> Reply:
    if name == "tavily":
        return Reply(200, {"query": "q", "answer": None, "images": [], "results": [], "response_time": 0.2})
    if name == "arxiv":
        return Reply(200, arxiv_fixture("arxiv_empty.xml"), {"Content-Type": ATOM_TYPE})
    if name == "openalex":
        return Reply(200, openalex_reply([]))
    if name == "openlibrary":
        return Reply(200, openlibrary_search_reply([]))
    return Reply(200, mediawiki_search_reply([]))
