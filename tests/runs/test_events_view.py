"""The event log: numbered, tagged with the run, and folded into the same picture the graph state
holds. And the adapter: the one place that reads LangGraph's stream parts."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from research.events import EVENT_TYPES, Event, EventAdapter, event_payload
from research.events.payloads import (
    Counts,
    Payload,
    PlanApproved,
    PlanReviewRequested,
    QueriesGenerated,
    RunCancelled,
    Warning,
)
from research.runs.runner import ResearchRunner
from research.runs.view import fold, to_json
from research.schemas.state_shapes import ResearchRequest
from tests.helpers import final_state


@pytest.fixture
def finished_run(runner: ResearchRunner) -> tuple[ResearchRunner, str]:
    seen: list[Event] = []
    run_id = runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="120"), on_event=seen.append)
    runner.live_events = seen  # type: ignore[attr-defined]
    return runner, run_id


def test_events_are_numbered_without_gaps_and_carry_the_run_id(finished_run) -> None:
    runner, run_id = finished_run
    events = runner.store.events(run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert {e.run_id for e in events} == {run_id}
    assert events[0].type == "run_started" and events[-1].type == "run_finished"
    # The callback saw exactly what the store kept, in order.
    assert [(e.seq, e.type) for e in runner.live_events] == [(e.seq, e.type) for e in events]
    # Researcher events name their researcher and iteration.
    for e in events:
        if e.type in ("researcher_started", "queries_generated", "sources_found", "researcher_finished"):
            assert e.researcher_id and e.iteration is not None
    # Timestamps never go backwards.
    assert all(a.ts <= b.ts for a, b in zip(events, events[1:], strict=False))


def test_the_fold_reproduces_the_graph_state(finished_run) -> None:
    runner, run_id = finished_run
    view = fold(runner.store.events(run_id))
    state = final_state(runner, run_id)

    assert view.status == "finished" and view.run_id == run_id
    assert view.allocation is not None
    assert view.allocation.model_dump() == state["allocation"].allocation.model_dump()
    assert view.allocation_origin == state["allocation"].origin == "user"
    assert view.research_questions == state["research_questions"]
    assert {rid: (r.kind, r.iteration, r.status) for rid, r in view.researchers.items()} == {
        r.researcher_id: (r.kind, r.iteration, r.status) for r in state["reports"]
    }
    for report in state["reports"]:
        assert view.researchers[report.researcher_id].source_ids == report.source_ids
        assert view.researchers[report.researcher_id].queries == report.queries
    assert set(view.sources) == {s.id for s in state["sources"]}
    assert [(c.iteration, c.status, c.missing_topics) for c in view.critiques] == [
        (c.iteration, c.status, c.missing_topics) for c in state["critiques"]
    ]
    assert view.draft == state["draft"].markdown
    assert view.citations == {str(n): sid for n, sid in state["draft"].citations.items()}
    assert view.known_gaps == state["draft"].known_gaps
    assert view.iteration == state["research_iterations"]


def test_fold_is_incremental(finished_run) -> None:
    runner, run_id = finished_run
    events = runner.store.events(run_id)
    half = len(events) // 2
    view = fold(runner.store.events(run_id)[:half])
    assert view.status == "running" and view.draft is None
    fold(runner.store.events(run_id, after_seq=view.last_seq), view)
    assert to_json(view) == to_json(fold(events))


def test_the_adapter_numbers_custom_events_and_transcript_messages() -> None:
    adapter = EventAdapter("run-x", start_seq=10)
    custom = {
        "type": "custom",
        "ns": ("researcher:abc",),
        "data": event_payload(QueriesGenerated(queries=["q"]), researcher_id="web-1", iteration=0),
    }
    [event] = adapter.adapt(custom)
    assert (event.type, event.seq, event.run_id, event.researcher_id, event.data.model_dump()) == (
        "queries_generated",
        11,
        "run-x",
        "web-1",
        {"queries": ["q"]},
    )
    update = {
        "type": "updates",
        "ns": (),
        "data": {"writer": {"messages": [AIMessage(content="Draft ready", name="writer")]}},
    }
    [message] = adapter.adapt(update)
    assert (message.type, message.seq, message.data.name, message.data.content) == (
        "message",
        12,
        "writer",
        "Draft ready",
    )
    # Subgraph updates repeat what the parent reports; other stream parts are not events.
    assert list(adapter.adapt({**update, "ns": ("researcher:abc",)})) == []
    assert list(adapter.adapt({"type": "custom", "ns": (), "data": {"unrelated": 1}})) == []
    assert list(adapter.adapt({"type": "messages", "ns": (), "data": ("chunk", {})})) == []
    # Only v2 parts are read: a v1 tuple (namespace, mode, data) is not an event.
    assert list(adapter.adapt(((), "custom", event_payload(Warning(source="x", message="y"))))) == []


def test_unknown_event_types_are_refused() -> None:
    with pytest.raises(ValueError):
        event_payload(Payload())  # the base model names no event type
    # The types a run's log has held from the first version on: stored logs must stay readable. Written
    # out here, not taken from payload_base, so a rename or removal there fails this test.
    lifecycle = {"run_started", "warning", "run_finished", "run_failed"}
    research = {"allocation_decided", "researcher_started", "queries_generated", "sources_found", "researcher_finished"}
    assert lifecycle | research | {"critique_issued", "draft_ready"} <= EVENT_TYPES


def test_every_event_type_has_a_progress_line():
    from typing import get_args

    from research.cli.progress import describe
    from research.events import EventAdapter, EventType

    samples = {
        "plan_review_requested": PlanReviewRequested(research_questions=["Q1", "Q2"]),
        "plan_approved": PlanApproved(allocation=Counts(web=1, academic=1, book=1), edited=True),
        "run_cancelled": RunCancelled(reason="Cancelled at plan review."),
    }
    adapter = EventAdapter("r1")
    for type_, data in samples.items():
        assert type_ in get_args(EventType)
        line = describe(adapter.make(data))
        assert line and ("Q1" in line or "approved" in line or "cancelled" in line)


def test_a_researcher_that_found_nothing_says_so_on_the_command_line():
    from research.cli.progress import describe
    from research.events import EventAdapter
    from research.events.payloads import ResearcherFinished

    adapter = EventAdapter("r1")
    empty = describe(adapter.make(ResearcherFinished(kind="web", status="empty", seconds=0.03), researcher_id="web-1"))
    done = describe(adapter.make(ResearcherFinished(kind="web", status="done", source_ids=["s1"], seconds=0.1)))
    assert empty == "[web-1] found nothing relevant: 0 sources in 0.03s"
    assert done is not None and done.endswith("done: 1 sources in 0.1s")
