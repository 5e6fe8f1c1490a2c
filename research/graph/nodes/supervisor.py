"""Supervisor: resolves the allocation (user > model > default), plans the research questions,
and dispatches one researcher per allocated slot."""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from langgraph.types import Send
from pydantic import ValidationError

from research.brains.base import Plan
from research.events import emit
from research.events.payloads import AllocationDecided, Phase
from research.graph.allocation import decided_plan, parse_allocation, researcher_ids, resolve_allocation
from research.graph.context import RunContext
from research.graph.nodes import Node
from research.graph.nodes.common import agent_log, report_usage, warn
from research.graph.services import RunEnv, services_of
from research.graph.state import ResearcherState, ResearchState
from research.schemas.llm_shapes import SupervisorDecision
from research.schemas.researchers import ResearcherAllocation, ResearcherKind
from research.schemas.state_shapes import ResearcherTask, RunWarning

MAX_QUESTIONS = 5
_ANGLES: dict[ResearcherKind, tuple[str, ...]] = {
    "web": ("official sources and news", "practitioner blogs and forums", "critics and comparisons"),
    "academic": ("reviews and meta-analyses", "primary studies and methods", "recent and dissenting work"),
    "book": ("introductions and handbooks", "history and context", "companions and critical essays"),
}


def supervisor(state: ResearchState, runtime: Runtime[RunEnv]) -> ResearchState:
    ctx = services_of(runtime)
    topic = state["topic"]
    cap = ctx.settings.max_researchers
    emit(Phase(phase="supervisor"), iteration=0)
    requested = state.get("requested_allocation")
    user = parse_allocation(requested, cap) if requested else None
    plan = ctx.brain.plan(topic, max_researchers=cap, wants_allocation=user is None)
    report_usage(ctx, Node.SUPERVISOR)

    model_allocation, warnings = _validated_model_allocation(plan, cap) if user is None else (None, [])
    resolved, invalid = resolve_allocation(
        user,
        model_allocation,
        model_reasoning=plan.allocation_reasoning,
        max_total=cap,
        model_origin=getattr(plan, "origin", "llm"),
    )
    if invalid:
        warnings.append(invalid)
    if user is None and model_allocation is None and not warnings:
        reason = getattr(plan, "allocation_error", "") or "the brain gave no allocation"
        warnings.append(f"{reason[:1].upper()}{reason[1:]}; used the default 111.")
    questions = [q.strip() for q in plan.research_questions if q.strip()][:MAX_QUESTIONS] or [topic]
    for message in warnings:
        warn("supervisor", message)

    emit(AllocationDecided(**decided_plan(resolved, questions), plan_reasoning=plan.reasoning))
    agent_log.info(
        "Supervisor decision: allocation %s (%s) | questions: %s",
        resolved.allocation.notation,
        resolved.origin,
        questions,
    )
    agent_log.info("Supervisor decision: Routing to -> researchers (%d)", resolved.allocation.total)
    tasks = build_tasks(topic, resolved.allocation, questions, iteration=0)
    return {
        "allocation": resolved,
        "research_questions": questions,
        "research_iterations": 0,
        "route_history": [Node.SUPERVISOR.value],
        "warnings": [RunWarning(source="supervisor", message=m) for m in warnings],
        "messages": [directive(t) for t in tasks],
    }


def _validated_model_allocation(plan: Plan, cap: int) -> tuple[ResearcherAllocation | None, list[str]]:
    """Check the model's allocation against SupervisorDecision's rules; invalid -> None + warning."""
    if plan.allocation is None:
        return None, []
    try:
        decision = SupervisorDecision(
            action="conduct_research",
            reasoning=plan.reasoning,
            research_questions=plan.research_questions,
            web_researchers=plan.allocation.web,
            academic_researchers=plan.allocation.academic,
            book_researchers=plan.allocation.book,
            allocation_reasoning=plan.allocation_reasoning,
            max_researchers=cap,
        )
    except ValidationError as exc:
        reason = "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
        return None, [
            f"The model's allocation {plan.allocation.notation} was rejected ({reason}); used the default 111."
        ]
    return decision.allocation, []


def build_tasks(
    topic: str,
    allocation: ResearcherAllocation,
    questions: list[str],
    *,
    iteration: int,
    focus: list[str] | None = None,
) -> list[ResearcherTask]:
    """One task per researcher. Questions go round-robin, and same-kind researchers get distinct
    angles, so no two researchers duplicate each other's work."""
    tasks = []
    per_kind: dict[str, int] = {}
    for index, (researcher_id, kind) in enumerate(researcher_ids(allocation, iteration)):
        nth = per_kind.get(kind, 0)
        per_kind[kind] = nth + 1
        question = questions[index % len(questions)]
        focus_queries = [focus[index % len(focus)]] if focus else []
        tasks.append(
            ResearcherTask(
                researcher_id=researcher_id,
                kind=kind,
                question=question,
                topic=topic,
                angle=f"angle {nth + 1}: {_ANGLES[kind][nth % 3]}",
                iteration=iteration,
                focus_queries=focus_queries,
            )
        )
    return tasks


def directive(task: ResearcherTask) -> AIMessage:
    reason = f'{task.researcher_id} ({task.kind}, {task.angle}) to research "{task.question}"'
    return AIMessage(content=f"Supervisor Directive: {reason}. Please address this.", name="Supervisor")


def dispatch(state: ResearchState, runtime: Runtime[RunEnv]) -> list[Send]:
    """Fan out: one Send per researcher of the first round."""
    tasks = build_tasks(state["topic"], state["allocation"].allocation, state["research_questions"], iteration=0)
    return researcher_sends(tasks, services_of(runtime))


def researcher_sends(tasks: list[ResearcherTask], ctx: RunContext) -> list[Send]:
    """One Send per task, the slowest kinds first. Researchers start one after another, so this
    puts the longest chains of requests, which decide when the round ends, at the head of the
    queue (longest-first scheduling on observed retrieve times; ties keep the plan's order)."""
    ordered = sorted(tasks, key=lambda t: -(ctx.sources.expected_seconds(t.kind) or 0.0))
    return [Send(Node.RESEARCHER.value, ResearcherState(task=t)) for t in ordered]
