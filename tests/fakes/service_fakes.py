"""Replies in the real wire formats of arXiv, OpenAlex, Open Library and MediaWiki, for FakeServer.

Builders return bodies (dicts for JSON, str for Atom); `*_handler` functions return FakeServer
handlers; `install_academic_book_fakes(server)` registers working defaults for all four services
on one server and returns the Settings overrides that point the providers at it:

    with FakeServer() as server:
        settings = Settings(**install_academic_book_fakes(server), http_timeout=0.5)
        server.route(ARXIV_PATH, faults(arxiv_handler(), Reply(503)))   # then add faults per test

Shapes follow the services' documented replies (export.arxiv.org Atom 1.0 with opensearch and
arxiv namespaces; OpenAlex /works list; Open Library search.json and /works/<id>.json;
MediaWiki action=query with formatversion=2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.fakes.http_server import FakeRequest, FakeServer, Handler, Reply, text_reply

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ATOM_TYPE = "application/atom+xml; charset=utf-8"

ARXIV_PATH = "/api/query"
OPENALEX_PATH = "/works"
OPENLIBRARY_SEARCH_PATH = "/search.json"
WIKIPEDIA_PATH = "/w/api.php"


# --- arXiv (Atom) ----------------------------------------------------------------------------------


def arxiv_fixture(name: str = "arxiv_search.xml") -> bytes:
    """A stored arXiv reply: arxiv_search.xml (2 entries) or arxiv_empty.xml (0 entries)."""
    return (FIXTURES / name).read_bytes()


def arxiv_handler(body: bytes | None = None) -> Handler:
    """Answer every query with this Atom feed (default: the two-entry fixture)."""
    return text_reply(body if body is not None else arxiv_fixture(), ATOM_TYPE)


# --- OpenAlex ----------------------------------------------------------------------------------------


def inverted_index(text: str) -> dict[str, list[int]]:
    """OpenAlex's abstract_inverted_index for `text`."""
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split()):
        index.setdefault(word, []).append(position)
    return index


def openalex_work(
    title: str,
    *,
    work_id: str = "W2741809807",
    doi: str | None = "10.7717/peerj.4375",
    year: int | None = 2018,
    authors: tuple[str, ...] = ("Heather Piwowar", "Jason Priem"),
    abstract: str | None = "Despite growing interest in Open Access, its prevalence is unknown.",
    work_type: str = "article",
    cited_by: int | None = 41,
    venue: tuple[str, str] | None = ("PeerJ", "journal"),  # primary_location.source: display_name, type
) -> dict[str, Any]:
    work: dict[str, Any] = {
        "id": f"https://openalex.org/{work_id}",
        "doi": f"https://doi.org/{doi}" if doi else None,
        "title": title,
        "display_name": title,
        "publication_year": year,
        "type": work_type,
        "authorships": [
            {
                "author_position": "first" if i == 0 else "middle",
                "author": {"id": f"https://openalex.org/A50{i:08d}", "display_name": name, "orcid": None},
                "institutions": [],
                "raw_author_name": name,
            }
            for i, name in enumerate(authors)
        ],
        "abstract_inverted_index": inverted_index(abstract) if abstract else None,
        "relevance_score": 812.5,
    }
    if cited_by is not None:
        work["cited_by_count"] = cited_by
    if venue is not None:
        name, kind = venue
        work["primary_location"] = {
            "is_oa": True,
            "version": "publishedVersion",
            "source": {"display_name": name, "type": kind},
        }
    return work


def openalex_reply(works: list[dict[str, Any]]) -> dict[str, Any]:
    """The /works list envelope."""
    return {
        "meta": {"count": len(works), "db_response_time_ms": 24, "page": 1, "per_page": 25, "groups_count": None},
        "results": works,
        "group_by": [],
    }


DEFAULT_OPENALEX_WORKS = [
    openalex_work("The state of OA: a large-scale analysis of Open Access articles"),
    openalex_work(
        "The Printing Revolution in Early Modern Europe",
        work_id="W1992763546",
        doi=None,
        year=1983,
        authors=("Elizabeth L. Eisenstein",),
        abstract=None,
    ),
]


# --- Open Library ----------------------------------------------------------------------------------


def openlibrary_doc(
    title: str,
    *,
    key: str = "/works/OL1892617W",
    authors: tuple[str, ...] = ("Elizabeth L. Eisenstein",),
    year: int | None = 1979,
    first_sentence: str | None = None,
    publisher: tuple[str, ...] = ("Cambridge University Press", "Cambridge"),
    editions: int | None = 12,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "key": key,
        "type": "work",
        "title": title,
        "author_name": list(authors),
        "author_key": [f"/authors/OL{i}A" for i, _ in enumerate(authors)],
        "subject": ["Printing", "History", "Europe"],
    }
    if editions is not None:
        doc["edition_count"] = editions
    if publisher:
        doc["publisher"] = list(publisher)
    if year is not None:
        doc["first_publish_year"] = year
    if first_sentence:
        doc["first_sentence"] = [first_sentence]
    return doc


def openlibrary_search_reply(docs: list[dict[str, Any]], query: str = "printing press") -> dict[str, Any]:
    return {
        "numFound": len(docs),
        "start": 0,
        "numFoundExact": True,
        "num_found": len(docs),
        "documentation_url": "https://openlibrary.org/dev/docs/api/search",
        "q": query,
        "offset": None,
        "docs": docs,
    }


