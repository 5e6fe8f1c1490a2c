"""Flat and grouped source shapes, with the field names tools really use, wherever provider or
tool output enters (the router accepts a provider's raw list as well as a Retrieval)."""

from __future__ import annotations

from research.schemas.state_shapes import Source
from research.settings import Settings
from research.sources.provider_base import Retrieval
from research.sources.router import CircuitBreaker, SourceRouter
from research.sources.shapes import MAX_ITEMS, coerce_sources

GROUPED = [
    {
        "source": "GitHub",
        "details": [
            {
                "repo": "langchain-ai/langgraph",
                "url": "https://github.com/langchain-ai/langgraph",
                "stars": 9000,
                "updated": "2024-05-01T10:00:00Z",
            },
            {
                "repo": "pydantic/pydantic",
                "url": "https://github.com/pydantic/pydantic",
                "stars": 21000,
                "updated": "2023-11-02",
            },
        ],
    }
]
FLAT = [
    {
        "title": "LangGraph docs",
        "link": "https://langchain-ai.github.io/langgraph/",
        "content": "Build stateful agents.",
    },
    {"name": "A summary-only record", "href": "https://example.org/s", "summary": "Graphs of agents.", "year": 2022},
    {"headline": "Described", "url": "https://example.org/d", "description": "With a description.", "author": "Ada"},
]


def test_the_grouped_shape_gives_one_source_per_detail() -> None:
    coerced = coerce_sources(GROUPED, kind="web", provider="tool")

    assert [s.title for s in coerced.sources] == ["langchain-ai/langgraph", "pydantic/pydantic"]
    first = coerced.sources[0]
    assert first.url == "https://github.com/langchain-ai/langgraph" and first.provider == "github"
    assert first.year == 2024 and "stars: 9000" in first.snippet and first.kind == "web"
    assert coerced.sources[1].year == 2023 and coerced.skipped == 0


def test_the_flat_shape_with_odd_field_names() -> None:
    coerced = coerce_sources(FLAT, kind="web", provider="tool")

    assert [(s.title, s.url, s.snippet) for s in coerced.sources] == [
        ("LangGraph docs", "https://langchain-ai.github.io/langgraph/", "Build stateful agents."),
        ("A summary-only record", "https://example.org/s", "Graphs of agents."),
        ("Described", "https://example.org/d", "With a description."),
    ]
    assert coerced.sources[1].year == 2022 and coerced.sources[2].authors == ["Ada"]
    assert all(s.provider == "tool" for s in coerced.sources)


def test_envelopes_single_records_and_junk() -> None:
    assert len(coerce_sources({"results": FLAT}, kind="web", provider="t").sources) == 3
    assert len(coerce_sources({"web": FLAT[:1], "academic": FLAT[1:]}, kind="web", provider="t").sources) == 3
    assert len(coerce_sources(FLAT[0], kind="web", provider="t").sources) == 1
    junk = coerce_sources([{"stars": 3}, "text", 7, None, {"title": ""}], kind="web", provider="t")
    assert junk.sources == [] and junk.skipped == 4
    assert coerce_sources(None, kind="web", provider="t").sources == []


def test_a_huge_list_is_bounded() -> None:
    many = [{"title": f"T{i}", "url": f"https://e.example/{i}"} for i in range(MAX_ITEMS * 5)]
    assert len(coerce_sources(many, kind="web", provider="t").sources) == MAX_ITEMS


class RawProvider:
    """A tool-style provider that hands back its raw list instead of a Retrieval."""

    def __init__(self, name: str, reply: object) -> None:
        self.name, self.kind, self.reply = name, "web", reply

    def search(self, query: str, *, limit: int):
        return self.reply


def test_the_router_accepts_both_shapes_from_providers() -> None:
    settings = Settings(_env_file=None, sources="live")
    providers = [RawProvider("repo-tool", GROUPED), RawProvider("web-tool", FLAT + [{"stars": 1}])]
    router = SourceRouter(settings, lambda kind: None, providers=lambda kind, s: providers, breaker=CircuitBreaker())

    result = router.retrieve("web", "agent graphs", 10)

    assert {s.title for s in result.sources} == {
        "langchain-ai/langgraph",
        "pydantic/pydantic",
        "LangGraph docs",
        "A summary-only record",
        "Described",
    }
    assert all(s.query == "agent graphs" for s in result.sources)
    assert set(result.providers_used) == {"repo-tool", "web-tool"}
    assert [w.message for w in result.warnings] == ["skipped 1 unreadable result(s) (no title or url)"]


class DictRetrievalProvider(RawProvider):
    """A provider that fills a Retrieval with the grouped records instead of Sources."""

    def search(self, query: str, *, limit: int):
        return Retrieval(sources=list(self.reply))


def test_a_retrieval_holding_raw_records_is_read_too() -> None:
    settings = Settings(_env_file=None, sources="live")
    providers = [DictRetrievalProvider("repo-tool", GROUPED)]
    router = SourceRouter(settings, lambda kind: None, providers=lambda kind, s: providers, breaker=CircuitBreaker())

    result = router.retrieve("web", "agent graphs", 10)

    assert [s.title for s in result.sources] == ["langchain-ai/langgraph", "pydantic/pydantic"]
    assert all(isinstance(s, Source) for s in result.sources)
