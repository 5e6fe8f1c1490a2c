"""A researcher branch's start and end, the same for the pipeline and the agent researcher: the
`researcher_started` / `researcher_finished` events and the report the parent graph keeps."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from research.events import emit
from research.events.payloads import ResearcherFinished, ResearcherStarted
from research.graph.nodes.common import warn
from research.graph.state import ResearcherState
from research.schemas.researchers import ResearcherOutcome
from research.schemas.state_shapes import ResearcherReport, ResearcherTask, RunWarning, Source
from research.secrets import mask


def announce_start(task: ResearcherTask) -> None:
    started = ResearcherStarted(kind=task.kind, question=task.question, angle=task.angle)
    emit(started, researcher_id=task.researcher_id, iteration=task.iteration)


def report_branch(
    task: ResearcherTask,
    *,
    queries: Sequence[str] = (),
    sources: Sequence[Source] = (),
    notes: str = "",
    seconds: float = 0.0,
    error: str | None = None,
) -> ResearcherReport:
    """The branch's report, announced: failed when `error` is given, empty when it found no source
    (its searches ran; what they returned was not relevant, as its `sources_dropped` events say)."""
    status: ResearcherOutcome = "failed" if error else "done" if sources else "empty"
    report = ResearcherReport(
        researcher_id=task.researcher_id,
        kind=task.kind,
        question=task.question,
        iteration=task.iteration,
        queries=list(queries),
        source_ids=[s.id for s in sources],
        notes=notes,
        seconds=seconds,
        status=status,
        error=error,
    )
    finished = ResearcherFinished(
        kind=report.kind,
        status=report.status,
        source_ids=list(report.source_ids),
        seconds=report.seconds,
        notes=report.notes,
        error=report.error,
    )
    emit(finished, researcher_id=report.researcher_id, iteration=report.iteration)
    return report


def failed_branch(task: ResearcherTask, exc: Exception, secrets: Iterable[str]) -> ResearcherState:
    """What a branch that raised hands back: a failed report and a warning (one broken researcher
    must not end the run). The message is masked: exception texts may quote a key."""
    message = mask(f"{type(exc).__name__}: {exc}", secrets)
    warn(task.researcher_id, f"researcher failed: {message}", researcher_id=task.researcher_id)
    report = report_branch(task, error=message)
    return {"reports": [report], "warnings": [RunWarning(source=task.researcher_id, message=message)]}
