"""The scripted-fake setting's peer model through the real OpenAI SDK (the shapes open_deep_research
and gpt-researcher send), and the peers table rendered from rows."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from bench.peers import report
from bench.peers.scripted import PeerScriptedModel
from tests.fakes.openai_server import FakeOpenAIServer

TOPIC = "How do mRNA vaccines work?"
BRIEF = {"type": "object", "properties": {"research_brief": {"type": "string"}}, "required": ["research_brief"]}
SUMMARY = {"type": "object", "properties": {"summary": {"type": "string"}, "key_excerpts": {"type": "string"}}}


def _tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object",
            "properties": properties or {}}}}  # fmt: skip


@pytest.fixture
def chat() -> Iterator[tuple[openai.OpenAI, PeerScriptedModel]]:
    script = PeerScriptedModel()
    script.topic = TOPIC
    with FakeOpenAIServer(script) as server:
        yield openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0), script


def _ask(client: openai.OpenAI, messages: list[dict[str, Any]], **extra: Any) -> Any:
    return client.chat.completions.create(model="m", messages=messages, **extra).choices[0].message


def test_structured_calls_get_objects_of_their_schema(chat) -> None:
    client, _ = chat
    brief = _ask(client, [{"role": "user", "content": TOPIC}], response_format={"type": "json_schema",
                 "json_schema": {"name": "ResearchQuestion", "schema": BRIEF}})  # fmt: skip
    assert json.loads(brief.content) == {"research_brief": TOPIC}
    page = "<webpage_content>\nMessenger RNA vaccines deliver instructions that cells read to make a protein.\n"
    summary = _ask(client, [{"role": "user", "content": page + "</webpage_content>"}],
                   response_format={"type": "json_object", "schema": SUMMARY})  # fmt: skip
    assert json.loads(summary.content)["summary"].startswith("Messenger RNA vaccines deliver instructions")


def test_tools_are_used_once_then_the_done_tool(chat) -> None:
    client, _ = chat
    lead = [_tool("ConductResearch", {"research_topic": {"type": "string"}}), _tool("ResearchComplete")]
    first = _ask(client, [{"role": "user", "content": TOPIC}], tools=lead).tool_calls[0]
    assert (first.function.name, json.loads(first.function.arguments)) == ("ConductResearch", {"research_topic": TOPIC})
    tools = [_tool("ResearchComplete"), _tool("tavily_search", {"queries": {"type": "array"}})]
    search = _ask(client, [{"role": "user", "content": TOPIC}], tools=tools).tool_calls[0]
    assert search.function.name == "tavily_search"  # not ResearchComplete, whose name holds "search"
    assert json.loads(search.function.arguments) == {"queries": [TOPIC, f"{TOPIC} evidence"]}
    after = [
        {"role": "user", "content": TOPIC},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "tavily_search", "arguments": "{}"}}],
        },  # fmt: skip
        {"role": "tool", "tool_call_id": "c1", "content": "Search results"},
    ]
    assert _ask(client, after, tools=tools).tool_calls[0].function.name == "ResearchComplete"


def test_free_text_gets_queries_or_a_cited_report_and_desk_prompts_the_desks_script(chat) -> None:
    client, _ = chat
    queries = _ask(client, [{"role": "user", "content": "Write 2 queries. You must respond with a list of strings."}])
    assert json.loads(queries.content) == [TOPIC, f"{TOPIC} evidence"]
    context = (
        "Source: http://127.0.0.1:1/pages/a\nContent: Lipid nanoparticles carry the fragile mRNA into cells "
        "where ribosomes read it and make the spike protein. More text follows here.\n"
    )
    written = _ask(client, [{"role": "user", "content": f'Information: "{context}" Write a report.'}]).content
    assert "Lipid nanoparticles carry the fragile mRNA into cells where ribosomes read it addresses" in written
    assert "[1] http://127.0.0.1:1/pages/a - Lipid nanoparticles" in written
    plan = _ask(client, [{"role": "user", "content": f"<topic>{TOPIC}</topic>"}], response_format={
        "type": "json_schema", "json_schema": {"name": "SupervisorDecision", "schema": {"type": "object"}}})  # fmt: skip
    assert json.loads(plan.content)["action"] == "conduct_research"  # the desk's own script


def _row(setting: str, system: str, group: str, **values: Any) -> dict[str, Any]:
    row = dict(setting=setting, system=system, topic=f"a {group} topic", group=group, finished=True, seconds=2.0,
               requests=4, failed_requests=0, prompt_tokens=1000, completion_tokens=100, searches=2,
               sources_cited=3, invented_citations=0, off_subject_citations=0, cited_sentences=4,
               supported_sentences=3, cites_nothing=False, report_words=200, error=None, request_errors=[],
               measured_at="2026-12-01 23:00 UTC")  # fmt: skip
    return {**row, **values}


def test_the_table_has_a_row_per_model_and_system_and_names_each_failure(tmp_path: Path) -> None:
    rows = [
        _row("scripted", "desk", "covered"),
        _row(
            "scripted",
            "desk",
            "near-miss",
            sources_cited=0,
            cited_sentences=0,
            supported_sentences=0,
            cites_nothing=True,
        ),  # fmt: skip
        _row(
            "smollm2",
            "open_deep_research",
            "covered",
            finished=False,
            failed_requests=2,
            error="no final report",
            request_errors=["HTTP 400: context length exceeded"],
        ),  # fmt: skip
    ]
    doc = {"peers": rows, "peers_details": {"versions": {"open_deep_research": "0.0.16"}}, "machine": {"cores": 2}}
    text = report.section(doc)
    assert (
        "| scripted fake | desk | 2 of 2 | 2.0 (2.0-2.0) | 4 (0) | 1,000 / 100 | 2 | 3 | 0 | 0 | 0.75 (4) | 1 of 1 |"
        in text
    )
    assert "| 0.75 (4) | 1 of 1 | – | 3 of 3 | 200 |" in text  # says-so not read on these rows; all resolve
    assert "| SmolLM2-135M (llama-cpp) | open_deep_research | 0 of 1 |" in text
    assert "- SmolLM2-135M (llama-cpp), open_deep_research: no final report (1 of the runs)" in text
    assert "HTTP 400: context length exceeded" in text
    readme = tmp_path / "README.md"
    readme.write_text(f"# Intro\n\n{report.START}\nold\n{report.END}\n\n## Next\n")
    report.update_readme(doc, readme)
    assert "old" not in readme.read_text() and readme.read_text().endswith(f"{report.END}\n\n## Next\n")
    results = tmp_path / "results.json"
    results.write_text(json.dumps(doc))
    later: dict[str, Any] = {"machine": {}}
    report.keep_last(later, results)  # a bench run without peers keeps the last peers figures
    assert later["peers"] == rows
