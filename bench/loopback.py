"""The world a benchmark run talks to: a loopback OpenAI-compatible model and loopback search
services (Tavily, arXiv, OpenAlex, Open Library, Wikipedia), each with a fixed latency per
request, driven through the engine's real providers and clients.

Replies are generated per query (distinct ids and URLs, so deduplication behaves as with real
services) with realistic text sizes (abstracts ~1.2 KB, pages ~4 KB), so token counts reflect
what the prompts' truncation limits let through rather than tiny fixtures.
"""

from __future__ import annotations

import hashlib
import json
import re
import socketserver
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from research.events import Event
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.sources.library.library_store import LibraryProvider
from research.sources.router import CircuitBreaker, SourceRouter
from tests.fakes import FakeServer, Reply, lift_rate_limits
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_model import ScriptedModel
from tests.fakes.service_fakes import (
    ARXIV_PATH,
    OPENALEX_PATH,
    OPENLIBRARY_SEARCH_PATH,
    WIKIPEDIA_PATH,
    WikiArticle,
    mediawiki_pages_reply,
    mediawiki_search_reply,
    openalex_reply,
    openalex_work,
    openlibrary_doc,
    openlibrary_search_reply,
    openlibrary_work_reply,
)

TAVILY_PATH = "/search"
# Dependent requests in one search by each provider (the critical path inside a retrieve):
# Open Library and Wikipedia need the search's hits before fetching descriptions / intros;
# the others answer in one request. Every request costs the search latency.
PROVIDER_REQUEST_DEPTH = {"tavily": 1, "arxiv": 1, "openalex": 1, "openlibrary": 2, "wikipedia": 2, "library": 0}
BENCH_PROVIDERS = ("tavily", "arxiv", "openalex", "openlibrary", "wikipedia")
MODEL_SLOTS: int = Settings.model_fields["llm_concurrency"].default  # the desk's default model slots

_WORDS = [
    "evidence",
    "study",
    "method",
    "result",
    "effect",
    "analysis",
    "review",
    "trial",
    "cohort",
    "design",
    "measure",
    "model",
    "sample",
    "history",
    "context",
    "policy",
    "practice",
    "outcome",
    "signal",
    "risk",
    "benefit",
    "cost",
    "adoption",
    "mechanism",
    "process",
    "structure",
    "response",
    "data",
    "source",
    "archive",
    "survey",
    "comparison",
    "trend",
    "network",
    "market",
    "system",
    "theory",
]


def _digest(*parts: object) -> str:
    return hashlib.sha1("|".join(map(str, parts)).encode()).hexdigest()


def filler_text(query: str, index: int, chars: int) -> str:
    """Deterministic prose about `query`, about `chars` long (varied words, so it tokenises like text)."""
    seed = int(_digest(query, index)[:8], 16)
    sentences: list[str] = []
    size = 0
    n = 0
    while size < chars:
        words = [_WORDS[(seed + n * 7 + k * 13) % len(_WORDS)] for k in range(12)]
        sentence = f"On {query}, the {words[0]} {words[1]} shows {' '.join(words[2:12])} ({index}.{n})."
        sentences.append(sentence)
        size += len(sentence) + 1
        n += 1
    return " ".join(sentences)[:chars]


# --- per-service generated replies -----------------------------------------------------------------


def _tavily(request, limit_default: int = 5) -> Reply:
    body = request.json() or {}
    query = str(body.get("query", ""))
    limit = int(body.get("max_results") or limit_default)
    results = [
        {
            "url": f"https://web{i}.example.org/{_digest(query, i)[:12]}",
            "title": f"{query} - web report {i + 1}",
            "content": filler_text(query, i, 300),
            "score": round(0.9 - i * 0.05, 3),
            "raw_content": filler_text(query, i + 100, 4000),
        }
        for i in range(limit)
    ]
    return Reply(200, {"query": query, "answer": None, "images": [], "results": results, "response_time": 0.3})


