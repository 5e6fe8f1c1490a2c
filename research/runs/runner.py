"""Runs the graph for one request: checkpoints, event log, and the final result.

The CLI calls `ResearchRunner.run`; the dashboard's run manager calls the same in a worker thread.
"""

from __future__ import annotations

import logging
import traceback
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command
from pydantic import ValidationError

from research.brains.factory import make_brain
from research.events import Event, EventAdapter, payloads
from research.events.payloads import RunCancelled, RunFailed, RunStarted, Warning
from research.events.status import RunStatus
from research.graph import services
from research.graph.allocation import parse_allocation
from research.graph.builder import build_graph
from research.graph.context import RunContext, RunSpec, spec_for
from research.graph.nodes.plan_review import validate_plan_edit
from research.graph.state import PlanAnswer, ResearchState
from research.logging_setup import configure_logging, run_id_scope
from research.runs.checkpoints import open_checkpointer
from research.runs.event_effects import apply_event
from research.runs.lease import Heartbeat, RunBusyError, claim, new_owner_id
from research.runs.store import DuplicateEventError, RunRecord, RunStore, open_run_store
from research.schemas import ResearcherAllocation, ResearchRequest
from research.secrets import mask
from research.settings import Settings
from research.sources.library.store import Library, LibraryProvider
from research.sources.router import SourceRouter

log = logging.getLogger("research.runs.runner")
EventCallback = Callable[[Event], None]

__all__ = [
    "PlanReviewError",
    "ResearchRunner",
    "RunBusyError",
    "RunNotResumableError",
]
# Statuses `resume` refuses: the run is over, or it waits for a person (continue/cancel its plan).
_NOT_RESUMABLE = {
    RunStatus.FINISHED: "it has finished",
    RunStatus.CANCELLED: "it was cancelled",
    RunStatus.PAUSED: "it is waiting for plan review (continue or cancel it)",
}


