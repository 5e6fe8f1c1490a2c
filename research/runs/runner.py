"""Runs the graph for one request: checkpoints, event log, and the final result.

The CLI calls `ResearchRunner.run`; the dashboard's run manager calls the same in a worker thread.
"""

from __future__ import annotations

import logging
import sqlite3
import time
import traceback
import uuid
from contextlib import contextmanager
from typing import Callable, Iterator

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from research.graph.allocation import parse_allocation
from research.brains.factory import make_brain
from research.graph.context import RunContext
from research.events import Event, EventAdapter
from research.graph.builder import build_graph
from research.logging_setup import configure_logging
from research.graph.nodes.plan_review import validate_plan_edit
from research.runs.store import RunStore
from research.schemas import ResearchRequest
from research.secrets import mask
from research.settings import Settings
from research.sources.library.store import Library, LibraryProvider
from research.sources.router import SourceRouter

log = logging.getLogger("research.runs.runner")
EventCallback = Callable[[Event], None]

# Our own state types, allowed through the checkpoint serializer's msgpack gate.
_STATE_TYPES = [
    ("research.schemas", name)
    for name in ("Source", "ResearcherTask", "ResearcherReport", "Critique", "QuestionCoverage",
                 "ResolvedAllocation", "ResearcherAllocation", "RunWarning", "Draft", "AnalystVerdict")
]


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
        self.store = store or RunStore(settings.runs_db)
        self.library = library or Library(settings.library_db)
        self.library.ensure_sample()
        self.sources = sources or SourceRouter(settings, lambda kind: LibraryProvider(self.library, kind))

    # --- starting and resuming ----------------------------------------------------------------
    def create(self, request: ResearchRequest) -> str:
        """Validate and register a run; returns its id. Raises AllocationError on a bad allocation."""
        if request.allocation:
            parse_allocation(request.allocation, self.settings.max_researchers)
        run_id = uuid.uuid4().hex[:12]
        self.store.create_run(run_id, request.topic, request.allocation, self._brain_label(request))
        return run_id

    def run(self, request: ResearchRequest, on_event: EventCallback | None = None, run_id: str | None = None) -> str:
        run_id = run_id or self.create(request)
        max_iterations = self.settings.max_iterations if request.max_iterations is None else request.max_iterations
        initial = {
            "run_id": run_id, "topic": request.topic, "requested_allocation": request.allocation,
            "max_iterations": max_iterations, "review_plan": request.review_plan,
        }
        self._execute(run_id, request, initial, on_event, started=True)
        return run_id

    def resume(self, run_id: str, on_event: EventCallback | None = None, llm: str | None = None) -> str:
        """Continue an interrupted run from its last checkpoint."""
        record = self.store.get_run(run_id)
        if record is None:
            raise KeyError(f"No run with id {run_id!r}")
        request = ResearchRequest(topic=record.topic, allocation=record.requested_allocation, llm=llm)  # type: ignore[arg-type]
        self.store.update_run(run_id, status="running", error=None)
        self._execute(run_id, request, None, on_event, started=False)
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
        request = ResearchRequest(topic=record.topic, allocation=record.requested_allocation, llm=llm)  # type: ignore[arg-type]
        self.store.update_run(run_id, status="running", error=None)
        answer = {"questions": questions, "allocation": parsed.notation if parsed else None}
        self._execute(run_id, request, Command(resume=answer), on_event, started=False, resumed_note=None)
        return run_id

    def check_plan_edit(self, run_id: str, questions: list[str] | None, allocation: str | None):
        """Validate a plan edit for a paused run without running anything (raises like continue_plan)."""
        record = self._paused_run(run_id)
        questions, parsed = validate_plan_edit(questions, allocation, max_researchers=self.settings.max_researchers)
        return record, questions, parsed

    def cancel_plan(self, run_id: str, on_event: EventCallback | None = None) -> None:
        """Cancel a run paused for plan review: status "cancelled" and a run_cancelled event."""
        self._paused_run(run_id)
        event = EventAdapter(run_id, start_seq=self.store.last_seq(run_id)).make(
            "run_cancelled", reason="Cancelled at plan review."
        )
        self.store.append_event(event)
        self.store.update_run(run_id, status="cancelled", finished_at=time.time())
        if on_event:
            on_event(event)

    def _paused_run(self, run_id: str):
        record = self.store.get_run(run_id)
        if record is None:
            raise KeyError(f"No run with id {run_id!r}")
        if record.status != "paused":
            raise PlanReviewError(f"Run {run_id} is not waiting for plan review (status: {record.status}).")
        return record

    # --- the run itself ---------------------------------------------------------------------------
    def _execute(
        self, run_id, request, initial, on_event, *, started: bool,
        resumed_note: str | None = "Resumed from the last checkpoint.",
    ) -> None:
        logged = set() if started else {
            (e.data.get("name", ""), e.data.get("content", "")) for e in self.store.events(run_id) if e.type == "message"
        }
        adapter = EventAdapter(run_id, start_seq=self.store.last_seq(run_id), logged_messages=logged)
        t0 = time.time()

        def publish(event: Event) -> None:
            self.store.append_event(event)
            self._on_event_side_effects(event)
            if on_event:
                on_event(event)

        settings = self.run_settings(request)
        brain = make_brain(settings, request.llm)
        if started:
            publish(adapter.make(
                "run_started", topic=request.topic, allocation_request=request.allocation,
                brain=brain.kind, model=brain.name, source_mode=settings.sources,
                max_iterations=initial["max_iterations"] if initial else self.settings.max_iterations,
            ))
        elif resumed_note:
            publish(adapter.make("warning", source="runner", message=resumed_note))
        ctx = RunContext(
            run_id=run_id, settings=settings, brain=brain, sources=self._sources_for(settings), store=self.store,
        )
        config = {
            "configurable": {"thread_id": run_id},
            # +1: graph.stream() parks a waiter for its output queue on one pool slot, so with
            # max_concurrency=1 no node could ever run (a deadlock); the setting counts tasks.
            "max_concurrency": self.settings.max_concurrency + 1,
            "recursion_limit": 100,
        }
        try:
            with self.checkpointer() as saver:
                graph = build_graph(max_consecutive_same=self.settings.max_consecutive_same, checkpointer=saver)
                for part in graph.stream(
                    initial, config, context=ctx, stream_mode=["custom", "updates"], subgraphs=True, version="v2"
                ):
                    for event in adapter.adapt(part):
                        publish(event)
                snapshot = graph.get_state(config)
                final = snapshot.values
        except Exception as exc:  # noqa: BLE001 - a failed run is recorded, never a crash of the host
            # Not log.exception: the log's secret filter only sees the message, not the traceback.
            log.error("Run %s failed\n%s", run_id, mask("".join(traceback.format_exception(exc)), self.settings.secret_values()))
            message = mask(f"{type(exc).__name__}: {exc}", self.settings.secret_values())
            publish(adapter.make("run_failed", error=message))
            self.store.update_run(run_id, status="failed", error=message, finished_at=time.time())
            return
        if snapshot.interrupts:  # paused for plan review: the checkpoint holds the pause
            publish(adapter.make("plan_review_requested", **snapshot.interrupts[0].value))
            self.store.update_run(run_id, status="paused")
            return
        seconds = round(time.time() - t0, 3)
        counts = {
            "sources": len(final.get("sources", [])),
            "researchers": len(final.get("reports", [])),
            "iterations": final.get("research_iterations", 0),
            "critiques": len(final.get("critiques", [])),
        }
        status = "finished" if final.get("draft") else "failed"
        publish(adapter.make("run_finished", status=status, seconds=seconds, counts=counts))
        self.store.update_run(run_id, status=status, finished_at=time.time(), source_count=counts["sources"], summary=counts)

    def _on_event_side_effects(self, event: Event) -> None:
        """Keep the run record and the first draft version in step with the event log."""
        if event.type == "allocation_decided":
            alloc = event.data["allocation"]
            self.store.update_run(
                event.run_id, allocation=f"{alloc['web']}{alloc['academic']}{alloc['book']}",
                allocation_origin=event.data["origin"],
            )
        elif event.type == "plan_approved":
            alloc = event.data["allocation"]
            self.store.update_run(
                event.run_id, allocation=f"{alloc['web']}{alloc['academic']}{alloc['book']}",
                allocation_origin=event.data["origin"],
            )
        elif event.type == "draft_ready":
            self.store.save_draft_version(event.run_id, event.data["markdown"], note="Writer's draft")

    @contextmanager
    def checkpointer(self) -> Iterator[SqliteSaver]:
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.settings.checkpoints_db, check_same_thread=False, timeout=30)
        # WAL (set by SqliteSaver.setup) with synchronous=NORMAL, as in the run store: a commit is
        # not fsynced. With FULL every checkpoint write fsynced the WAL while holding the saver's
        # one lock (1.1 ms a commit on a quiet disk, far more on a busy one), and every step of
        # every researcher writes one. A power cut may lose the last checkpoints (the run resumes
        # from an earlier one), never corrupt the file.
        conn.execute("PRAGMA synchronous=NORMAL")
        try:
            serde = JsonPlusSerializer(allowed_msgpack_modules=_STATE_TYPES)
            saver = SqliteSaver(conn, serde=SecretMaskingSerializer(serde, self.settings.secret_values()))
            yield saver
        finally:
            conn.close()

    def _brain_label(self, request: ResearchRequest) -> str:
        settings = self.run_settings(request)
        kind = request.llm if request.llm and request.llm != "auto" else settings.brain_kind()
        return "offline" if kind == "offline" else settings.model

    # --- per-run choices (the dashboard's run options) ------------------------------------------
    def run_settings(self, request: ResearchRequest) -> Settings:
        """The settings with this request's choices (model, fast model, sources mode) applied."""
        update = {k: v for k, v in (("model", request.model), ("fast_model", request.fast_model),
                                    ("sources", request.sources)) if v is not None}
        return self.settings.model_copy(update=update) if update else self.settings

    def _sources_for(self, settings: Settings) -> SourceRouter:
        if settings.sources == self.settings.sources:
            return self.sources
        return SourceRouter(settings, lambda kind: LibraryProvider(self.library, kind))


class SecretMaskingSerializer:
    """The checkpoint serializer, masking known secret values in every blob it writes.

    LangGraph checkpoints a failed task's exception text (its `__error__` write), and exception
    texts are where echoed keys end up. The mask keeps each byte length (msgpack frames strings by
    length), so a checkpoint still decodes: it reads '****' where a key was.
    """

    MIN_SECRET_BYTES = 8  # shorter values could match unrelated bytes and corrupt a checkpoint

    def __init__(self, inner: JsonPlusSerializer, secrets: list[str]) -> None:
        self.inner = inner
        self._secrets = [s.encode() for s in secrets if len(s.encode()) >= self.MIN_SECRET_BYTES]

    def dumps_typed(self, obj: object) -> tuple[str, bytes]:
        type_, data = self.inner.dumps_typed(obj)
        for secret in self._secrets:
            data = data.replace(secret, b"*" * len(secret))
        return type_, data

    def loads_typed(self, data: tuple[str, bytes]) -> object:
        return self.inner.loads_typed(data)


class PlanReviewError(RuntimeError):
    """Continue/cancel asked of a run that is not paused for plan review."""


