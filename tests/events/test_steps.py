"""Events name the step that made them: the task (the same for every attempt at it) and the attempt."""

from __future__ import annotations

from collections import Counter

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
    assert nodes["sources_found"] == "researcher" and nodes["draft_ready"] == "writer"
    assert {e.step.attempt for e in events if e.step} == {1}
    assert next_attempt(events) == 2
    # Transcript messages come from the stream's updates, not from a node's emit: no step.
    assert all(e.step is None for e in events if e.type == "message")


def test_a_researchers_parallel_retrieves_name_its_own_task(runner: ResearchRunner) -> None:
    """A researcher's retrieves run on a shared pool's threads, in a copy of its task's context: each
    of its events names its task (on a thread without that context they would name none)."""
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="210", max_iterations=0))
    events = runner.store.events(run_id)
    tasks: dict[str, set[str]] = {}
    for e in events:
        if e.researcher_id and e.type in ("queries_generated", "sources_found", "researcher_finished"):
            tasks.setdefault(e.researcher_id, set()).add(e.step.task if e.step else "(no step)")
    found = Counter(e.researcher_id for e in events if e.type == "sources_found")
    assert set(tasks) == {"web-1", "web-2", "academic-1"}
    assert all(n > 1 for n in found.values()), found  # several queries each, so the pool was used
    for researcher_id, named in tasks.items():
        assert len(named) == 1 and next(iter(named)).startswith("researcher:"), (researcher_id, named)
    assert len({next(iter(named)) for named in tasks.values()}) == 3, "each researcher its own task"


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
