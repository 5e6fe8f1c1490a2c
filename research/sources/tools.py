"""LangChain tools over the source providers, for agent-mode researchers.

Each tool is one provider (or one page fetch, or the local library) with typed pydantic arguments.
A tool answers with a short text for the model and, as its artifact, `ToolFindings` holding the
sources. Searches go through the router's cache, circuit breaker and relevance filter, so their
sources enter the graph exactly as the pipeline's do (the node stamps them, `merge_sources` dedupes).
Faults are results, not exceptions: the model reads what failed and the node raises a warning.
Page fetches use the scraper, whose address guard refuses private and loopback hosts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field, ValidationError, field_validator

from research import prompts
from research.schemas.researchers import ResearcherKind
from research.schemas.source_quality import SourceControls
from research.schemas.state_shapes import DroppedSource, RunWarning, Source
from research.settings import Settings
from research.sources.provider_base import Retrieval, SourceProvider
from research.sources.router import SourceRouter
from research.sources.screening import NO_CONTROLS

log = logging.getLogger("research.sources")

# Provider name -> the tool that calls it (Tavily and DuckDuckGo are the same web search).
SEARCH_PROVIDER_TOOLS: dict[str, str] = {
    "tavily": "search_web",
    "duckduckgo": "search_web",
    "github": "search_github",
    "stackexchange": "search_stackexchange",
    "arxiv": "search_arxiv",
    "openalex": "search_openalex",
    "openlibrary": "search_openlibrary",
    "wikipedia": "search_wikipedia",
}
FETCH_TOOLS: dict[ResearcherKind, str] = {"web": "scrape_page", "academic": "fetch_page"}
LIBRARY_TOOL = "search_library"
MAX_TOOL_RESULTS = 10
RESULT_CHARS = 500  # of each source's text, in what the model reads
TITLE_CHARS = 120


class SearchArgs(BaseModel):
    query: str = Field(min_length=2, max_length=200, description="the search words (2-200 characters)")
    limit: int = Field(5, ge=1, le=MAX_TOOL_RESULTS, description=f"how many results (1-{MAX_TOOL_RESULTS})")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = " ".join(value.split())
        if len(value) < 2:
            raise ValueError("the query needs at least 2 non-space characters")
        return value


class FetchArgs(BaseModel):
    url: str = Field(
        min_length=10,
        max_length=2000,
        pattern=r"^https?://\S+$",
        description="the full http(s) URL of a public page",
    )


@dataclass
class ToolFindings:
    """What one tool call found, for the graph (the model only sees the text)."""

    sources: list[Source] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    warnings: list[RunWarning] = field(default_factory=list)
    off_topic: int = 0
    dropped: list[DroppedSource] = field(default_factory=list)  # off-topic or outside the source controls
    fault: str | None = None  # the service could not answer


def invalid_arguments(tool: str) -> Callable[[ValidationError], str]:
    """The ToolMessage text for arguments that fail the schema: what is wrong, field by field."""

    def explain(exc: ValidationError) -> str:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg'].removeprefix('Value error, ')}"
            for e in exc.errors()
        )
        return prompts.TOOL_INVALID_ARGS.format(tool=tool, problems=problems)

    return explain


def build_tools(
    kind: ResearcherKind,
    router: SourceRouter,
    settings: Settings,
    *,
    topic: str,
    controls: SourceControls = NO_CONTROLS,
) -> list[BaseTool]:
    """The tools of one researcher kind: its live providers (none in library mode), a page fetch
    for web and academic researchers, and the local library for every kind; every one within the
    run's source controls."""
    tools: list[BaseTool] = []
    seen: set[str] = set()
    for provider in router.tool_providers(kind):
        name = SEARCH_PROVIDER_TOOLS.get(provider.name, f"search_{provider.name}")
        if name not in seen:
            seen.add(name)
            tools.append(_search_tool(name, _provider_search(router, provider, topic, controls)))
    if tools and kind in FETCH_TOOLS:
        tools.append(_fetch_tool(FETCH_TOOLS[kind], kind, router, settings, topic, controls))
    tools.append(_search_tool(LIBRARY_TOOL, lambda q, n: router.search_library(kind, q, n, topic, controls)))
    return tools