def _arxiv_entry(query: str, i: int) -> str:
    arxiv_id = f"{2000 + i}.{int(_digest(query, i)[:6], 16) % 100000:05d}v1"
    return f"""  <entry>
    <id>http://arxiv.org/abs/{arxiv_id}</id>
    <updated>2021-03-09T17:41:07Z</updated>
    <published>2021-03-02T09:15:22Z</published>
    <title>{escape(query)}: a study, part {i + 1}</title>
    <summary>{escape(filler_text(query, i + 200, 1200))}</summary>
    <author><name>Author {i} A</name></author>
    <author><name>Author {i} B</name></author>
    <link href="http://arxiv.org/abs/{arxiv_id}" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/{arxiv_id}" rel="related" type="application/pdf"/>
    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" term="cs.CY"
        scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.CY" scheme="http://arxiv.org/schemas/atom"/>
  </entry>"""


def _arxiv(request) -> Reply:
    raw = request.param("search_query") or ""
    query = raw.split(":", 1)[-1]
    limit = int(request.param("max_results") or 5)
    entries = "\n".join(_arxiv_entry(query, i) for i in range(limit))
    feed = f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title type="html">ArXiv Query</title>
  <id>http://arxiv.org/api/bench</id>
  <updated>2024-05-14T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{limit}</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">0</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{limit}</opensearch:itemsPerPage>
{entries}
</feed>"""
    return Reply(200, feed.encode(), {"Content-Type": "application/atom+xml; charset=utf-8"})


def _openalex(request) -> Reply:
    query = request.param("search") or ""
    limit = int(request.param("per-page") or 5)
    works = [
        openalex_work(
            f"{query}: evidence {i + 1}",
            work_id=f"W{int(_digest(query, i)[:8], 16)}",
            doi=f"10.5555/{_digest(query, i)[:10]}",
            year=2015 + i,
            abstract=filler_text(query, i + 300, 1200),
        )
        for i in range(limit)
    ]
    return Reply(200, openalex_reply(works))


def _wikipedia(base_url: str):
    def handler(request) -> Reply:
        if request.param("list") == "search":
            query = request.param("srsearch") or ""
            limit = int(request.param("srlimit") or 5)
            articles = [
                WikiArticle(f"{query} ({i + 1})", int(_digest(query, i)[:7], 16), "", snippet=query)
                for i in range(limit)
            ]
            return Reply(200, mediawiki_search_reply(articles))
        ids = [int(p) for p in (request.param("pageids") or "").split("|") if p]
        articles = [WikiArticle(f"Article {pid}", pid, filler_text(str(pid), 400, 1500)) for pid in ids]
        return Reply(200, mediawiki_pages_reply(articles, base_url))

    return handler


def _openlibrary(server: FakeServer, latency: float):
    def handler(request) -> Reply:
        query = request.param("q") or ""
        limit = int(request.param("limit") or 5)
        docs = []
        for i in range(limit):
            key = f"/works/OL{int(_digest(query, i)[:7], 16)}W"
            title = f"{query}: a handbook, volume {i + 1}"
            docs.append(openlibrary_doc(title, key=key, year=1990 + i))
            description = filler_text(query, i + 500, 800)
            server.route(f"{key}.json", _delayed(Reply(200, openlibrary_work_reply(key, title, description)), latency))
        return Reply(200, openlibrary_search_reply(docs, query))

    return handler


def _delayed(reply: Reply, latency: float) -> Reply:
    return Reply(reply.status, reply.body, reply.headers, delay=latency)


def _slow(handler, latency: float):
    def wrapped(request) -> Reply:
        reply = handler(request)
        return _delayed(reply, latency)

    return wrapped


class SearchFakes:
    """All five search services on one loopback server, each request answered after `latency` s."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.server = FakeServer()

    def __enter__(self) -> SearchFakes:
        server = self.server.start()
        server.route(TAVILY_PATH, _slow(_tavily, self.latency), method="POST")
        server.route(ARXIV_PATH, _slow(_arxiv, self.latency))
        server.route(OPENALEX_PATH, _slow(_openalex, self.latency))
        server.route(OPENLIBRARY_SEARCH_PATH, _slow(_openlibrary(server, self.latency), self.latency))
        server.route(WIKIPEDIA_PATH, _slow(_wikipedia(server.base_url), self.latency))
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def settings_overrides(self) -> dict[str, Any]:
        s = self.server
        return {
            "tavily_url": s.url(),
            "tavily_api_key": "tvly-bench-key",
            "arxiv_url": s.url(ARXIV_PATH),
            "openalex_url": s.url(),
            "openlibrary_url": s.url(),
            "wikipedia_url": s.url(WIKIPEDIA_PATH),
        }


