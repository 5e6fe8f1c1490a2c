"""Events name the step that made them: the task (the same for every attempt at it) and the attempt."""

from __future__ import annotations

from research.events import EventAdapter, event_payload
from research.events.payloads import CritiqueIssued, Phase, Warning
from research.events.steps import current_events, next_attempt
from research.events.stream import stream_part
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest


def test_events_made_in_a_node_name_its_task_and_the_first_attempt(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="100", max_iterations=0))
    events = runner.store.events(run_id)
    nodes = {e.type: e.step.node for e in events if e.step}
    assert nodes["run_started"] == "begin" and nodes["critique_issued"] == "analyst"
    assert nodes["sources_found"] == "researcher/retrieve" and nodes["draft_ready"] == "writer"
    assert {e.step.attempt for e in events if e.step} == {1}
    assert next_attempt(events) == 2
    # Transcript messages come from the stream's updates, not from a node's emit: no step.
    assert all(e.step is None for e in events if e.type == "message")


def custom(data, task: str) -> dict:
    return stream_part("custom", {**event_payload(data), "task": task})


def test_a_later_attempt_of_a_task_leaves_the_earlier_ones_out_of_the_fold() -> None:
    critique = CritiqueIssued(status="APPROVED", critique=["Covered."])
    first = EventAdapter("r1", attempt=1)
    log = [
        e
        for part in (custom(Phase(phase="analyst"), "analyst:t1"), custom(critique, "analyst:t1"))
        for e in first.adapt(part)
    ]
    second = EventAdapter("r1", start_seq=len(log), attempt=next_attempt(log))
    log += [second.make(Warning(source="runner", message="Resumed from the last checkpoint."))]
    log += [e for e in second.adapt(custom(Phase(phase="analyst"), "analyst:t1"))]

    # The second attempt has not made its critique yet: its phase replaces the first's, the critique goes.
    assert [(e.type, e.step.attempt if e.step else None) for e in current_events(log)] == [
        ("warning", None),
        ("phase", 2),
    ]
    live = fold(log[:2])
    assert len(live.critiques) == 1 and live.superseded_by(log[2:])
    assert fold(log).critiques == [] and not fold(log).superseded_by(log[2:])
