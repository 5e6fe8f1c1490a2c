"""The run's first and last nodes: `run_started` and `run_finished` are emitted inside the graph,
so the event log is complete wherever the graph runs (in-process, `langgraph dev`, a server)."""

from __future__ import annotations

import time

from langgraph.runtime import Runtime

from research.events import emit
from research.events.payloads import RunFinished, RunStarted
from research.events.status import RunStatus
from research.graph.context import controls_of
from research.graph.services import RunEnv, services_of, spec_of
from research.graph.state import ResearchState, shape_of


def begin(state: ResearchState, runtime: Runtime[RunEnv]) -> ResearchState:
    ctx = services_of(runtime)
    shape = shape_of(state)
    emit(
        RunStarted(
            topic=state["topic"],
            allocation_request=state.get("requested_allocation"),
            brain=ctx.brain.kind,
            model=ctx.brain.name,
            fast_model=ctx.settings.fast_model if ctx.brain.kind != "offline" else None,
            source_mode=ctx.settings.sources,
            max_iterations=state.get("max_iterations", ctx.settings.max_iterations),
            researcher_mode=ctx.researcher_mode,
            started_by=spec_of(runtime).get("started_by"),
            worker_log=ctx.worker_log,
            review_plan=bool(state.get("review_plan")),
            source_controls=controls_of(spec_of(runtime)),
            report_shape=shape.shape,
            target_words=shape.target_words,
        )
    )
    return {"run_started_at": time.time()}


def finish_run(state: ResearchState) -> ResearchState:
    """The outcome is the run's own: a draft means finished, whatever status the host reports."""
    counts = run_counts(state)
    seconds = round(time.time() - state.get("run_started_at", time.time()), 3)
    status = RunStatus.FINISHED if state.get("draft") else RunStatus.FAILED
    emit(RunFinished(status=status, seconds=seconds, counts=counts, evidence=state.get("evidence")))
    return {}


def run_counts(state: ResearchState) -> dict[str, int]:
    return {
        "sources": len(state.get("sources", [])),
        "researchers": len(state.get("reports", [])),
        "iterations": state.get("research_iterations", 0),
        "critiques": len(state.get("critiques", [])),
    }