class RotatingGapsModel(ScriptedModel):
    """The scripted model, but each review names a different question as the gap, so a run that is
    never approved uses every round it is allowed (the loop guard ends a run whose gaps repeat)."""

    def verdict(self, system: str, user: str) -> dict[str, Any]:
        verdict = super().verdict(system, user)
        if verdict["status"] == "APPROVED":
            return verdict
        questions = [c["question"] for c in verdict["coverage"]]
        match = re.search(r"review round (\d+)", system)
        review = int(match.group(1)) if match else 1
        if questions:
            gap = questions[(review - 1) % len(questions)]
            verdict.update(
                critique=[f"Thin evidence on: {gap}"],
                missing_topics=[gap],
                recommended_queries=[gap.rstrip("?") + " evidence"],
            )
        return verdict


# --- one run against the loopback world --------------------------------------------------------------


@dataclass
class LoopbackRun:
    """What one run cost and how it unfolded (its own event log)."""

    wall_seconds: float
    status: str
    events: list[Event]
    calls: int
    prompt_tokens: int
    completion_tokens: int
    search_requests: int
    # TCP connections the run opened to the model and to the search services: a client that reuses
    # its connections opens few (against a hosted API each new one costs a TLS handshake).
    model_connections: int = 0
    search_connections: int = 0
    started_at: float = 0.0  # time.time() around runner.run, the clock events are stamped with
    ended_at: float = 0.0
    # The process's CPU clock (time.process_time: every thread, the in-process fakes' included) at
    # the run's start, as each event reached the runner's callback, and at its end: CPU by phase
    # (bench/phases.py `phase_cpu`), which a loaded machine inflates far less than wall time.
    cpu_started: float = 0.0
    cpu_at: list[float] = field(default_factory=list)
    cpu_ended: float = 0.0

    def as_cost(self) -> dict[str, int]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@dataclass
