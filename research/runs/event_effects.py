"""Keeps a run's record (and its first draft version) in step with its event log.

One function for every host: the in-process runner and the remote run manager call it for each
event they append, so a run's status comes from its own events (run_finished says whether the
research produced a draft), never from whatever status the host reports.
"""

from __future__ import annotations

import time

from research.events import Event
from research.events import payloads as p
from research.runs.store import DuplicateEventError, RunStore
from research.secrets import mask

MAX_APPEND_TRIES = 50  # writers of one log (a worker, its client) racing for the next number


def log_event(store: RunStore, event: Event, secrets: list[str]) -> Event:
    """Append `event` as the log's next event and apply it to the run's record; returns it as
    logged. For logs with more than one writer (a server worker and the dashboard that follows it):
    a number another writer took is retried with the next one. Texts from outside (errors,
    warnings) may quote a key, so they are masked here."""
    logged = _log(store, event, secrets, while_open=False)
    assert logged is not None  # only a while-open append is ever refused
    return logged


def log_event_while_open(store: RunStore, event: Event, secrets: list[str]) -> Event | None:
    """`log_event`, unless the log already ends (run_finished or run_cancelled, written by another
    writer, such as a client cancelling the run): then None, and nothing is written or applied."""
    return _log(store, event, secrets, while_open=True)


def _log(store: RunStore, event: Event, secrets: list[str], *, while_open: bool) -> Event | None:
    if event.type in ("run_failed", "warning"):
        fields = event.data.model_dump()
        masked = {k: mask(v, secrets) if isinstance(v, str) else v for k, v in fields.items()}
        event = Event.model_validate({**event.model_dump(exclude={"data"}), "data": masked})
    for _ in range(MAX_APPEND_TRIES):
        event = event.model_copy(update={"seq": store.last_seq(event.run_id) + 1})
        try:
            if not store.append_event(event, while_open=while_open):
                return None
            break
        except DuplicateEventError:
            continue
    else:
        raise DuplicateEventError(f"run {event.run_id}: no free event number after {MAX_APPEND_TRIES} tries")
    apply_event(store, event)
    return event


def apply_event(store: RunStore, event: Event) -> None:
    match event.data:
        case (
            p.AllocationDecided(allocation=allocation, origin=origin)
            | p.PlanApproved(allocation=allocation, origin=origin)
        ):
            store.update_run(event.run_id, allocation=allocation.notation, allocation_origin=origin)
        case p.DraftReady() as d:  # the writer's draft is the run's version 1
            save_graph_draft(store, event, 1, d.markdown, note="Writer's draft")
        case p.DraftRevisedData() as d:  # the reviewer's versions, each with its reasons
            reasons = d.reasons
            note = f"Reviewer: {len(reasons)} changes" + (f" ({reasons[0][:80]}...)" if reasons else "")
            if d.report_shape is not None:  # a revision into another shape (research/runs/reshape.py)
                note = f"Revised: {reasons[0][:80] if reasons else d.report_shape}"
            save_graph_draft(store, event, d.version, d.markdown, note=note)
        case p.PlanReviewRequested():
            store.update_run(event.run_id, status="paused")
        case p.RunFinished() as d:
            store.update_run(
                event.run_id,
                status=d.status,
                finished_at=time.time(),
                source_count=d.counts.get("sources", 0),
                summary=d.counts,
            )
        case p.RunFailed() as d:
            store.update_run(event.run_id, status="failed", error=d.error, finished_at=time.time())
        case p.RunCancelled():
            store.update_run(event.run_id, status="cancelled", finished_at=time.time())


def save_graph_draft(store: RunStore, event: Event, version: int, markdown: str, note: str) -> None:
    """A draft version the graph made. A resumed step that made it again replaces the version its
    interrupted attempt saved, so the run keeps the versions an uninterrupted run has."""
    if event.step is not None and event.step.attempt > 1 and _repeats(store, event, version):
        store.replace_draft_version(event.run_id, version, markdown, note=note)
    else:
        store.save_draft_version(event.run_id, markdown, note=note)


def _repeats(store: RunStore, event: Event, version: int) -> bool:
    """Whether an earlier attempt of `event`'s step logged the same draft version."""
    step = event.step
    return step is not None and any(
        e.type == event.type
        and e.step is not None
        and e.step.task == step.task
        and e.step.attempt < step.attempt
        and (not isinstance(e.data, p.DraftRevisedData) or e.data.version == version)
        for e in store.events(event.run_id)
    )
