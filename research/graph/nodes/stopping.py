"""Why research stopped, said out loud: a log line, a warning when gaps were left, and a
`research_stopped` event (the run's JSON carries its reason as `stop_reason`)."""

from __future__ import annotations

from research.events import emit
from research.events.payloads_trust import ResearchStoppedData
from research.graph.nodes.common import agent_log, warn
from research.graph.nodes.routing import StopReason, consecutive_follow_ups, stop_reason
from research.graph.state import ResearchState


def announce_stop(state: ResearchState, update: ResearchState, max_consecutive_same: int) -> StopReason | None:
    """After the analyst: the state the router will see, and, if research stops, why."""
    after: ResearchState = {
        **state,
        **update,
        "critiques": [*(state.get("critiques") or []), *update.get("critiques", [])],
        "route_history": [*(state.get("route_history") or []), *update.get("route_history", [])],
    }
    reason = stop_reason(after, max_consecutive_same)
    if reason is None:
        return None
    message = _message(reason, after, max_consecutive_same)
    iteration = after.get("research_iterations", 0)
    if reason == "approved":
        agent_log.info("Research stopped: %s", message)
    else:
        warn("research", message)
    emit(ResearchStoppedData(reason=reason, message=message), iteration=iteration)
    return reason


def _message(reason: StopReason, state: ResearchState, max_consecutive_same: int) -> str:
    critiques = state.get("critiques") or []
    gaps = list(critiques[-1].missing_topics) if critiques else []
    listed = "; ".join(gaps[:5])
    left = f" Gaps left: {listed}" + ("" if listed.endswith((".", "?", "!")) else ".") if gaps else ""
    rounds = state.get("research_iterations", 0)
    if reason == "approved":
        return f"the analyst approved the research after {rounds} follow-up round(s)."
    if reason == "budget":
        return "Research stopped: the run's model budget was reached; the writer uses what was gathered." + left
    if reason == "iteration_cap":
        cap = state.get("max_iterations", rounds)
        return (
            f"Research stopped at the iteration cap ({cap} follow-up round(s)) without the analyst's approval." + left
        )
    if reason == "loop_guard":
        why = (
            f"{consecutive_follow_ups(state)} follow-up rounds in a row (RESEARCH_MAX_CONSECUTIVE_SAME="
            f"{max_consecutive_same})"
            if consecutive_follow_ups(state) >= max_consecutive_same
            else "a follow-up round reported the same gaps as the round before"
        )
        return f"Research stopped by the loop guard: {why}." + left
    return "Research stopped: the analyst gave no verdict."
