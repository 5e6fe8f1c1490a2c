"""Deterministic routing after the first supervisor decision: typed, never a match on message text."""

from __future__ import annotations

from typing import Literal

from research.events.payloads_trust import StopReasonName
from research.graph.nodes import Node
from research.graph.state import ResearchState

AfterAnalyst = Literal["follow_up", "writer"]
# approved: the analyst approved; the others stop research with gaps left (and say so).
StopReason = StopReasonName
DEFAULT_MAX_ITERATIONS = 2


def route_after_analyst(state: ResearchState, *, max_consecutive_same: int = 3) -> AfterAnalyst:
    """NEEDS_IMPROVEMENT under the cap -> follow-up researchers; APPROVED, cap, budget or loop -> writer."""
    return "follow_up" if stop_reason(state, max_consecutive_same) is None else "writer"


def stop_reason(state: ResearchState, max_consecutive_same: int = 3) -> StopReason | None:
    """Why research stops after this analyst verdict, or None when a follow-up round goes out."""
    critiques = state.get("critiques") or []
    if not critiques:
        return "no_verdict"
    if state.get("budget_exhausted"):
        return "budget"
    if critiques[-1].status == "APPROVED":
        return "approved"
    if state.get("research_iterations", 0) >= state.get("max_iterations", DEFAULT_MAX_ITERATIONS):
        return "iteration_cap"
    if is_looping(state, max_consecutive_same):
        return "loop_guard"
    return None


def is_looping(state: ResearchState, max_consecutive_same: int) -> bool:
    """The guard against a run that loops: the same route taken too often in a row, or a revision
    round that changed nothing (the same gaps reported twice)."""
    return consecutive_follow_ups(state) >= max_consecutive_same or same_gaps_twice(state)


def consecutive_follow_ups(state: ResearchState) -> int:
    follow_ups = 0
    for step in reversed(state.get("route_history") or []):
        if step == Node.FOLLOW_UP.value:
            follow_ups += 1
        elif step != Node.ANALYST.value:
            break
    return follow_ups


def same_gaps_twice(state: ResearchState) -> bool:
    critiques = state.get("critiques") or []
    return len(critiques) >= 2 and critiques[-1].missing_topics == critiques[-2].missing_topics
