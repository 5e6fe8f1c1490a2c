"""Runs research off the caller's thread, so a dashboard rerun never kills a run.

One manager per process (the dashboard caches it as a shared resource); runs are keyed by run id,
so two browser sessions can run different topics at once without mixing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from research.events.status import RunLiveness, RunStatus, display_status, liveness
from research.runs.lease import live_lease
from research.runs.runner import ResearchRunner
from research.runs.store import RunRecord
from research.schemas import ResearchRequest


class RunManager:
    def __init__(self, runner: ResearchRunner) -> None:
        self.runner = runner
        self.store = runner.store
        self._threads: dict[str, threading.Thread] = {}
        self._lock = threading.Lock()

    def start(self, request: ResearchRequest) -> str:
        """Validate, register and start a run; returns its id at once. Raises AllocationError."""
        run_id = self.runner.create(request)
        self._spawn(run_id, lambda: self.runner.run(request, run_id=run_id))
        return run_id

    def resume(self, run_id: str) -> str:
        """Resume a stopped run here. Raises RunBusyError (another process runs it) or
        RunNotResumableError (finished, cancelled, paused) at once, before anything runs."""
        with self._lock:
            thread = self._threads.get(run_id)
            if thread and thread.is_alive():
                return run_id
            self.runner.claim_for_resume(run_id)  # under the lock: two sessions here cannot both spawn
            self._spawn_locked(run_id, lambda: self.runner.resume(run_id))
        return run_id

    def continue_plan(self, run_id: str, questions: list[str] | None = None, allocation: str | None = None) -> str:
        """Continue a run paused for plan review. A bad edit raises here, before anything runs."""
        self.runner.check_plan_edit(run_id, questions, allocation)
        self.runner.claim(run_id)  # RunBusyError here, not in the thread, if another process continued it
        self._spawn(run_id, lambda: self.runner.continue_plan(run_id, questions, allocation))
        return run_id

    def cancel_plan(self, run_id: str) -> None:
        self.runner.cancel_plan(run_id)

    def is_active(self, run_id: str) -> bool:
        with self._lock:
            thread = self._threads.get(run_id)
            return bool(thread and thread.is_alive())

    def is_live(self, run_id: str) -> bool:
        """Run by a thread here or by any other live process (its lease is held)."""
        return self.is_active(run_id) or live_lease(self.store, run_id) is not None

    def liveness(self, run_id: str) -> RunLiveness | None:
        """Live, paused, ended or orphaned (None: no such run). See research.events.status."""
        record = self.store.get_run(run_id)
        if record is None:
            return None
        return liveness(record.status, running_somewhere=self.is_live(run_id))

    def display_status(self, record: RunRecord) -> RunStatus:
        """The run's status as a person should see it (an orphaned run reads "interrupted")."""
        return display_status(record.status, running_somewhere=self.is_live(record.run_id))

    def is_orphaned(self, run_id: str) -> bool:
        """Stored as running, but neither a thread here nor any live process holds its lease: the
        process that ran it has gone (killed, crashed, or its lease lapsed)."""
        return self.liveness(run_id) is RunLiveness.ORPHANED

    def wait(self, run_id: str, timeout: float | None = None) -> bool:
        with self._lock:
            thread = self._threads.get(run_id)
        if thread:
            thread.join(timeout)
        return not self.is_active(run_id)

    def _spawn(self, run_id: str, target: Callable[[], object]) -> None:
        with self._lock:
            self._spawn_locked(run_id, target)

    def _spawn_locked(self, run_id: str, target: Callable[[], object]) -> None:
        thread = threading.Thread(target=target, name=f"run-{run_id}", daemon=True)
        self._threads[run_id] = thread
        thread.start()