def openlibrary_work_reply(key: str, title: str, description: Any) -> dict[str, Any]:
    """A /works/<id>.json document; `description` may be a str or {"type", "value"}."""
    work: dict[str, Any] = {
        "title": title,
        "key": key,
        "authors": [{"author": {"key": "/authors/OL0A"}, "type": {"key": "/type/author_role"}}],
        "type": {"key": "/type/work"},
        "subjects": ["Printing", "History"],
        "latest_revision": 7,
        "revision": 7,
        "created": {"type": "/type/datetime", "value": "2009-12-09T18:21:35.410919"},
        "last_modified": {"type": "/type/datetime", "value": "2023-02-11T03:04:05.123456"},
    }
    if description is not None:
        work["description"] = description
    return work


DEFAULT_OPENLIBRARY_DOCS = [
    openlibrary_doc("The Printing Press as an Agent of Change"),
    openlibrary_doc(
        "The Coming of the Book",
        key="/works/OL2677467W",
        authors=("Lucien Febvre", "Henri-Jean Martin"),
        year=1958,
        first_sentence="The book is a relative newcomer in Western society.",
    ),
]
DEFAULT_OPENLIBRARY_DESCRIPTIONS: dict[str, Any] = {
    "/works/OL1892617W": {"type": "/type/text", "value": "A study of the shift from script to print."},
    "/works/OL2677467W": "How printing changed the circulation of ideas in Europe.",
}


def install_openlibrary(
    server: FakeServer,
    docs: list[dict[str, Any]] | None = None,
    descriptions: dict[str, Any] | None = None,
) -> None:
    """search.json plus one /works/<id>.json route per description."""
    docs = DEFAULT_OPENLIBRARY_DOCS if docs is None else docs
    descriptions = DEFAULT_OPENLIBRARY_DESCRIPTIONS if descriptions is None else descriptions
    server.route(OPENLIBRARY_SEARCH_PATH, lambda r: Reply(200, openlibrary_search_reply(docs, r.param("q") or "")))
    titles = {d.get("key"): d.get("title", "") for d in docs}
    for key, description in descriptions.items():
        server.route(f"{key}.json", Reply(200, openlibrary_work_reply(key, titles.get(key, ""), description)))


# --- MediaWiki (Wikipedia) -------------------------------------------------------------------------


@dataclass
class WikiArticle:
    title: str
    pageid: int
    extract: str
    snippet: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


DEFAULT_WIKI_ARTICLES = [
    WikiArticle(
        "Printing press",
        23976,
        "A printing press is a mechanical device for applying pressure to an inked surface.",
        'A <span class="searchmatch">printing</span> <span class="searchmatch">press</span> is a mechanical device &amp; more',
    ),
    WikiArticle(
        "Johannes Gutenberg",
        15766,
        "Johannes Gensfleisch zur Laden zum Gutenberg was a German inventor and craftsman.",
        'introduced <span class="searchmatch">printing</span> to Europe',
    ),
]


def mediawiki_search_reply(articles: list[WikiArticle]) -> dict[str, Any]:
    """action=query&list=search (formatversion=2)."""
    return {
        "batchcomplete": True,
        "continue": {"sroffset": len(articles), "continue": "-||"},
        "query": {
            "searchinfo": {"totalhits": len(articles)},
            "search": [{"ns": 0, "title": a.title, "pageid": a.pageid, "snippet": a.snippet} for a in articles],
        },
    }


def mediawiki_pages_reply(articles: list[WikiArticle], base_url: str) -> dict[str, Any]:
    """action=query&prop=extracts|info&inprop=url (formatversion=2)."""
    pages = []
    for a in articles:
        url = f"{base_url}/wiki/{quote(a.title.replace(' ', '_'))}"
        pages.append(
            {
                "pageid": a.pageid,
                "ns": 0,
                "title": a.title,
                "extract": a.extract,
                "contentmodel": "wikitext",
                "pagelanguage": "en",
                "touched": "2024-05-01T10:00:00Z",
                "lastrevid": 1220000000 + a.pageid,
                "length": 60000,
                "fullurl": url,
                "editurl": f"{url}?action=edit",
                "canonicalurl": url,
                **a.extra,
            }
        )
    return {"batchcomplete": True, "query": {"pages": pages}}


def wikipedia_handler(articles: list[WikiArticle] | None = None, *, base_url: str) -> Handler:
    """api.php: answers list=search with every article, prop=extracts with the requested ones."""
    articles = DEFAULT_WIKI_ARTICLES if articles is None else articles

    def handler(request: FakeRequest) -> Reply:
        if request.param("list") == "search":
            return Reply(200, mediawiki_search_reply(articles))
        if "extracts" in (request.param("prop") or ""):
            wanted = set((request.param("pageids") or "").split("|"))
            titles = set((request.param("titles") or "").split("|"))
            chosen = [a for a in articles if str(a.pageid) in wanted or a.title in titles]
            return Reply(200, mediawiki_pages_reply(chosen, base_url))
        return Reply(200, {"error": {"code": "badvalue", "info": "Unrecognized request"}})

    return handler


# --- all four at once ------------------------------------------------------------------------------


def install_academic_book_fakes(server: FakeServer) -> dict[str, str]:
    """Register working defaults for arXiv, OpenAlex, Open Library and Wikipedia on `server`;
    returns the Settings field overrides (also valid as RESEARCH_<NAME> environment variables)."""
    server.route(ARXIV_PATH, arxiv_handler())
    server.route(OPENALEX_PATH, lambda _r: Reply(200, openalex_reply(DEFAULT_OPENALEX_WORKS)))
    install_openlibrary(server)
    server.route(WIKIPEDIA_PATH, wikipedia_handler(base_url=server.base_url))
    return {
        "arxiv_url": server.url(ARXIV_PATH),
        "openalex_url": server.url(),
        "openlibrary_url": server.url(),
        "wikipedia_url": server.url(WIKIPEDIA_PATH),
    }
