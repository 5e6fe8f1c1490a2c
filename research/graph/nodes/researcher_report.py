"""A researcher branch's start and end, the same for the pipeline and the agent researcher: the
`researcher_started` / `researcher_finished` events and the report the parent graph keeps."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from research.events import PAYLOADS, EventType, emit
from research.graph.nodes.common import warn
from research.schemas import ResearcherReport, ResearcherTask, RunWarning, Source
from research.secrets import mask


def _emit_branch_event(type_: EventType, record: ResearcherTask | ResearcherReport) -> None:
    """The event carries the branch's id and round, and those of the record's fields its payload names."""
    data = record.model_dump(include=set(PAYLOADS[type_].model_fields))
    emit(type_, researcher_id=record.researcher_id, iteration=record.iteration, **data)


def announce_start(task: ResearcherTask) -> None:
    _emit_branch_event("researcher_started", task)


def finish(
    task: ResearcherTask,
    *,
    queries: Sequence[str] = (),
    sources: Sequence[Source] = (),
    notes: str = "",
    seconds: float = 0.0,
    error: str | None = None,
) -> ResearcherReport:
    """The branch's report, announced; it failed when `error` is given or no source was found."""
    if error is None and not sources:
        error = "no sources found"
    report = ResearcherReport(
        researcher_id=task.researcher_id,
        kind=task.kind,
        question=task.question,
        iteration=task.iteration,
        queries=list(queries),
        source_ids=[s.id for s in sources],
        notes=notes,
        seconds=seconds,
        status="failed" if error else "done",
        error=error,
    )
    _emit_branch_event("researcher_finished", report)
    return report


def failed_branch(task: ResearcherTask, exc: Exception, secrets: Iterable[str]) -> dict[str, Any]:
    """What a branch that raised hands back: a failed report and a warning (one broken researcher
    must not end the run). The message is masked: exception texts may quote a key."""
    message = mask(f"{type(exc).__name__}: {exc}", secrets)
    warn(task.researcher_id, f"researcher failed: {message}", researcher_id=task.researcher_id)
    report = finish(task, error=message)
    return {"reports": [report], "warnings": [RunWarning(source=task.researcher_id, message=message)]}
