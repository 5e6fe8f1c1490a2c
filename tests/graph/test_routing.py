"""The typed router after the analyst, the looping guard, and the graph's wiring."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from research.graph.builder import build_graph
from research.graph.nodes.routing import route_after_analyst
from research.schemas.state_shapes import Critique


def critique(status: str = "NEEDS_IMPROVEMENT", missing: list[str] | None = None, iteration: int = 0) -> Critique:
    return Critique(iteration=iteration, status=status, missing_topics=["gap A"] if missing is None else missing)


def state(*critiques: Critique, iterations: int = 0, max_iterations: int = 2, history=None, **extra) -> dict:
    return {
        "critiques": list(critiques),
        "research_iterations": iterations,
        "max_iterations": max_iterations,
        "route_history": history if history is not None else ["supervisor", "analyst"],
        **extra,
    }


def test_needs_improvement_under_the_cap_sends_follow_up() -> None:
    assert route_after_analyst(state(critique(), iterations=0)) == "follow_up"
    assert (
        route_after_analyst(
            state(
                critique(missing=["a"]),
                critique(missing=["b"], iteration=1),
                iterations=1,
                history=["supervisor", "analyst", "follow_up", "analyst"],
            )
        )
        == "follow_up"
    )


@pytest.mark.parametrize(("iterations", "cap"), [(2, 2), (3, 2), (0, 0), (5, 5)])
def test_needs_improvement_at_the_cap_goes_to_writer(iterations: int, cap: int) -> None:
    assert route_after_analyst(state(critique(), iterations=iterations, max_iterations=cap)) == "writer"


def test_the_cap_defaults_to_two_when_state_has_none() -> None:
    s = state(critique(), iterations=1)
    del s["max_iterations"]
    assert route_after_analyst(s) == "follow_up"
    s["research_iterations"] = 2
    assert route_after_analyst(s) == "writer"


def test_approved_goes_to_writer() -> None:
    assert route_after_analyst(state(critique("APPROVED", missing=[]))) == "writer"


def test_budget_exhausted_goes_to_writer() -> None:
    assert route_after_analyst(state(critique(), budget_exhausted=True)) == "writer"
    assert route_after_analyst(state(critique(), budget_exhausted=False)) == "follow_up"


def test_no_verdict_goes_to_writer() -> None:
    assert route_after_analyst(state()) == "writer"


def test_looping_guard_consecutive_follow_ups() -> None:
    history = ["supervisor", "analyst", "follow_up", "analyst", "follow_up", "analyst"]
    crit = [critique(missing=["a"]), critique(missing=["b"], iteration=1), critique(missing=["c"], iteration=2)]
    base = dict(iterations=2, max_iterations=5, history=history)
    # Two follow-ups in a row: under a guard of 3 the run may continue, a guard of 2 ends it.
    assert route_after_analyst(state(*crit, **base), max_consecutive_same=3) == "follow_up"
    assert route_after_analyst(state(*crit, **base), max_consecutive_same=2) == "writer"
    longer = history + ["follow_up", "analyst"]
    crit4 = [*crit, critique(missing=["d"], iteration=3)]
    assert (
        route_after_analyst(state(*crit4, iterations=3, max_iterations=5, history=longer), max_consecutive_same=3)
        == "writer"
    )


def test_looping_guard_same_gaps_twice() -> None:
    history = ["supervisor", "analyst", "follow_up", "analyst"]
    same = state(critique(missing=["x", "y"]), critique(missing=["x", "y"], iteration=1), iterations=1, history=history)
    changed = state(critique(missing=["x", "y"]), critique(missing=["y"], iteration=1), iterations=1, history=history)
    assert route_after_analyst(same) == "writer"
    assert route_after_analyst(changed) == "follow_up"


def test_graph_wiring() -> None:
    edges = {(e.source, e.target, e.conditional) for e in build_graph().get_graph().edges}
    # begin and finish bracket the run (run_started / run_finished come from inside the graph).
    assert ("__start__", "begin", False) in edges
    assert ("begin", "supervisor", False) in edges
    # The first round fans out (Send) from the supervisor, or from the plan review when the run asked
    # for one (the supervisor routes there). Follow-up rounds fan out from follow_up.
    fan_outs = {s for s, t, conditional in edges if t == "researcher" and conditional}
    assert fan_outs == {"supervisor", "plan_review", "follow_up"}, fan_outs
    assert ("supervisor", "plan_review", True) in edges
    assert ("researcher", "analyst", False) in edges
    assert ("analyst", "follow_up", True) in edges
    assert ("analyst", "writer", True) in edges
    assert ("follow_up", "researcher", True) in edges
    # After the writer: the claim check, the reviewer, then finish, the only way out; the analyst never
    # routes straight back to the supervisor.
    assert ("writer", "claim_check", False) in edges and ("claim_check", "reviewer", False) in edges
    assert ("reviewer", "finish", False) in edges
    assert {(s, t) for s, t, _ in edges if t == "__end__"} == {("finish", "__end__")}
    assert {t for s, t, _ in edges if s == "analyst"} == {"follow_up", "writer"}


def test_the_graph_is_compiled_once_per_loop_limit_and_runs_get_their_own_checkpointer() -> None:
    saver_a, saver_b = InMemorySaver(), InMemorySaver()
    first, second = build_graph(checkpointer=saver_a), build_graph(checkpointer=saver_b)
    assert first.nodes["researcher"] is second.nodes["researcher"]  # one compilation for every run
    assert first.checkpointer is saver_a and second.checkpointer is saver_b
    assert build_graph().checkpointer is None  # attaching one did not change the shared graph
    assert build_graph(max_consecutive_same=5).nodes["researcher"] is not first.nodes["researcher"]
