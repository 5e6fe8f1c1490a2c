"""Runs research off the caller's thread, so a dashboard rerun never kills a run.

One manager per process (the dashboard caches it as a shared resource); runs are keyed by run id,
so two browser sessions can run different topics at once without mixing.
"""

from __future__ import annotations

from research.runs.run_threads import RunThreads
from research.runs.runner import ResearchRunner
from research.schemas import ResearchRequest


class RunManager(RunThreads):
    def __init__(self, runner: ResearchRunner) -> None:
        super().__init__(runner.store)
        self.runner = runner

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
