"""The pieces that let the graph run anywhere, without a server: the events adapter reading
langgraph-sdk stream parts, the JSON run spec, services built from it, page text in a LangGraph
store, and the schemas a server generates from the graph."""

from __future__ import annotations

import json

from langgraph.store.memory import InMemoryStore
from langgraph_sdk.schema import StreamPart
from pydantic import TypeAdapter

from research.events import EventAdapter
from research.graph.builder import build_graph, make_graph
from research.graph.context import RunSpec, spec_for
from research.graph.services import RunEnv, ServiceRegistry, services_of
from research.runs.remote import thread_id_of
from research.settings import Settings
from research.sources.store_texts import LangGraphTextStore


def _events(parts):
    adapter = EventAdapter("r1")
    return adapter, [e for p in parts for e in adapter.adapt(p)]


def test_the_adapter_reads_sdk_stream_parts():
    custom = {"research_event": "phase", "researcher_id": None, "iteration": 0, "data": {"phase": "supervisor"}}
    nested = {
        "research_event": "queries_generated",
        "researcher_id": "web-1",
        "iteration": 0,
        "data": {"queries": ["q"]},
    }
    message = {"type": "ai", "name": "Supervisor", "content": "Supervisor Directive: go."}
    adapter, events = _events(
        [
            StreamPart("metadata", {"run_id": "srv-1", "attempt": 1}, "1-0"),
            StreamPart("custom", custom, "2-0"),
            StreamPart("custom|researcher:abc|retrieve:def", nested, "3-0"),
            StreamPart("updates", {"supervisor": {"messages": [message]}}, "4-0"),
            StreamPart(
                "updates|researcher:abc",
                {"write_notes": {"messages": [{"type": "ai", "name": "web-1", "content": "x"}]}},
            ),
            StreamPart("updates", {"__interrupt__": [{"value": {"allocation_notation": "210"}, "id": "i1"}]}),
            StreamPart("error", {"error": "ValueError", "message": "boom"}),
        ]
    )
    assert adapter.remote_run_id == "srv-1"
    assert [e.type for e in events] == ["phase", "queries_generated", "message", "plan_review_requested", "run_failed"]
    assert events[1].researcher_id == "web-1" and events[1].data.model_dump() == {"queries": ["q"]}
    assert events[2].data.model_dump() == {"name": "Supervisor", "role": "ai", "content": "Supervisor Directive: go."}
    assert events[3].data.allocation_notation == "210"
    assert events[4].data.model_dump() == {"error": "ValueError: boom"}
    assert [e.seq for e in events] == [1, 2, 3, 4, 5]


def test_the_adapter_reads_an_in_process_interrupt():
    from langgraph.types import Interrupt

    _, events = _events(
        [{"type": "updates", "ns": (), "data": {"__interrupt__": (Interrupt(value={"a": 1}, id="x"),)}}]
    )
    assert [(e.type, e.data.a) for e in events] == [("plan_review_requested", 1)]


def test_the_run_spec_is_json_and_only_explicit_settings_travel_remotely(monkeypatch):
    settings = Settings(model="m-1", sources="library")
    spec = spec_for("r1", settings, "offline")
    assert json.loads(json.dumps(spec)) == spec and spec["brain"] == "offline" and spec["results_per_query"] == 5
    remote = spec_for("r1", settings, None, only_set=True)
    assert remote == {"run_id": "r1", "model": "m-1", "sources": "library"}  # defaults stay the worker's
    TypeAdapter(RunSpec).validate_python(spec)


def test_services_are_built_from_the_spec_on_the_worker(monkeypatch, tmp_path):
    monkeypatch.setenv("RESEARCH_DATA_DIR", str(tmp_path))
    registry = ServiceRegistry()  # the worker's: its settings from this environment, its own runs only
    spec = RunSpec(run_id="abc", brain="offline", sources="library", max_researchers=4)
    assert registry.settings_for(spec).max_researchers == 4 and registry.settings_for(spec).data_dir == tmp_path
    store = InMemoryStore()
    ctx = registry.build(spec, store)
    assert ctx.brain.kind == "offline" and ctx.settings.sources == "library"
    ctx.store.put_texts("abc", {"s1": "page text"})
    assert ctx.text_of("s1") == "page text"

    class Runtime:  # what LangGraph hands a node: the run's JSON spec with the worker's registry, the server's store
        context = RunEnv(spec, registry)

    Runtime.store = store
    first, second = services_of(Runtime()), services_of(Runtime())
    assert first is second  # one brain per run: its meter counts the whole run
    other_env = RunEnv(RunSpec(**{**spec, "run_id": "other"}), registry)
    other = services_of(type("R", (), {"context": other_env, "store": store})())
    assert other.brain is not first.brain and other.sources is first.sources  # router shared per process


def test_page_text_in_a_langgraph_store_keeps_the_first_text():
    texts = LangGraphTextStore(InMemoryStore())
    texts.put_texts("r1", {"a": "first", "b": ""})
    texts.put_texts("r1", {"a": "second"})
    assert texts.get_text("r1", "a") == "first"
    assert texts.get_text("r1", "b") == "" and texts.get_text("r2", "a") == ""


def test_the_graph_schemas_generate_from_json_types():
    graph = build_graph()
    assert set(graph.get_context_jsonschema()["properties"]) >= {"run_id", "brain", "model", "sources"}
    assert "topic" in graph.get_input_jsonschema()["properties"]
    assert "draft" in graph.get_output_jsonschema()["properties"]


def test_the_server_graph_leaves_the_allow_list_to_its_checkpointer():
    # langgraph-api's custom-checkpointer adapter recurses forever in copy.copy, which a graph
    # allow-list triggers (with_allowlist): the server's checkpointer carries the list instead.
    assert make_graph()._serde_allowlist is None


def test_thread_ids_are_stable_uuids():
    import uuid

    assert uuid.UUID(thread_id_of("a50d1af477d1")).version == 5
    assert thread_id_of("a50d1af477d1") == thread_id_of("a50d1af477d1") != thread_id_of("b50d1af477d1")
