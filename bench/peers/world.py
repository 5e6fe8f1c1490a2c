"""The search world the desk and the peers share: the shipped sample library behind loopback search
services, each document also a page at a loopback URL (peers that scrape read the same text).

- `POST /search`: Tavily's wire format (results with url, title, content, score and, when asked,
  raw_content), ranked by the library's own bm25 search over every kind.
- `GET /retrieve?query=...`: gpt-researcher's custom retriever format (a JSON list of
  {url, raw_content, title}).
- `GET /pages/<topic>/<slug>`: the document as a small HTML page.

Every topic gets the same documents for the same query, whoever asks; covered topics find their
own documents, uncovered ones find nothing or other subjects' pages, near misses find pages that
share words and not the subject. `searches()` counts what each system asked.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from research.sources.library.library_store import Library
from research.text import best_snippet
from tests.fakes import FakeRequest, FakeServer, Reply

TAVILY_PATH = "/search"
RETRIEVER_PATH = "/retrieve"
PAGES = "/pages/"
MAX_RESULTS = 10
_SAMPLE_PREFIX = "library://sample/"


@dataclass(frozen=True)
class WorldPage:
    url: str
    topic: str  # the sample library's topic slug
    title: str
    text: str


class PeerWorld:
    """`with PeerWorld(scratch) as world:` then `world.tavily_url`, `world.retriever_url`,
    `world.page(url)` (None for a URL the world never served), `world.searches()`."""

    def __init__(self, scratch: Path, *, results_per_query: int = 5) -> None:
        self.results_per_query = results_per_query
        self.server = FakeServer()
        self.library = Library(scratch / "peer-world.sqlite")
        self.library.ensure_sample()
        self._pages: dict[str, WorldPage] = {}
        self._by_library_url: dict[str, WorldPage] = {}

    def __enter__(self) -> PeerWorld:
        server = self.server.start()
        for doc in self.library.list_documents(limit=10_000):
            full = self.library.get_document(doc.id)
            if full is None or not full.url.startswith(_SAMPLE_PREFIX):
                continue
            path = PAGES + full.url.removeprefix(_SAMPLE_PREFIX)
            page = WorldPage(server.url(path), full.topic, full.title, full.text)
            self._pages[page.url] = page
            self._by_library_url[full.url] = page
            server.route(path, _page_reply(page), method="GET")
        server.route(TAVILY_PATH, self._tavily, method="POST")
        server.route(RETRIEVER_PATH, self._retrieve, method="GET")
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        self.library.close()

    # --- what clients are pointed at ----------------------------------------------------------------

    @property
    def tavily_url(self) -> str:
        return self.server.url()

    @property
    def retriever_url(self) -> str:
        return self.server.url(RETRIEVER_PATH)

    def page(self, url: str) -> WorldPage | None:
        return self._pages.get(url.rstrip("/.,;:)]>"))

    @property
    def pages(self) -> dict[str, WorldPage]:
        return dict(self._pages)

    def searches(self) -> dict[str, int]:
        """Requests so far: searches (either API) and page fetches."""
        log = self.server.requests()
        return {
            "searches": sum(r.path in (TAVILY_PATH, RETRIEVER_PATH) for r in log),
            "page_fetches": sum(r.path.startswith(PAGES) for r in log),
        }

    def clear_log(self) -> None:
        self.server.clear_log()

    # --- the services ---------------------------------------------------------------------------------

    def hits(self, query: str, limit: int) -> list[WorldPage]:
        found = self.library.search(query[:400], limit=max(1, min(limit, MAX_RESULTS)))
        return [self._by_library_url[h.url] for h in found if h.url in self._by_library_url]

    def _tavily(self, request: FakeRequest) -> Reply:
        body = request.json() or {}
        if not isinstance(body, dict):
            return Reply(400, {"detail": {"error": "body must be a JSON object"}})
        query = str(body.get("query") or "")
        limit = int(body.get("max_results") or self.results_per_query)
        raw = bool(body.get("include_raw_content"))
        results: list[dict[str, Any]] = []
        for rank, page in enumerate(self.hits(query, limit)):
            result: dict[str, Any] = {
                "url": page.url,
                "title": page.title,
                "content": best_snippet(query, page.text, max_chars=500),
                "score": round(0.95 - rank * 0.05, 3),
            }
            if raw:
                result["raw_content"] = page.text
            results.append(result)
        reply = {"query": query, "answer": None, "images": [], "results": results, "response_time": 0.01}
        return Reply(200, reply)

    def _retrieve(self, request: FakeRequest) -> Reply:
        query = request.param("query") or ""
        hits = self.hits(query, self.results_per_query)
        return Reply(200, [{"url": p.url, "raw_content": p.text, "title": p.title} for p in hits])


def _page_reply(page: WorldPage) -> Reply:
    paragraphs = "".join(f"<p>{html.escape(p)}</p>\n" for p in page.text.split("\n\n") if p.strip())
    title = html.escape(page.title)
    head = f"<!doctype html>\n<html><head><title>{title}</title></head>\n"
    body = f"{head}<body><article><h1>{title}</h1>\n{paragraphs}</article></body></html>"
    return Reply(200, body.encode(), {"Content-Type": "text/html; charset=utf-8"})