class ResearchRunner:
    def __init__(
        self,
        settings: Settings,
        *,
        store: RunStore | None = None,
        library: Library | None = None,
        sources: SourceRouter | None = None,
    ) -> None:
        self.settings = settings
        configure_logging(settings)
        self.store = store or open_run_store(settings)
        self.owner = new_owner_id()  # this runner's name on the leases it holds
        self.library = library or Library(settings.library_db)
        self.library.ensure_sample()
        self.sources = sources or SourceRouter(
            settings, lambda kind: LibraryProvider(self.library, kind, max_text_chars=settings.max_source_text_chars)
        )

    # --- starting and resuming ----------------------------------------------------------------
    def create(self, request: ResearchRequest, *, lease: bool = True) -> str:
        """Validate and register a run; returns its id. Raises AllocationError on a bad allocation.
        `lease=False`: another process runs it and holds the lease (a server worker, remote mode)."""
        if request.allocation:
            parse_allocation(request.allocation, self.settings.max_researchers)
        run_id = uuid.uuid4().hex[:12]
        self.store.create_run(run_id, request.topic, request.allocation, self._brain_label(request))
        if lease:
            # Held from the first moment the run is stored as running, so no other process sees it
            # unowned (an orphan) before its first event; _execute renews it.
            claim(self.store, run_id, self.owner, self.settings.run_lease_seconds)
        return run_id

    def run(self, request: ResearchRequest, on_event: EventCallback | None = None, run_id: str | None = None) -> str:
        run_id = run_id or self.create(request)
        max_iterations = self.settings.max_iterations if request.max_iterations is None else request.max_iterations
        initial: ResearchState = {
            "run_id": run_id,
            "topic": request.topic,
            "requested_allocation": request.allocation,
            "max_iterations": max_iterations,
            "review_plan": request.review_plan,
        }
        self._execute(run_id, request, initial, on_event, started=True)
        return run_id

    def claim(self, run_id: str) -> None:
        """Take the run's lease for this runner (re-entrant); RunBusyError if another live one has it."""
        claim(self.store, run_id, self.owner, self.settings.run_lease_seconds)

    def claim_for_resume(self, run_id: str) -> RunRecord:
        """Check that the run may be resumed here and take its lease; returns its record.

        Raises KeyError (no such run), RunNotResumableError (finished, cancelled or paused) or
        RunBusyError (another live process runs it) before anything runs.
        """
        record = self.store.get_run(run_id)
        if record is None:
            raise KeyError(f"No run with id {run_id!r}")
        if record.status in _NOT_RESUMABLE:
            raise RunNotResumableError(f"Run {run_id} cannot be resumed: {_NOT_RESUMABLE[record.status]}.")
        claim(self.store, run_id, self.owner, self.settings.run_lease_seconds)
        return record

    def resume(self, run_id: str, on_event: EventCallback | None = None, llm: str | None = None) -> str:
        """Continue an interrupted run from its last checkpoint, or start it again if it stopped
        before its first one (nothing of the graph's work was kept)."""
        record = self.claim_for_resume(run_id)
        request = self.stored_request(record, llm)
        with self.checkpointer() as saver:
            latest = saver.get_tuple({"configurable": {"thread_id": run_id}})
        # Step -1 is the input alone (written before any node ran): nothing of the graph's work is kept.
        checkpointed = latest is not None and (latest.metadata or {}).get("step", 0) >= 0
        self.store.update_run(run_id, status=RunStatus.RUNNING, error=None)
        if checkpointed:
            self._execute(run_id, request, None, on_event, started=False)
            return run_id
        started = next((e.data for e in self.store.events(run_id) if isinstance(e.data, RunStarted)), None)
        max_iterations = started.max_iterations if started else None
        initial: ResearchState = {
            "run_id": run_id,
            "topic": record.topic,
            "requested_allocation": record.requested_allocation,
            "max_iterations": self.settings.max_iterations if max_iterations is None else max_iterations,
            "review_plan": started.review_plan if started else False,  # recorded by run_started
        }
        self._execute(
            run_id,
            request,
            initial,
            on_event,
            started=started is None,
            resumed_note="Restarted from the beginning: the run stopped before its first checkpoint.",
        )
        return run_id

    # --- plan review: a run paused after the supervisor ------------------------------------------
    def continue_plan(
        self,
        run_id: str,
        questions: list[str] | None = None,
        allocation: str | None = None,
        *,
        on_event: EventCallback | None = None,
        llm: str | None = None,
    ) -> str:
        """Resume a run paused for plan review, with the user's edits (None keeps that part).

        Raises KeyError (no such run), PlanReviewError (not paused) or PlanEditError (a bad edit)
        before anything runs; then runs the rest of the research in this thread.
        """
        record, questions, parsed = self.check_plan_edit(run_id, questions, allocation)
        claim(self.store, run_id, self.owner, self.settings.run_lease_seconds)  # two replicas' Continue: one wins
        request = self.stored_request(record, llm)
        self.store.update_run(run_id, status=RunStatus.RUNNING, error=None)
        answer = PlanAnswer(questions=questions, allocation=parsed.notation if parsed else None)
        self._execute(run_id, request, Command(resume=answer), on_event, started=False, resumed_note=None)
        return run_id

    def stored_request(self, record: RunRecord, llm: str | None = None) -> ResearchRequest:
        """The request a run started with, as its run_started event recorded it (brain, models,
        sources mode, researcher mode, who started it), so a resumed or continued run keeps its
        choices; `llm` overrides the brain. A run with no run_started yet gets the defaults."""
        values = {"topic": record.topic, "allocation": record.requested_allocation, "llm": llm}
        started = next((e.data for e in self.store.events(record.run_id) if e.type == "run_started"), None)
        if not isinstance(started, RunStarted):
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
        }
        try:
            return ResearchRequest.model_validate({**values, **choices})
        except ValidationError:  # a log from an older version, or edited: the defaults then
            log.warning("Run %s: its recorded choices do not fit a request; resuming with defaults", record.run_id)
            return ResearchRequest.model_validate(values)

    def check_plan_edit(
        self, run_id: str, questions: list[str] | None, allocation: str | None
    ) -> tuple[RunRecord, list[str] | None, ResearcherAllocation | None]:
        """Validate a plan edit for a paused run without running anything (raises like continue_plan)."""
        record = self._paused_run(run_id)
        questions, parsed = validate_plan_edit(questions, allocation, max_researchers=self.settings.max_researchers)
        return record, questions, parsed

    def cancel_plan(self, run_id: str, on_event: EventCallback | None = None) -> None:
        """Cancel a run paused for plan review: status "cancelled" and a run_cancelled event."""
        self._paused_run(run_id)
        event = EventAdapter(run_id, start_seq=self.store.last_seq(run_id)).make(
            RunCancelled(reason="Cancelled at plan review.")
        )
        self.store.append_event(event)
        apply_event(self.store, event)
        if on_event:
            on_event(event)

    def _paused_run(self, run_id: str) -> RunRecord:
        record = self.store.get_run(run_id)
        if record is None:
            raise KeyError(f"No run with id {run_id!r}")
        if record.status != RunStatus.PAUSED:
            raise PlanReviewError(f"Run {run_id} is not waiting for plan review (status: {record.status}).")
        return record

    # --- the run itself ---------------------------------------------------------------------------
    def _execute(
        self,
        run_id: str,
        request: ResearchRequest,
        initial: ResearchState | Command[Any] | None,
        on_event: EventCallback | None,
        *,
        started: bool,
        resumed_note: str | None = "Resumed from the last checkpoint.",
    ) -> None:
        logged: set[tuple[str, str]] = (
            set()
            if started
            else {
                (e.data.name, e.data.content) for e in self.store.events(run_id) if isinstance(e.data, payloads.Message)
            }
        )
        claim(self.store, run_id, self.owner, self.settings.run_lease_seconds)  # ours since create/claim
        heartbeat = Heartbeat(self.store, run_id, self.owner, self.settings.run_lease_seconds).start()
        try:
            self._execute_leased(
                run_id, request, initial, on_event, heartbeat, started=started, resumed_note=resumed_note, logged=logged
            )
        except (LeaseLostError, DuplicateEventError) as exc:
            # Another process runs this run now: write nothing more (its log must stay its own).
            log.warning("Run %s: stopped here, %s", run_id, exc)
        finally:
            heartbeat.stop()

    def _execute_leased(
        self,
        run_id: str,
        request: ResearchRequest,
        initial: ResearchState | Command[Any] | None,
        on_event: EventCallback | None,
        heartbeat: Heartbeat,
        *,
        started: bool,
        resumed_note: str | None,
        logged: set[tuple[str, str]],
    ) -> None:
        has_started = not started and any(e.type == "run_started" for e in self.store.events(run_id))
        logged_once = frozenset({"run_started"}) if has_started else frozenset()
        adapter = EventAdapter(
            run_id, start_seq=self.store.last_seq(run_id), logged_messages=logged, logged_once=logged_once
        )

        def publish(event: Event) -> None:
            if heartbeat.lost.is_set():
                raise LeaseLostError(f"run {run_id}'s lease was taken over")
            self.store.append_event(event)
            self._on_event_side_effects(event)
            if on_event:
                on_event(event)

        settings = self.run_settings(request)
        brain = make_brain(settings, request.llm)
        # A resumed run's request carries the mode it started with (stored_request).
        mode = request.researcher_mode or self.settings.researcher_mode
        if not started and resumed_note:
            publish(adapter.make(Warning(source="runner", message=resumed_note)))
        # The graph gets a JSON spec; this process's services for it are bound by run id, so the
        # nodes use this runner's store and router (run_started/run_finished come from the graph).
        ctx = RunContext(
            run_id=run_id,
            settings=settings,
            brain=brain,
            sources=self._sources_for(settings),
            store=self.store,
            researcher_mode=mode,
        )
        config: RunnableConfig = {
            "configurable": {"thread_id": run_id},
            # +1: graph.stream() parks a waiter for its output queue on one pool slot, so with
            # max_concurrency=1 no node could ever run (a deadlock); the setting counts tasks.
            "max_concurrency": self.settings.max_concurrency + 1,
            "recursion_limit": 100,
        }
        services.bind(ctx)
        try:
            with self.checkpointer() as saver, run_id_scope(run_id):
                graph = build_graph(max_consecutive_same=self.settings.max_consecutive_same, checkpointer=saver)
                for part in graph.stream(
                    initial,
                    config,
                    context=self._spec(run_id, request, mode, settings),
                    stream_mode=["custom", "updates"],
                    subgraphs=True,
                    version="v2",
                ):
                    for event in adapter.adapt(part):
                        publish(event)
        except (LeaseLostError, DuplicateEventError):
            raise  # another process runs it now (see _execute)
        except Exception as exc:  # noqa: BLE001 - a failed run is recorded, never a crash of the host
            # Not log.exception: the log's secret filter only sees the message, not the traceback.
            log.error(
                "Run %s failed\n%s",
                run_id,
                mask("".join(traceback.format_exception(exc)), self.settings.secret_values()),
            )
            publish(adapter.make(RunFailed(error=mask(f"{type(exc).__name__}: {exc}", self.settings.secret_values()))))
        finally:
            services.unbind(run_id)

    def _spec(self, run_id: str, request: ResearchRequest, mode: str, settings: Settings) -> RunSpec:
        spec = spec_for(run_id, settings, request.llm)
        spec["researcher_mode"] = mode
        if request.started_by:
            spec["started_by"] = request.started_by
        return spec

    def _on_event_side_effects(self, event: Event) -> None:
        apply_event(self.store, event)

    @contextmanager
    def checkpointer(self) -> Iterator[BaseCheckpointSaver[str]]:
        with open_checkpointer(self.settings) as saver:
            yield saver

    def _brain_label(self, request: ResearchRequest) -> str:
        settings = self.run_settings(request)
        kind = request.llm if request.llm and request.llm != "auto" else settings.brain_kind()
        return "offline" if kind == "offline" else settings.model

    # --- per-run choices (the dashboard's run options) ------------------------------------------
    def run_settings(self, request: ResearchRequest) -> Settings:
        """The settings with this request's choices (model, fast model, sources mode) applied."""
        update = {
            k: v
            for k, v in (("model", request.model), ("fast_model", request.fast_model), ("sources", request.sources))
            if v is not None
        }
        return self.settings.model_copy(update=update) if update else self.settings

    def _sources_for(self, settings: Settings) -> SourceRouter:
        if settings.sources == self.settings.sources:
            return self.sources
        return SourceRouter(settings, lambda kind: LibraryProvider(self.library, kind))


class PlanReviewError(RuntimeError):
    """Continue/cancel asked of a run that is not paused for plan review."""


class RunNotResumableError(RuntimeError):
    """Resume asked of a run that is finished, cancelled or paused for plan review."""


class LeaseLostError(RuntimeError):
    """This runner's lease on the run lapsed and another process took it over."""
