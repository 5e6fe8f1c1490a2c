"""Every live service of a run on one loopback FakeServer: Tavily, two article pages for the
scraper, arXiv, OpenAlex, Open Library and Wikipedia, answering with `replies`.

    with FakeServer() as server:
        services = ServiceFakes(server)
        settings = Settings(**services.settings_fields(), ...)   # in-process runs
        env = services.environ()                                  # RESEARCH_*_URL for a subprocess
        services.break_provider("arxiv", "500")                   # a fault mode, for every call

Tavily's results point at the fake's own HTML pages with no `raw_content`, so the scraper has to
fetch them (which needs RESEARCH_ALLOW_PRIVATE_URLS=1: the pages are on 127.0.0.1).
"""

from __future__ import annotations

from tests.fakes.http_server import FakeRequest, FakeServer, Handler, Reply, json_reply, slow, text_reply
from tests.fakes.service_fakes import (
    ARXIV_PATH,
    ATOM_TYPE,
    OPENALEX_PATH,
    OPENLIBRARY_SEARCH_PATH,
    WIKIPEDIA_PATH,
    install_openlibrary,
    openalex_reply,
    wikipedia_handler,
)
from tests.integration.replies import (
    ARXIV_ENTRIES,
    MALFORMED,
    OPENALEX_WORKS,
    OPENLIBRARY_DESCRIPTIONS,
    OPENLIBRARY_DOCS,
    PAGES,
    WIKI_ARTICLES,
    arxiv_feed,
    empty_reply,
    page_html,
    tavily_reply,
)

TAVILY_PATH = "/search"
# name -> (path, method) of the request that a fault breaks; the one request every search starts with.
PROVIDER_ROUTES: dict[str, tuple[str, str | None]] = {
    "tavily": (TAVILY_PATH, "POST"),
    "arxiv": (ARXIV_PATH, None),
    "openalex": (OPENALEX_PATH, None),
    "openlibrary": (OPENLIBRARY_SEARCH_PATH, None),
    "wikipedia": (WIKIPEDIA_PATH, None),
}
LIVE_PROVIDERS = tuple(PROVIDER_ROUTES)
PROVIDER_KINDS = {
    "tavily": "web",
    "arxiv": "academic",
    "openalex": "academic",
    "openlibrary": "book",
    "wikipedia": "book",
}
FAULT_MODES = ("500", "429", "timeout", "malformed", "empty")
RETRY_AFTER_SECONDS = 1.0
HANG_SECONDS = 5.0  # far beyond the tests' HTTP timeout: a hang


def install_on_topic_services(server: FakeServer) -> dict[str, str]:
    """arXiv, OpenAlex, Open Library and Wikipedia answering about mRNA vaccines; the Settings
    field overrides pointing the providers at them."""
    server.route(ARXIV_PATH, text_reply(arxiv_feed(ARXIV_ENTRIES), ATOM_TYPE))
    server.route(OPENALEX_PATH, json_reply(openalex_reply(OPENALEX_WORKS)))
    install_openlibrary(server, OPENLIBRARY_DOCS, OPENLIBRARY_DESCRIPTIONS)
    server.route(WIKIPEDIA_PATH, wikipedia_handler(WIKI_ARTICLES, base_url=server.base_url))
    return {
        "arxiv_url": server.url(ARXIV_PATH),
        "openalex_url": server.url(),
        "openlibrary_url": server.url(),
        "wikipedia_url": server.url(WIKIPEDIA_PATH),
    }


class ServiceFakes:
    def __init__(self, server: FakeServer) -> None:
        self.server = server
        self._fields = install_on_topic_services(server)
        server.route(TAVILY_PATH, self._tavily, method="POST")
        for path, (title, text) in PAGES.items():
            server.route(path, text_reply(page_html(title, text), "text/html; charset=utf-8"))

    def _tavily(self, request: FakeRequest) -> Reply:
        return Reply(200, tavily_reply(self.server, str(request.json().get("query"))))

    def settings_fields(self) -> dict[str, str]:
        """Settings field overrides pointing every provider at the fake."""
        return {**self._fields, "tavily_url": self.server.url()}

    def environ(self) -> dict[str, str]:
        """The same, as the documented environment variables."""
        return {f"RESEARCH_{name.upper()}": value for name, value in self.settings_fields().items()}

    def requests_of(self, name: str) -> list[FakeRequest]:
        path, method = PROVIDER_ROUTES[name]
        return [r for r in self.server.requests(path) if method is None or r.method == method]

    def page_requests(self) -> list[FakeRequest]:
        return [r for path in PAGES for r in self.server.requests(path)]

    def break_provider(self, name: str, mode: str) -> None:
        """Make every call to `name` fail in `mode` (see FAULT_MODES)."""
        path, method = PROVIDER_ROUTES[name]
        self.server.route(path, fault_handler(name, mode), method=method)

    def break_all(self, mode: str) -> None:
        for name in LIVE_PROVIDERS:
            self.break_provider(name, mode)


def fault_handler(name: str, mode: str) -> Handler:
    if mode == "500":
        return json_reply({"error": "internal error"}, status=500)
    if mode == "429":
        return json_reply({"error": "rate limited"}, status=429, headers={"Retry-After": f"{RETRY_AFTER_SECONDS:g}"})
    if mode == "timeout":
        return slow(json_reply({"results": []}), HANG_SECONDS)
    if mode == "malformed":
        reply = MALFORMED[name]
        return lambda _request: reply
    if mode == "empty":
        reply = empty_reply(name)
        return lambda _request: reply
    raise ValueError(f"unknown fault mode {mode!r}")
