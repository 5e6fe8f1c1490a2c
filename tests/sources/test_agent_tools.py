"""The agent tools over the real providers (against loopback fakes in their wire formats): typed
arguments, the same normalisation and relevance filter as the pipeline, faults as results."""

from __future__ import annotations

import pytest
from langchain_core.messages import ToolMessage

from research.settings import Settings
from research.sources.library.library_store import Library, LibraryProvider
from research.sources.router import CircuitBreaker, SourceRouter
from research.sources.tools import ToolFindings, build_tools
from tests.fakes import FakeServer, Reply, lift_rate_limits
from tests.fakes.service_fakes import ARXIV_PATH, install_academic_book_fakes

TOPIC = "printing press"


@pytest.fixture
def server():
    with FakeServer() as s:
        yield s


@pytest.fixture(autouse=True)
def _unthrottled():
    lift_rate_limits()
    yield
    lift_rate_limits()


def _router(tmp_path, server, sources: str = "live") -> SourceRouter:
    settings = Settings(
        _env_file=None,
        **install_academic_book_fakes(server),
        http_timeout=0.5,
        sources=sources,
        search_cache_seconds=0,
        data_dir=tmp_path,
    )
    library = Library(tmp_path / "library.sqlite")
    library.ensure_sample()
    return SourceRouter(settings, lambda kind: LibraryProvider(library, kind), breaker=CircuitBreaker())


def _tools(router: SourceRouter, kind="academic"):
    return {t.name: t for t in build_tools(kind, router, router.settings, topic=TOPIC)}


def _call(tool, args, call_id="call_1") -> ToolMessage:
    return tool.invoke({"name": tool.name, "args": args, "id": call_id, "type": "tool_call"})


def test_each_kind_gets_its_tools(tmp_path, server):
    router = _router(tmp_path, server, sources="auto")
    assert list(_tools(router, "academic")) == ["search_arxiv", "search_openalex", "fetch_page", "search_library"]
    assert list(_tools(router, "book")) == ["search_openlibrary", "search_wikipedia", "search_library"]
    assert list(_tools(router, "web")) == ["search_web", "scrape_page", "search_library"]  # DuckDuckGo: no key
    assert list(_tools(_router(tmp_path, server, sources="library"), "web")) == ["search_library"]
    schema = _tools(router)["search_arxiv"].tool_call_schema.model_json_schema()
    assert schema["required"] == ["query"] and schema["properties"]["limit"]["maximum"] == 10


def test_search_results_are_normalised_sources_about_the_topic(tmp_path, server):
    tools = _tools(_router(tmp_path, server))
    message = _call(tools["search_arxiv"], {"query": "printing press", "limit": 2})
    findings = message.artifact
    assert isinstance(findings, ToolFindings) and findings.fault is None
    # The fixture's second paper does not name the subject: dropped by the pipeline's relevance filter.
    assert [s.title for s in findings.sources] == [
        "Diffusion of the Printing Press and Urban Growth in Early Modern Europe"
    ]
    assert findings.off_topic == 1
    assert all(s.relevance == 1.0 and s.kind == "academic" and s.provider == "arxiv" for s in findings.sources)
    assert findings.texts[findings.sources[0].id]  # the abstract, for the source store
    # What the model reads: the sources as delimited, untrusted data.
    assert message.content.startswith("<<<SOURCES>>>") and findings.sources[0].title in message.content


def test_invalid_arguments_get_an_explanation(tmp_path, server):
    tool = _tools(_router(tmp_path, server))["search_arxiv"]
    message = _call(tool, {"query": " ", "limit": 50})
    assert message.status == "error" and message.tool_call_id == "call_1" and message.artifact is None
    assert message.content.startswith("Invalid arguments for search_arxiv: query: ")
    assert "limit: Input should be less than or equal to 10" in message.content
    assert not server.requests(ARXIV_PATH)  # nothing was sent


def test_a_provider_fault_is_a_result_that_says_so(tmp_path, server):
    router = _router(tmp_path, server)
    server.route(ARXIV_PATH, Reply(503, b"down"))
    message = _call(_tools(router)["search_arxiv"], {"query": "printing press"})
    assert message.artifact.fault and "503" in message.artifact.fault
    assert message.content.startswith("Tool search_arxiv failed: ") and "search_library always works" in message.content
    assert message.artifact.warnings  # the node turns these into warning events
    library = _call(_tools(router)["search_library"], {"query": "impressionism"}).artifact
    assert library.fault is None


def test_page_fetch_refuses_private_addresses(tmp_path, server):
    tool = _tools(_router(tmp_path, server))["fetch_page"]
    message = _call(tool, {"url": f"{server.base_url}/secret"})
    assert message.artifact.fault.startswith(f"refused {server.base_url}/secret")
    assert not server.requests("/secret")
    bad = _call(tool, {"url": "file:///etc/passwd"})
    assert bad.status == "error" and "url: String should match pattern" in bad.content