def _provider_search(
    router: SourceRouter, provider: SourceProvider, topic: str, controls: SourceControls
) -> Callable[[str, int], Retrieval]:
    return lambda query, limit: router.search_provider(provider, query, limit, topic, controls)


def _search_tool(name: str, search: Callable[[str, int], Retrieval]) -> BaseTool:
    def run(query: str, limit: int = 5) -> tuple[str, ToolFindings]:
        try:
            result = search(query, limit)
        except Exception as exc:  # noqa: BLE001 - a broken tool is a tool result, never a crashed run
            log.error("Tool %s crashed: %s", name, type(exc).__name__)
            return _fault(name, f"unexpected error ({type(exc).__name__})")
        findings = ToolFindings(
            sources=result.sources[:limit],
            texts=result.texts,
            warnings=result.warnings,
            off_topic=result.off_topic,
            dropped=result.dropped,
        )
        if not result.providers_used:  # nobody answered: the reason is in the warnings
            findings.fault = "; ".join(w.message for w in result.warnings) or "no answer"
            return prompts.TOOL_FAULT.format(tool=name, reason=findings.fault), findings
        return _describe(name, query, findings), findings

    return StructuredTool.from_function(
        func=run,
        name=name,
        description=prompts.TOOL_DESCRIPTIONS.get(name, name),
        args_schema=SearchArgs,
        response_format="content_and_artifact",
        handle_validation_error=invalid_arguments(name),
    )


def _fetch_tool(
    name: str, kind: ResearcherKind, router: SourceRouter, settings: Settings, topic: str, controls: SourceControls
) -> BaseTool:
    from research.sources.providers.scraper import ScrapeError, fetch_page_text
    from research.sources.providers.url_safety import UnsafeURLError

    def run(url: str) -> tuple[str, ToolFindings]:
        try:
            text = fetch_page_text(url, settings)
        except UnsafeURLError as exc:
            return _fault(name, f"refused {url}: {exc}")
        except ScrapeError as exc:
            return _fault(name, f"could not read {url}: {exc}")
        except Exception as exc:  # noqa: BLE001
            return _fault(name, f"unexpected error ({type(exc).__name__})")
        first_line = next((line.strip() for line in text.splitlines() if line.strip()), url)
        source = Source(
            title=first_line[:TITLE_CHARS], url=url, kind=kind, provider="scraper", snippet=text[:RESULT_CHARS]
        )
        result = router.filter_on_topic(Retrieval(sources=[source], texts={source.id: text}), topic, controls)
        findings = ToolFindings(
            sources=result.sources, texts=result.texts, off_topic=result.off_topic, dropped=result.dropped
        )
        return _describe(name, url, findings), findings

    return StructuredTool.from_function(
        func=run,
        name=name,
        description=prompts.TOOL_DESCRIPTIONS[name],
        args_schema=FetchArgs,
        response_format="content_and_artifact",
        handle_validation_error=invalid_arguments(name),
    )


def _fault(tool: str, reason: str) -> tuple[str, ToolFindings]:
    findings = ToolFindings(fault=reason, warnings=[RunWarning(source=tool, message=reason)])
    return prompts.TOOL_FAULT.format(tool=tool, reason=reason), findings


def _describe(tool: str, query: str, findings: ToolFindings) -> str:
    """The tool result the model reads: the sources as untrusted data blocks."""
    if not findings.sources:
        return prompts.TOOL_NO_RESULTS.format(query=query, tool=tool)
    blocks = [
        prompts.render_source(
            f'n="{i}"',
            kind=s.kind,
            title=s.title,
            url=s.url,
            text=(findings.texts.get(s.id) or s.snippet)[:RESULT_CHARS],
        )
        for i, s in enumerate(findings.sources, 1)
    ]
    return prompts.render_sources(blocks)
