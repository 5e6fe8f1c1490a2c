"""Deterministic routing after the first supervisor decision: typed, never a match on message text."""

from __future__ import annotations

from typing import Literal

from research.graph.nodes import Node
from research.graph.state import ResearchState

AfterAnalyst = Literal["follow_up", "writer"]
DEFAULT_MAX_ITERATIONS = 2


def route_after_analyst(state: ResearchState, *, max_consecutive_same: int = 3) -> AfterAnalyst:
    """NEEDS_IMPROVEMENT under the cap -> follow-up researchers; APPROVED, cap, budget or loop -> writer."""
    critiques = state.get("critiques") or []
    if not critiques or state.get("budget_exhausted"):
        return "writer"
    latest = critiques[-1]
    if latest.status == "APPROVED":
        return "writer"
    if state.get("research_iterations", 0) >= state.get("max_iterations", DEFAULT_MAX_ITERATIONS):
        return "writer"
    if is_looping(state, max_consecutive_same):
        return "writer"
    return "follow_up"


def is_looping(state: ResearchState, max_consecutive_same: int) -> bool:
    """The guard against a run that loops: the same route taken too often in a row, or a revision
    round that changed nothing (the same gaps reported twice)."""
    history = state.get("route_history") or []
    follow_ups = 0
    for step in reversed(history):
        if step == Node.FOLLOW_UP.value:
            follow_ups += 1
        elif step != Node.ANALYST.value:
            break
    if follow_ups >= max_consecutive_same:
        return True
    critiques = state.get("critiques") or []
    return len(critiques) >= 2 and critiques[-1].missing_topics == critiques[-2].missing_topics
