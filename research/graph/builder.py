"""The research graph: begin -> supervisor -> [plan review] -> researchers (Send fan-out) -> analyst ->
[follow-up] -> writer -> claim check -> reviewer -> finish. Plan review runs only when the run asked
for it (`review_plan`); otherwise the supervisor fans out itself."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from research.graph.context import RunSpec
from research.graph.node_events import logged_node, with_run_env
from research.graph.nodes import Node
from research.graph.nodes.analyst import analyst, dispatch_follow_up, follow_up
from research.graph.nodes.claim_check import claim_check
from research.graph.nodes.lifecycle import begin, finish_run
from research.graph.nodes.plan_review import after_supervisor, plan_review
from research.graph.nodes.researcher_branch import researcher_branch
from research.graph.nodes.reviewer import reviewer
from research.graph.nodes.routing import route_after_analyst
from research.graph.nodes.supervisor import dispatch, supervisor
from research.graph.nodes.writer import writer
from research.graph.services import RunEnv, ServiceRegistry
from research.graph.state import ResearchState

# Its context: a JSON spec (what a server accepts; the schema) or, in-process, the run's RunEnv.
ResearchGraph = CompiledStateGraph[ResearchState, RunSpec | RunEnv, ResearchState, ResearchState]


def build_graph(
    *,
    max_consecutive_same: int = 3,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
    services: ServiceRegistry | None = None,
) -> ResearchGraph:
    """The compiled graph with `checkpointer` attached. Compiling takes about 10 ms, and every run
    would pay it before its first model call, so each loop limit is compiled once and shared: a
    compiled graph keeps no per-run state (the researcher mode is the run's, in its services), and
    `copy` only swaps the checkpointer. Without `services` the caller passes each run a RunEnv
    context (research.graph.services); with it, a JSON spec is enough (a server's runs)."""
    graph = _compiled(max_consecutive_same, services)
    return graph if checkpointer is None else graph.copy(update={"checkpointer": checkpointer})


@lru_cache(maxsize=8)
def _compiled(max_consecutive_same: int, services: ServiceRegistry | None) -> ResearchGraph:
    builder: StateGraph[ResearchState, RunSpec | RunEnv, ResearchState, ResearchState] = StateGraph(
        ResearchState, context_schema=RunSpec
    )
    nodes: dict[Node, Callable[..., Any]] = {
        Node.BEGIN: begin,
        Node.SUPERVISOR: supervisor,
        Node.PLAN_REVIEW: plan_review,
        Node.RESEARCHER: researcher_branch,  # pipeline or agent, as the run chose
        Node.ANALYST: analyst,
        Node.FOLLOW_UP: follow_up,
        Node.WRITER: writer,
        Node.CLAIM_CHECK: claim_check,
        Node.REVIEWER: reviewer,
        Node.FINISH: finish_run,
    }
    for node, run in nodes.items():
        # Each node also reports to a worker's event log when this process writes one.
        builder.add_node(node.value, logged_node(node.value, run, services))

    builder.add_edge(START, Node.BEGIN.value)
    builder.add_edge(Node.BEGIN.value, Node.SUPERVISOR.value)
    # Straight to the researchers, or through the plan review when the run asked for one; the
    # fan-out reads the plan from state after the review, so edited questions/allocation apply.
    builder.add_conditional_edges(
        Node.SUPERVISOR.value,
        with_run_env(services, after_supervisor),
        [Node.PLAN_REVIEW.value, Node.RESEARCHER.value],
    )
    builder.add_conditional_edges(Node.PLAN_REVIEW.value, with_run_env(services, dispatch), [Node.RESEARCHER.value])
    builder.add_edge(Node.RESEARCHER.value, Node.ANALYST.value)
    builder.add_conditional_edges(
        Node.ANALYST.value,
        partial(route_after_analyst, max_consecutive_same=max_consecutive_same),
        {"follow_up": Node.FOLLOW_UP.value, "writer": Node.WRITER.value},
    )
    builder.add_conditional_edges(
        Node.FOLLOW_UP.value, with_run_env(services, dispatch_follow_up), [Node.RESEARCHER.value]
    )
    builder.add_edge(Node.WRITER.value, Node.CLAIM_CHECK.value)
    builder.add_edge(Node.CLAIM_CHECK.value, Node.REVIEWER.value)
    builder.add_edge(Node.REVIEWER.value, Node.FINISH.value)  # FINISH stays the last node (run_finished)
    builder.add_edge(Node.FINISH.value, END)
    return builder.compile()


def make_graph(services: ServiceRegistry | None = None) -> ResearchGraph:
    """The graph with this process's limits, run from JSON specs with `services` (default: a
    registry of its own), for LangGraph tooling; the server's entry point is research/runs/server.py,
    whose checkpointer carries the project's msgpack allow-list."""
    registry = services or ServiceRegistry()
    return build_graph(max_consecutive_same=registry.settings.max_consecutive_same, services=registry)
