"""What every way of running a run checks and records in the run store before anything runs:
registering a run, whether it may be resumed, a plan edit, cancelling at plan review, and the
request a run started with. The in-process runner and the remote manager share it (one copy of
each rule), each with the store and settings it was given.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

from pydantic import ValidationError

from research.brains.llm.availability import check_brain
from research.events import Event, EventAdapter
from research.events.payloads import RunCancelled, RunStarted
from research.events.status import RunStatus
from research.graph.allocation import parse_allocation
from research.graph.nodes.plan_review import validate_plan_edit
from research.graph.state import PlanAnswer
from research.runs.event_effects import apply_event
from research.runs.store import RunRecord, RunStore
from research.schemas.researchers import ResearcherAllocation
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings

log = logging.getLogger("research.runs.ledger")
EventCallback = Callable[[Event], None]

# Statuses `resume` refuses: the run is over, or it waits for a person (continue/cancel its plan).
_NOT_RESUMABLE = {
    RunStatus.FINISHED: "it has finished",
    RunStatus.CANCELLED: "it was cancelled",
    RunStatus.PAUSED: "it is waiting for plan review (continue or cancel it)",
}


class PlanReviewError(RuntimeError):
    """Continue/cancel asked of a run that is not paused for plan review."""


class RunNotResumableError(RuntimeError):
    """Resume asked of a run that is finished, cancelled or paused for plan review."""


class PlanEdit:
    """A checked plan edit of a paused run: its record, the questions (None keeps them) and the
    allocation (None keeps it)."""

    def __init__(self, record: RunRecord, questions: list[str] | None, allocation: ResearcherAllocation | None) -> None:
        self.record, self.questions, self.allocation = record, questions, allocation

    def answer(self) -> PlanAnswer:
        """What the paused graph is resumed with (plan_review's interrupt reads it)."""
        return PlanAnswer(questions=self.questions, allocation=self.allocation.notation if self.allocation else None)


class RunLedger:
    def __init__(self, settings: Settings, store: RunStore) -> None:
        self.settings = settings
        self.store = store

    def register(self, request: ResearchRequest) -> str:
        """Validate and store a new run (status running); returns its id. Raises AllocationError."""
        if request.allocation:
            parse_allocation(request.allocation, self.settings.max_researchers)
        check_brain(self.settings, request.llm)  # BrainUnavailable: asked for a model, none configured
        run_id = uuid.uuid4().hex[:12]
        self.store.create_run(run_id, request.topic, request.allocation, self._brain_label(request))
        return run_id

    def record(self, run_id: str) -> RunRecord:
        record = self.store.get_run(run_id)
        if record is None:
            raise KeyError(f"No run with id {run_id!r}")
        return record

    def resumable(self, run_id: str) -> RunRecord:
        """The run's record if it may be resumed; KeyError or RunNotResumableError otherwise."""
        record = self.record(run_id)
        if record.status in _NOT_RESUMABLE:
            raise RunNotResumableError(f"Run {run_id} cannot be resumed: {_NOT_RESUMABLE[record.status]}.")
        if self.store.is_imported(run_id):  # its checkpoints stayed on the machine that ran it
            raise RunNotResumableError(f"Run {run_id} cannot be resumed: it was imported from a bundle.")
        return record

    def paused(self, run_id: str) -> RunRecord:
        """The record of a run paused for plan review; KeyError or PlanReviewError otherwise."""
        record = self.record(run_id)
        if record.status != RunStatus.PAUSED:
            raise PlanReviewError(f"Run {run_id} is not waiting for plan review (status: {record.status}).")
        return record

    def check_plan_edit(self, run_id: str, questions: list[str] | None, allocation: str | None) -> PlanEdit:
        """Validate a plan edit for a paused run without running anything (PlanEditError if bad)."""
        record = self.paused(run_id)
        questions, parsed = validate_plan_edit(questions, allocation, max_researchers=self.settings.max_researchers)
        return PlanEdit(record, questions, parsed)

    def cancel_plan(self, run_id: str, on_event: EventCallback | None = None) -> None:
        """Cancel a run paused for plan review: status "cancelled" and a run_cancelled event."""
        self.paused(run_id)
        event = EventAdapter(run_id, start_seq=self.store.last_seq(run_id)).make(
            RunCancelled(reason="Cancelled at plan review.")
        )
        self.store.append_event(event)
        apply_event(self.store, event)
        if on_event:
            on_event(event)

    def run_started(self, run_id: str) -> RunStarted | None:
        """The run's run_started payload, if it has one."""
        started = next((e.data for e in self.store.events(run_id) if e.type == "run_started"), None)
        return started if isinstance(started, RunStarted) else None

    def stored_request(self, record: RunRecord, llm: str | None = None) -> ResearchRequest:
        """The request a run started with, as its run_started event recorded it (brain, models,
        sources mode, researcher mode, who started it), so a resumed or continued run keeps its
        choices; `llm` overrides the brain. A run with no run_started yet gets the defaults."""
        values = {"topic": record.topic, "allocation": record.requested_allocation, "llm": llm}
        started = self.run_started(record.run_id)
        if started is None:
            return ResearchRequest.model_validate(values)
        brain = llm or (started.brain if started.brain in ("offline", "openai") else None)
        choices = {
            "llm": brain,
            "model": started.model if brain == "openai" and started.model else None,
            "fast_model": started.fast_model if brain == "openai" else None,
            "sources": started.source_mode or None,
            "researcher_mode": started.researcher_mode,
            "started_by": started.started_by,
            "review_plan": started.review_plan,
            "source_controls": started.source_controls,
        }
        try:
            return ResearchRequest.model_validate({**values, **choices})
        except ValidationError:  # a log from an older version, or edited: the defaults then
            log.warning("Run %s: its recorded choices do not fit a request; resuming with defaults", record.run_id)
            return ResearchRequest.model_validate(values)

    def run_settings(self, request: ResearchRequest) -> Settings:
        """The settings with this request's choices (model, fast model, sources mode) applied."""
        update = {
            k: v
            for k, v in (("model", request.model), ("fast_model", request.fast_model), ("sources", request.sources))
            if v is not None
        }
        return self.settings.model_copy(update=update) if update else self.settings

    def max_iterations(self, request: ResearchRequest) -> int:
        return self.settings.max_iterations if request.max_iterations is None else request.max_iterations

    def _brain_label(self, request: ResearchRequest) -> str:
        settings = self.run_settings(request)
        kind = request.llm if request.llm and request.llm != "auto" else settings.brain_kind()
        return "offline" if kind == "offline" else settings.model
