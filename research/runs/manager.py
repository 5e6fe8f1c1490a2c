"""Runs research off the caller's thread, so a dashboard rerun never kills a run.

One manager per process (the dashboard caches it as a shared resource); runs are keyed by run id,
so two browser sessions can run different topics at once without mixing. The in-process
implementation of the RunControl protocol (research/runs/control.py): the graph runs here, in a
ResearchRunner.
"""

from __future__ import annotations

from research.runs.control import EventCallback, ManagedRuns, Work
from research.runs.ledger import PlanEdit
from research.runs.runner import ResearchRunner
from research.schemas.state_shapes import ResearchRequest


class RunManager(ManagedRuns):
    def __init__(self, runner: ResearchRunner) -> None:
        super().__init__(runner.ledger, runner.library, runner.sources)
        self.runner = runner

    def _register(self, request: ResearchRequest) -> str:
        return self.runner.create(request)

    def _start_work(self, run_id: str, request: ResearchRequest, on_event: EventCallback | None) -> Work:
        return lambda: self.runner.run(request, on_event, run_id=run_id)

    def _resume_work(self, run_id: str, on_event: EventCallback | None) -> Work:
        # RunBusyError (another process runs it) or RunNotResumableError (finished, cancelled, paused).
        self.runner.claim_for_resume(run_id)
        return lambda: self.runner.resume(run_id, on_event)

    def _continue_work(self, edit: PlanEdit, on_event: EventCallback | None) -> Work:
        self.runner.claim(edit.record.run_id)  # RunBusyError here, not in the thread, if another process continued it
        return lambda: self.runner.continue_checked(edit, on_event=on_event)
