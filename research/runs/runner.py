"""Runs the graph for one request: checkpoints, event log, and the final result.

The CLI calls `ResearchRunner.run`; the dashboard's run manager calls the same in a worker thread.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Unpack

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.types import Command

from research.brains.factory import make_brain
from research.events import Event, EventAdapter
from research.events.payloads import RunFailed, Warning
from research.events.status import RunStatus
from research.events.steps import next_attempt
from research.graph.builder import build_graph
from research.graph.context import RunContext, RunSpec, spec_for, with_controls
from research.graph.services import RunEnv, ServiceRegistry
from research.graph.state import ResearchState, shape_input
from research.logging_setup import run_id_scope
from research.runs.checkpoints import open_checkpointer
from research.runs.control import LocalParts, local_side
from research.runs.daily_cap import daily_allowance
from research.runs.event_effects import apply_event
from research.runs.heap import freeze_long_lived
from research.runs.lease import Heartbeat, RunBusyError, claim, new_owner_id
from research.runs.ledger import PlanEdit, PlanReviewError, RunNotResumableError
from research.runs.publisher import RunPublisher
from research.runs.store import DuplicateEventError, RunRecord
from research.runs.tracing import run_trace_config
from research.schemas.researchers import ResearcherAllocation
from research.schemas.state_shapes import ResearchRequest
from research.secrets import mask
from research.settings import Settings
from research.sources.library.library_store import LibraryProvider
from research.sources.router import SourceRouter

log = logging.getLogger("research.runs.runner")
EventCallback = Callable[[Event], None]

__all__ = [
    "PlanReviewError",
    "ResearchRunner",
    "RunBusyError",
    "RunNotResumableError",
]


class ResearchRunner:
    def __init__(self, settings: Settings, **given: Unpack[LocalParts]) -> None:
        self.ledger, self.library, self.sources = local_side(settings, given)
        self.store = self.ledger.store
        self.store.mask_secrets(settings.secret_values())  # also a store handed in (a key echoed by a model)
        self.owner = new_owner_id()  # this runner's name on the leases it holds
        # The graph's nodes find this runner's services here, through their runtime's RunEnv.
        self.services = ServiceRegistry(settings)

    @property
    def settings(self) -> Settings:
        return self.ledger.settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        """New settings for the runs started from now on (the ledger's checks read the same)."""
        self.ledger.settings = settings

    # --- starting and resuming ----------------------------------------------------------------
    def create(self, request: ResearchRequest) -> str:
        """Validate and register a run, and take its lease; returns its id. Raises AllocationError."""
        run_id = self.ledger.register(request)
        # Held from the first moment the run is stored as running, so no other process sees it
        # unowned (an orphan) before its first event; _execute renews it.
        self.claim(run_id)
        return run_id

    def run(self, request: ResearchRequest, on_event: EventCallback | None = None, run_id: str | None = None) -> str:
        run_id = run_id or self.create(request)
        initial: ResearchState = {
            "run_id": run_id,
            "topic": request.topic,
            "requested_allocation": request.allocation,
            "max_iterations": self.ledger.max_iterations(request),
            "review_plan": request.review_plan,
            **shape_input(request.report_shape),
        }
        self._execute(run_id, request, initial, on_event, fresh=True)
        return run_id

    def claim(self, run_id: str) -> None:
        """Take the run's lease for this runner (re-entrant); RunBusyError if another live one has it."""
        claim(self.store, run_id, self.owner, self.settings.run_lease_seconds)

    def claim_for_resume(self, run_id: str) -> RunRecord:
        """Check that the run may be resumed here and take its lease; returns its record.

        Raises KeyError (no such run), RunNotResumableError (finished, cancelled or paused) or
        RunBusyError (another live process runs it) before anything runs.
        """
        record = self.ledger.resumable(run_id)
        self.claim(run_id)
        return record

    def resume(self, run_id: str, on_event: EventCallback | None = None, llm: str | None = None) -> str:
        """Continue an interrupted run from its last checkpoint, or start it again if it stopped
        before its first one (nothing of the graph's work was kept)."""
        record = self.claim_for_resume(run_id)
        request = self.ledger.stored_request(record, llm)
        with self.checkpointer() as saver:
            latest = saver.get_tuple({"configurable": {"thread_id": run_id}})
        # Step -1 is the input alone (written before any node ran): nothing of the graph's work is kept.
        checkpointed = latest is not None and (latest.metadata or {}).get("step", 0) >= 0
        self.store.update_run(run_id, status=RunStatus.RUNNING, error=None)
        if checkpointed:
            self._execute(run_id, request, None, on_event, fresh=False)
            return run_id
        started = self.ledger.run_started(run_id)
        max_iterations = started.max_iterations if started else None
        initial: ResearchState = {
            "run_id": run_id,
            "topic": record.topic,
            "requested_allocation": record.requested_allocation,
            "max_iterations": self.settings.max_iterations if max_iterations is None else max_iterations,
            "review_plan": started.review_plan if started else False,  # recorded by run_started
            **shape_input(request.report_shape),  # recorded by run_started too (stored_request)
        }
        self._execute(
            run_id,
            request,
            initial,
            on_event,
            fresh=started is None,
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
        edit = self.ledger.check_plan_edit(run_id, questions, allocation)
        self.claim(run_id)  # two replicas' Continue: one wins
        self.continue_checked(edit, on_event=on_event, llm=llm)
        return run_id

    def continue_checked(
        self, edit: PlanEdit, *, on_event: EventCallback | None = None, llm: str | None = None
    ) -> None:
        """Run the rest of a paused run with a checked edit, its lease already taken."""
        run_id = edit.record.run_id
        request = self.ledger.stored_request(edit.record, llm)
        self.store.update_run(run_id, status=RunStatus.RUNNING, error=None)
        self._execute(run_id, request, Command(resume=edit.answer()), on_event, fresh=False, resumed_note=None)

    def stored_request(self, record: RunRecord, llm: str | None = None) -> ResearchRequest:
        """The request a run started with (see RunLedger.stored_request)."""
        return self.ledger.stored_request(record, llm)

    def check_plan_edit(
        self, run_id: str, questions: list[str] | None, allocation: str | None
    ) -> tuple[RunRecord, list[str] | None, ResearcherAllocation | None]:
        """Validate a plan edit for a paused run without running anything (raises like continue_plan)."""
        edit = self.ledger.check_plan_edit(run_id, questions, allocation)
        return edit.record, edit.questions, edit.allocation

    def cancel_plan(self, run_id: str, on_event: EventCallback | None = None) -> None:
        """Cancel a run paused for plan review: status "cancelled" and a run_cancelled event."""
        self.ledger.cancel_plan(run_id, on_event)

    # --- the run itself ---------------------------------------------------------------------------
    def _execute(
        self,
        run_id: str,
        request: ResearchRequest,
        initial: ResearchState | Command[Any] | None,
        on_event: EventCallback | None,
        *,
        fresh: bool,
        resumed_note: str | None = "Resumed from the last checkpoint.",
    ) -> None:
        """Run the graph from `initial` under the run's lease. `fresh`: the run's log has nothing
        of an earlier attempt (a first start), so no run_started is logged already."""
        self.claim(run_id)  # ours since create/claim
        heartbeat = Heartbeat(self.store, run_id, self.owner, self.settings.run_lease_seconds).start()
        try:
            self._execute_leased(run_id, request, initial, on_event, heartbeat, fresh=fresh, resumed_note=resumed_note)
        except (LeaseLostError, DuplicateEventError) as exc:
            # Another process runs this run now: write nothing more (its log must stay its own).
            log.warning("Run %s: stopped here, %s", run_id, exc)
        finally:
            heartbeat.stop()
        freeze_long_lived()  # after the process's first run only: its long-lived heap is built (heap.py)

    def _execute_leased(
        self,
        run_id: str,
        request: ResearchRequest,
        initial: ResearchState | Command[Any] | None,
        on_event: EventCallback | None,
        heartbeat: Heartbeat,
        *,
        fresh: bool,
        resumed_note: str | None,
    ) -> None:
        earlier = [] if fresh else self.store.events(run_id)
        logged_once = frozenset({"run_started"}) if any(e.type == "run_started" for e in earlier) else frozenset()
        adapter = EventAdapter(
            run_id,
            start_seq=self.store.last_seq(run_id),
            logged_once=logged_once,
            attempt=next_attempt(earlier),  # a step run again supersedes its interrupted attempt's events
        )

        def publish(event: Event) -> None:
            if heartbeat.lost.is_set():
                raise LeaseLostError(f"run {run_id}'s lease was taken over")
            self.store.append_event(event)
            self._on_event_side_effects(event)
            if on_event:
                on_event(event)

        # The nodes publish their events themselves, from their own threads (publisher.py).
        publisher = RunPublisher(adapter, publish)
        settings = self.run_settings(request)
        brain = make_brain(
            settings, request.llm, allowance=daily_allowance(self.store, settings, run_id, request.started_by)
        )
        # A resumed run's request carries the mode it started with (stored_request).
        mode = request.researcher_mode or self.settings.researcher_mode
        if not fresh and resumed_note:
            publisher.publish(Warning(source="runner", message=resumed_note))
        # The graph gets the run's JSON spec with this runner's registry, where its services are
        # bound by run id, so the nodes use this runner's store and router (run_started/run_finished
        # come from the graph).
        ctx = RunContext(
            run_id=run_id,
            settings=settings,
            brain=brain,
            sources=self._sources_for(settings),
            store=self.store,
            researcher_mode=mode,
            event_log=publisher,
        )
        config: RunnableConfig = {
            "configurable": {"thread_id": run_id},
            "max_concurrency": self.settings.max_concurrency,
            "recursion_limit": 100,
            **run_trace_config(run_id, settings.secret_values()),  # type: ignore[typeddict-item]
        }
        self.services.bind(ctx)
        try:
            with self.checkpointer() as saver, run_id_scope(run_id, topic=request.topic):
                graph = build_graph(max_consecutive_same=self.settings.max_consecutive_same, checkpointer=saver)
                # No stream to drain: the events are published as the nodes make them.
                env = RunEnv(self._spec(run_id, request, mode, settings), self.services)
                graph.invoke(initial, config, context=env)
        except (LeaseLostError, DuplicateEventError):
            raise  # another process runs it now (see _execute)
        except Exception as exc:  # noqa: BLE001 - a failed run is recorded, never a crash of the host
            # Not log.exception: the log's secret filter only sees the message, not the traceback.
            log.error(
                "Run %s failed\n%s",
                run_id,
                mask("".join(traceback.format_exception(exc)), self.settings.secret_values()),
            )
            publisher.finish(RunFailed(error=mask(f"{type(exc).__name__}: {exc}", self.settings.secret_values())))
        finally:
            publisher.finish()  # a lost lease too: nothing more of this run from here
            self.services.unbind(run_id)

    def _spec(self, run_id: str, request: ResearchRequest, mode: str, settings: Settings) -> RunSpec:
        spec = with_controls(spec_for(run_id, settings, request.llm), request.source_controls)
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

    # --- per-run choices (the dashboard's run options) ------------------------------------------
    def run_settings(self, request: ResearchRequest) -> Settings:
        """The settings with this request's choices (model, fast model, sources mode) applied."""
        return self.ledger.run_settings(request)

    def _sources_for(self, settings: Settings) -> SourceRouter:
        if settings.sources == self.settings.sources:
            return self.sources
        return SourceRouter(settings, lambda kind: LibraryProvider(self.library, kind))


class LeaseLostError(RuntimeError):
    """This runner's lease on the run lapsed and another process took it over."""
