"""Fan-out: one researcher per allocated slot, distinct work per researcher, and branches that
really run at the same time."""

from __future__ import annotations

import threading

from research.brains.offline.offline_brain import OfflineBrain
from research.events.payloads import ResearcherStarted
from research.graph.nodes.supervisor import build_tasks
from research.runs.runner import ResearchRunner
from research.schemas.researchers import ResearcherAllocation
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from tests.helpers import SlowRouter, events_of


def _started(runner: ResearchRunner, run_id: str, iteration: int = 0) -> dict[str, ResearcherStarted]:
    return {
        e.researcher_id: e.data for e in events_of(runner, run_id, "researcher_started") if e.iteration == iteration
    }


def test_210_sends_two_web_and_one_academic_researcher(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="Rust vs Go for backend services", allocation="210", max_iterations=0))
    started = _started(runner, run_id)
    assert sorted(started) == ["academic-1", "web-1", "web-2"]
    assert {rid: d.kind for rid, d in started.items()} == {"web-1": "web", "web-2": "web", "academic-1": "academic"}
    finished = {e.researcher_id for e in events_of(runner, run_id, "researcher_finished")}
    assert finished == set(started)

    # Same-kind researchers take different angles and questions, and share no query.
    web1, web2 = started["web-1"], started["web-2"]
    assert web1.angle != web2.angle
    assert web1.question != web2.question
    queries = {e.researcher_id: e.data.queries for e in events_of(runner, run_id, "queries_generated")}
    assert 2 <= len(queries["web-1"]) <= 3 and 2 <= len(queries["web-2"]) <= 3
    assert not set(queries["web-1"]) & set(queries["web-2"])


def test_researcher_count_follows_the_allocation(runner: ResearchRunner) -> None:
    for notation, expected in [("003", ["book-1", "book-2", "book-3"]), ("111", ["academic-1", "book-1", "web-1"])]:
        run_id = runner.run(
            ResearchRequest(topic="The impact of the printing press", allocation=notation, max_iterations=0)
        )
        assert sorted(_started(runner, run_id)) == expected


def test_same_kind_tasks_differ_even_when_they_share_a_question() -> None:
    # One question, three web researchers: the angles differ, and so do the offline brain's queries.
    tasks = build_tasks("Rust vs Go", ResearcherAllocation(web=3), ["How does Rust compare to Go?"], iteration=0)
    assert len({t.angle for t in tasks}) == 3
    brain = OfflineBrain()
    query_lists = [tuple(brain.queries(t, t.kind)) for t in tasks]
    assert len(set(query_lists)) == 3
    assert len({q[0] for q in query_lists}) == 3  # each starts from its own template


def test_branches_run_concurrently(settings: Settings) -> None:
    router = SlowRouter(delay=0.5)
    runner = ResearchRunner(settings, sources=router)
    run_id = runner.run(ResearchRequest(topic="How do heat pumps work?", allocation="111", max_iterations=0))
    assert runner.store.get_run(run_id).status == "finished"

    kinds = {c.kind for c in router.calls}
    assert kinds == {"web", "academic", "book"}
    assert len(router.calls) >= 6  # 2-3 queries per researcher, one retrieve each

    # Every researcher's retrieves overlap every other researcher's: there is one moment when all
    # three were retrieving. Run one after another, the latest start would follow the earliest end.
    latest_start = max(min(c.start for c in router.calls if c.kind == k) for k in kinds)
    earliest_end = min(max(c.end for c in router.calls if c.kind == k) for k in kinds)
    assert latest_start < earliest_end

    # And each researcher's own queries are retrieved in parallel (one Send per query).
    for kind in kinds:
        calls = [c for c in router.calls if c.kind == kind]
        assert len(calls) >= 2
        assert max(c.start for c in calls) < min(c.end for c in calls), kind


def test_max_concurrency_one_does_not_hang(settings: Settings) -> None:
    # One pool slot for the whole run: the nodes run one at a time and the run ends. (When the runner
    # drained graph.stream(), its output waiter took a slot, and with 1 the run hung forever.)
    router = SlowRouter(delay=0.05)
    runner = ResearchRunner(settings.model_copy(update={"max_concurrency": 1}), sources=router)
    request = ResearchRequest(topic="How do heat pumps work?", allocation="110", max_iterations=0)
    run_id = runner.create(request)
    worker = threading.Thread(target=runner.run, args=(request,), kwargs={"run_id": run_id}, daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "the run hung with max_concurrency=1"
    assert runner.store.get_run(run_id).status == "finished"
    assert {c.kind for c in router.calls} == {"web", "academic"}


def test_a_researcher_that_found_nothing_relevant_ends_empty_not_failed(runner: ResearchRunner) -> None:
    """The library does not cover bagpipes: each researcher's searches run and what they return is
    dropped as off the subject. That is an honest "nothing found", not a fault: no error, no red badge."""
    run_id = runner.run(ResearchRequest(topic="How are bagpipes made?", allocation="110", max_iterations=0))
    finished = [e.data for e in events_of(runner, run_id, "researcher_finished")]

    assert finished and {d.status for d in finished} == {"empty"}
    assert all(d.error is None and not d.source_ids for d in finished)
    [critique] = [e.data for e in events_of(runner, run_id, "critique_issued")]
    assert any(line.startswith("Researchers that found nothing relevant: ") for line in critique.critique)
    assert not any(line.startswith("Researchers that failed") for line in critique.critique)
