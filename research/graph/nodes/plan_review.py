"""Plan review: an optional pause after the supervisor, so the user can edit the plan.

With `review_plan` in state the node stops the graph with LangGraph's `interrupt()`; the SQLite
checkpoint keeps the pause across page reloads and process restarts. The runner resumes it with
`Command(resume={"questions": [...], "allocation": "210"})` (None = keep). The edited plan is
written into state here, because the researcher fan-out (`dispatch`) reads it from state.

Code before `interrupt()` runs again on resume, so the node emits nothing there: the runner
reports the pause ("plan_review_requested") once it sees the interrupt.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime
from langgraph.types import Send, interrupt

from research.events import emit
from research.events.payloads import Counts, PlanApproved, PlanReviewRequested
from research.graph.allocation import AllocationError, decided_plan, parse_allocation
from research.graph.nodes import Node
from research.graph.nodes.common import agent_log
from research.graph.nodes.supervisor import MAX_QUESTIONS, dispatch
from research.graph.services import RunEnv, services_of
from research.graph.state import ResearchState
from research.schemas.researchers import ResearcherAllocation, ResolvedAllocation

MAX_QUESTION_CHARS = 300


class PlanEditError(ValueError):
    """An edited plan broke a rule. The message names the rule and the value given."""


def validate_plan_edit(
    questions: list[str] | str | None, allocation: str | None, *, max_researchers: int
) -> tuple[list[str] | None, ResearcherAllocation | None]:
    """Check a user's edit of the plan. None keeps that part of the plan as the supervisor made it.

    Blank lines are dropped; then 1-5 questions of at most 300 characters each are required.
    `questions` comes from a resume value (any JSON), so a single string is refused, not split.
    """
    cleaned: list[str] | None = None
    if questions is not None:
        if isinstance(questions, str):
            raise PlanEditError("questions must be a list of strings, one question each")
        cleaned = [" ".join(str(q).split()) for q in questions if str(q).strip()]
        if not cleaned:
            raise PlanEditError("the plan needs at least one research question")
        if len(cleaned) > MAX_QUESTIONS:
            raise PlanEditError(f"at most {MAX_QUESTIONS} research questions, got {len(cleaned)}")
        for i, question in enumerate(cleaned, 1):
            if len(question) > MAX_QUESTION_CHARS:
                raise PlanEditError(
                    f"question {i} is too long: {len(question)} characters, at most {MAX_QUESTION_CHARS}"
                )
    parsed = None
    if allocation is not None and str(allocation).strip():
        try:
            parsed = parse_allocation(str(allocation), max_researchers)
        except AllocationError as exc:
            raise PlanEditError(f"invalid allocation: {exc}") from None
    return cleaned, parsed


def plan_payload(state: ResearchState, max_researchers: int) -> PlanReviewRequested:
    """What the user reviews: the interrupt's value and the plan_review_requested event's data."""
    resolved = state["allocation"]
    return PlanReviewRequested(
        allocation=Counts.model_validate(resolved.allocation.model_dump()),
        allocation_notation=resolved.allocation.notation,
        allocation_origin=resolved.origin,
        research_questions=list(state["research_questions"]),
        max_researchers=max_researchers,
        max_questions=MAX_QUESTIONS,
        max_question_chars=MAX_QUESTION_CHARS,
    )


def after_supervisor(state: ResearchState, runtime: Runtime[RunEnv]) -> str | list[Send]:
    """The plan review when the run asked for it; otherwise the researchers at once, without a
    step of the graph (a checkpoint and a task) spent on a node that would do nothing."""
    return Node.PLAN_REVIEW.value if state.get("review_plan") else dispatch(state, runtime)


def plan_review(state: ResearchState, runtime: Runtime[RunEnv]) -> ResearchState:
    if not state.get("review_plan"):
        return {}
    cap = services_of(runtime).settings.max_researchers
    # The interrupt's value is checkpointed and streamed: plain JSON, as the event's data.
    answer = interrupt(plan_payload(state, cap).model_dump(mode="json")) or {}
    questions, allocation = validate_plan_edit(answer.get("questions"), answer.get("allocation"), max_researchers=cap)
    current = state["allocation"]
    questions = questions or list(state["research_questions"])
    resolved = current
    if allocation is not None and allocation != current.allocation:
        resolved = ResolvedAllocation(
            allocation=allocation, origin="user", reasoning=f"Set by the user in plan review ({allocation.notation})."
        )
    edited = resolved is not current or questions != list(state["research_questions"])
    emit(PlanApproved(**decided_plan(resolved, questions), edited=edited))
    summary = (
        f"Plan reviewed by the user{' and edited' if edited else ''}: allocation {resolved.allocation.notation}; "
        "questions: " + " | ".join(questions)
    )
    agent_log.info("Plan review: %s", summary)
    return {
        "allocation": resolved,
        "research_questions": questions,
        "messages": [AIMessage(content=summary, name="plan_review")],
    }
