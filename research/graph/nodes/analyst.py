"""Analyst: a strict verdict on the research so far, and the follow-up round it may ask for."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from langgraph.types import Send

from research.brains.base import BudgetExceeded, JudgeRequest
from research.events import emit
from research.events.payloads import CritiqueIssued, Phase
from research.graph.nodes import Node
from research.graph.nodes.common import agent_log, report_usage, warn
from research.graph.nodes.run_coverage import run_coverage
from research.graph.nodes.stopping import announce_stop
from research.graph.nodes.supervisor import build_tasks, directive, researcher_sends
from research.graph.overlap import beside
from research.graph.services import RunEnv, services_of
from research.graph.state import ResearchState
from research.schemas.researchers import ResearcherAllocation
from research.schemas.state_shapes import Critique, ResearcherTask

MAX_FOLLOW_UP_RESEARCHERS = 3


def analyst(state: ResearchState, runtime: Runtime[RunEnv]) -> ResearchState:
    ctx = services_of(runtime)
    review = len(state.get("critiques") or []) + 1
    emit(Phase(phase="analyst"), iteration=state.get("research_iterations", 0))
    budget_hit = False
    request = JudgeRequest(
        topic=state["topic"],
        questions=state["research_questions"],
        sources=state.get("sources", []),
        reports=state.get("reports", []),
        iteration=review,
        text_of=ctx.text_of,
    )
    # The coverage is the run's one computation (research/relevance/coverage.py), whichever brain
    # judged: the evidence status and the draft's Known gaps read the same answer per question.
    # It needs no verdict, so it is worked out while the model call waits.
    coverage_job = beside(lambda: run_coverage(ctx, request.topic, request.questions, request.sources))
    try:
        verdict = ctx.brain.judge(request)
    except BudgetExceeded as exc:
        warn("budget", f"{exc}; research stops here and the writer uses what was gathered.")
        verdict = ctx.offline.judge(request)
        budget_hit = True
    report_usage(ctx, Node.ANALYST)
    coverage = coverage_job.result()
    verdict = verdict.model_copy(update={"coverage": [c.as_coverage() for c in coverage]})
    critique = Critique(iteration=state.get("research_iterations", 0), **verdict.model_dump())
    emit(CritiqueIssued.model_validate(verdict.model_dump()), iteration=critique.iteration)
    agent_log.info(
        "Analyst verdict: %s | missing: %s | recommended: %s",
        verdict.status,
        verdict.missing_topics,
        verdict.recommended_queries,
    )
    summary = f"Verdict {verdict.status}. " + " ".join(verdict.critique[:4])
    update: ResearchState = {
        "critiques": [critique],
        "route_history": [Node.ANALYST.value],
        "messages": [AIMessage(content=summary, name="analyst")],
    }
    if budget_hit:
        update["budget_exhausted"] = True
    announce_stop(state, update, ctx.settings.max_consecutive_same)
    return update


def follow_up(state: ResearchState, runtime: Runtime[RunEnv]) -> ResearchState:
    """Counts the revision round and records the directives; `dispatch_follow_up` sends the team."""
    iteration = state.get("research_iterations", 0) + 1
    emit(Phase(phase="researchers"), iteration=iteration)
    tasks = follow_up_tasks(state, iteration, services_of(runtime).researcher_mode)
    agent_log.info("Supervisor decision: Routing to -> follow-up researchers (round %d, %d)", iteration, len(tasks))
    return {
        "research_iterations": iteration,
        "route_history": [Node.FOLLOW_UP.value],
        "messages": [directive(t) for t in tasks],
    }


def follow_up_tasks(state: ResearchState, iteration: int, researcher_mode: str = "pipeline") -> list[ResearcherTask]:
    """Researchers aimed at the gaps only: one per missing topic (up to the team's size), of the
    kinds the run already uses, with the analyst's recommended queries as their focus. In agent
    mode every recommended query goes to a worker (round-robin): they become its directive."""
    latest = state["critiques"][-1]
    gaps = latest.missing_topics or state["research_questions"]
    team = state["allocation"].allocation
    kinds = [k for k in ("academic", "web", "book") if team.count(k)] or ["web"]
    size = max(1, min(len(gaps), team.total, MAX_FOLLOW_UP_RESEARCHERS))
    counts = {k: 0 for k in ("web", "academic", "book")}
    for i in range(size):
        counts[kinds[i % len(kinds)]] += 1
    allocation = ResearcherAllocation(**counts)
    tasks = build_tasks(state["topic"], allocation, gaps, iteration=iteration, focus=latest.recommended_queries or None)
    if researcher_mode == "agent" and latest.recommended_queries:
        queries = latest.recommended_queries
        tasks = [
            t.model_copy(update={"focus_queries": queries[i :: len(tasks)] or t.focus_queries})
            for i, t in enumerate(tasks)
        ]
    return tasks


def dispatch_follow_up(state: ResearchState, runtime: Runtime[RunEnv]) -> list[Send]:
    ctx = services_of(runtime)
    return researcher_sends(follow_up_tasks(state, state.get("research_iterations", 0), ctx.researcher_mode), ctx)
