"""The run-control protocol the dashboard drives runs through, and the part both managers share.

`RunControl` is all a caller may use: start, resume, continue or cancel a paused plan, a run's
liveness, the orphan message, the run store and the library. Two managers implement it over
`ManagedRuns`, which writes start / resume / continue_plan / cancel_plan once (the checks in the
caller's thread, the work in a daemon thread of this process, or in the caller's with `block`):
the in-process `RunManager` (research/runs/manager.py) and the LangGraph Server client
`RemoteRunManager` (research/runs/remote.py). Each supplies only how it starts, resumes and
continues a run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypedDict

from research.events import Event
from research.events.status import RunLiveness, RunStatus
from research.logging_setup import configure_logging
from research.runs.ledger import PlanEdit, RunLedger
from research.runs.run_threads import RunThreads
from research.runs.store import RunRecord, RunStore, open_run_store
from research.schemas.state_shapes import ResearchRequest
from research.settings import Settings
from research.sources.library.library_store import Library, LibraryProvider
from research.sources.router import SourceRouter

EventCallback = Callable[[Event], None]
Work = Callable[[], object]


class LocalParts(TypedDict, total=False):
    """What a caller may hand a runner or a manager instead of its building them from the settings."""

    store: RunStore | None
    library: Library | None
    sources: SourceRouter | None


def local_sources(
    settings: Settings, library: Library | None = None, sources: SourceRouter | None = None
) -> tuple[Library, SourceRouter]:
    """This process's library (with its sample documents) and source router, unless given."""
    library = library or Library(settings.library_db)
    library.ensure_sample()
    shared = library
    router = sources or SourceRouter(
        settings, lambda kind: LibraryProvider(shared, kind, max_text_chars=settings.max_source_text_chars)
    )
    return library, router


def local_side(settings: Settings, given: LocalParts) -> tuple[RunLedger, Library, SourceRouter]:
    """What stays in this process whatever runs the graph: logging set up, the run store and its
    checks (RunLedger), the library and the source router; each one given is used as it is."""
    if unknown := sorted(given.keys() - LocalParts.__optional_keys__):  # a misspelt part fails, as before
        raise TypeError(f"unexpected keyword arguments: {', '.join(unknown)}")
    configure_logging(settings)
    ledger = RunLedger(settings, given.get("store") or open_run_store(settings))
    library, sources = local_sources(settings, given.get("library"), given.get("sources"))
    return ledger, library, sources


class RunControl(Protocol):
    """How the dashboard starts and follows runs, wherever they execute."""

    @property
    def store(self) -> RunStore:
        """The run store the runs' event logs are read from."""
        ...

    @property
    def library(self) -> Library:
        """This process's document library (the Library page)."""
        ...

    @property
    def sources(self) -> SourceRouter:
        """This process's source router (the Settings page's provider list)."""
        ...

    @property
    def orphan_message(self) -> str | None:
        """What to tell a person about an orphaned run, when it differs from "it stopped with the
        app that ran it" (remote mode: the server may still run it); None otherwise."""
        ...

    def start(self, request: ResearchRequest) -> str: ...

    def resume(self, run_id: str) -> str: ...

    def continue_plan(self, run_id: str, questions: list[str] | None = None, allocation: str | None = None) -> str: ...

    def cancel_plan(self, run_id: str) -> None: ...

    def is_active(self, run_id: str) -> bool: ...

    def is_live(self, run_id: str) -> bool: ...

    def liveness(self, run_id: str) -> RunLiveness | None: ...

    def display_status(self, record: RunRecord) -> RunStatus: ...

    def is_orphaned(self, run_id: str) -> bool: ...

    def wait(self, run_id: str, timeout: float | None = None) -> bool: ...


class ManagedRuns(RunThreads):
    """start / resume / continue_plan / cancel_plan for both managers. A subclass says how a run
    is registered and started, whether and how it resumes, and how a checked plan edit continues."""

    orphan_message: str | None = None

    def __init__(self, ledger: RunLedger, library: Library, sources: SourceRouter) -> None:
        super().__init__(ledger.store)
        self.ledger = ledger
        self.library = library
        self.sources = sources

    def start(self, request: ResearchRequest) -> str:
        """Validate, register and start a run; returns its id at once (the run goes on in a
        thread). Raises before anything runs: AllocationError, or what the subclass checks."""
        run_id = self._register(request)
        self._spawn(run_id, self._start_work(run_id, request, None))
        return run_id

    def run(self, request: ResearchRequest, on_event: EventCallback | None = None, run_id: str | None = None) -> str:
        """Start a run and follow it to its end in this thread (the CLI)."""
        run_id = run_id or self._register(request)
        self._start_work(run_id, request, on_event)()
        return run_id

    def resume(self, run_id: str, on_event: EventCallback | None = None, *, block: bool = False) -> str:
        """Resume a stopped run here (nothing happens if a thread here already follows it). Errors
        (no such run, not resumable, run elsewhere, server down) are raised before anything runs."""
        with self._lock:  # two sessions here cannot both start it
            thread = self._threads.get(run_id)
            if thread and thread.is_alive():
                return run_id
            work = self._resume_work(run_id, on_event)
            if work is None:
                return run_id
            if not block:
                self._spawn_locked(run_id, work)
                return run_id
        work()
        return run_id

    def continue_plan(
        self,
        run_id: str,
        questions: list[str] | None = None,
        allocation: str | None = None,
        *,
        on_event: EventCallback | None = None,
        block: bool = False,
    ) -> str:
        """Continue a run paused for plan review with the user's edits (None keeps that part).
        A bad edit, or a run that is not paused, raises here, before anything runs."""
        edit = self.ledger.check_plan_edit(run_id, questions, allocation)
        work = self._continue_work(edit, on_event)
        work() if block else self._spawn(run_id, work)
        return run_id

    def cancel_plan(self, run_id: str) -> None:
        """Cancel a run paused for plan review (its store records it; nothing runs)."""
        self.ledger.cancel_plan(run_id)

    # --- what each manager supplies --------------------------------------------------------------
    def _register(self, request: ResearchRequest) -> str:
        raise NotImplementedError

    def _start_work(self, run_id: str, request: ResearchRequest, on_event: EventCallback | None) -> Work:
        raise NotImplementedError

    def _resume_work(self, run_id: str, on_event: EventCallback | None) -> Work | None:
        """Check that the run may resume here (raise if not); the work, or None if there is none."""
        raise NotImplementedError

    def _continue_work(self, edit: PlanEdit, on_event: EventCallback | None) -> Work:
        """Take the run for a checked edit (raise if another process has it); the work."""
        raise NotImplementedError