class LoopbackWorld:
    """`with LoopbackWorld(data_dir, log_dir, model_latency=0.2, search_latency=0.3) as world:
    world.run("111")` — the LLM brain against the fake model, live providers against the fakes."""

    data_dir: Path
    log_dir: Path
    model_latency: float = 0.2
    search_latency: float = 0.3
    approve_from_round: int = 2
    _model: FakeOpenAIServer | None = field(default=None, init=False)
    _search: SearchFakes | None = field(default=None, init=False)
    _runners: dict[int, ResearchRunner] = field(default_factory=dict, init=False)
    _router: SourceRouter | None = field(default=None, init=False)
    _nagle: bool = field(default=False, init=False)
    _backlog: int = field(default=5, init=False)

    def __enter__(self) -> LoopbackWorld:
        # The fakes write headers and body separately; with Nagle's algorithm on, the body then
        # waits for the client's delayed ACK (~40 ms per reply), a stall no real server adds.
        self._nagle = socketserver.StreamRequestHandler.disable_nagle_algorithm
        socketserver.StreamRequestHandler.disable_nagle_algorithm = True
        # socketserver's listen backlog is 5: a burst of new connections (nine researchers' searches)
        # overflows it and the dropped SYNs are retried after 1 s. Real servers queue far more.
        self._backlog = socketserver.TCPServer.request_queue_size
        socketserver.TCPServer.request_queue_size = 256
        # The real per-provider limits (arXiv: one request per 3 s) would measure politeness, not
        # the engine; a high concurrency keeps the limiter from ever being the bottleneck.
        lift_rate_limits(*BENCH_PROVIDERS, concurrency=64)
        self._model = FakeOpenAIServer(
            RotatingGapsModel(approve_from_round=self.approve_from_round), latency=self.model_latency
        ).start()
        self._search = SearchFakes(self.search_latency).__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        for runner in self._runners.values():
            runner.library.close()
        if self._search:
            self._search.__exit__()
        if self._model:
            self._model.stop()
        socketserver.StreamRequestHandler.disable_nagle_algorithm = self._nagle
        socketserver.TCPServer.request_queue_size = self._backlog

    def script_model(self, *, approve_from_round: int) -> None:
        """Change when the scripted analyst approves (review rounds count from 1)."""
        assert self._model
        self.approve_from_round = approve_from_round
        self._model.responder = RotatingGapsModel(approve_from_round=approve_from_round)

    def wrap_model(self, wrap) -> None:
        """Put `wrap(current responder)` in front of the model (e.g. a tool-calling agent script)."""
        assert self._model
        self._model.responder = wrap(self._model.responder)

    def settings(self, max_researchers: int = 3) -> Settings:
        assert self._model and self._search
        return Settings(
            _env_file=None,
            data_dir=self.data_dir,
            log_dir=self.log_dir,
            llm="openai",
            sources="live",
            openai_base_url=self._model.base_url,
            openai_api_key="sk-bench-key",
            model="bench-model",
            max_researchers=max_researchers,
            # The fake answers any number of calls at once, as a hosted API does. With the default
            # 8 slots the ninth researcher of 333 would queue its first call behind the others
            # (0.2 s on the critical path when it is a book researcher): that measures the cap.
            llm_concurrency=max(MODEL_SLOTS, max_researchers),
            http_timeout=10,
            llm_timeout=30,
            **self._search.settings_overrides(),
        )

    def runner(self, max_researchers: int) -> ResearchRunner:
        if max_researchers not in self._runners:
            settings = self.settings(max_researchers)
            runner = ResearchRunner(settings)
            if self._router is None:
                # The world's own circuit breaker: a provider that failed in another test or bench
                # of this process must not be skipped here.
                self._router = SourceRouter(
                    settings, lambda kind: LibraryProvider(runner.library, kind), breaker=CircuitBreaker()
                )
            # One router for every runner, as the dashboard has one for every run: what it learns
            # (how long each kind's searches take) carries over from run to run.
            runner.sources = self._router
            self._runners[max_researchers] = runner
        return self._runners[max_researchers]

    def run(
        self,
        allocation: str | None,
        *,
        max_iterations: int = 1,
        max_researchers: int = 3,
        topic: str = "How do heat pumps work?",
        search_cache: bool = True,
        researcher_mode: str | None = None,
    ) -> LoopbackRun:
        """One run. `search_cache=False` sends every request, even one another researcher of the
        run is already sending (the cache is on by default, so figures measure it on)."""
        assert self._model and self._search
        runner = self.runner(max_researchers)
        # Answers kept from an earlier run would make this one faster than its own requests allow.
        runner.sources.cache.clear()
        runner.sources.cache.seconds = runner.settings.search_cache_seconds if search_cache else 0
        self._model.reset()
        self._search.server.clear_log()
        events: list[Event] = []
        cpu_at: list[float] = []

        def on_event(event: Event) -> None:
            cpu_at.append(time.process_time())
            events.append(event)

        request = ResearchRequest(
            topic=topic,
            allocation=allocation,
            max_iterations=max_iterations,
            researcher_mode=researcher_mode,
        )
        connections = self._model.connections, self._search.server.connections
        started_at, start, cpu_started = time.time(), time.perf_counter(), time.process_time()
        run_id = runner.run(request, on_event=on_event)
        wall = time.perf_counter() - start
        ended_at, cpu_ended = time.time(), time.process_time()
        record = runner.store.get_run(run_id)
        stats = self._model.stats
        return LoopbackRun(
            wall_seconds=wall,
            status=record.status if record else "unknown",
            events=events,
            calls=stats.calls,
            prompt_tokens=stats.prompt_tokens,
            completion_tokens=stats.completion_tokens,
            search_requests=len(self._search.server.requests()),
            model_connections=self._model.connections - connections[0],
            search_connections=self._search.server.connections - connections[1],
            started_at=started_at,
            ended_at=ended_at,
            cpu_started=cpu_started,
            cpu_at=cpu_at,
            cpu_ended=cpu_ended,
        )


def warnings_of(run: LoopbackRun) -> list[str]:
    return [f"{e.data.source}: {e.data.message}" for e in run.events if e.type == "warning"]


def dump_events(run: LoopbackRun, path: Path) -> None:
    """For investigating a figure: the run's events as JSON lines."""
    path.write_text("\n".join(json.dumps(e.model_dump(), default=str) for e in run.events))
