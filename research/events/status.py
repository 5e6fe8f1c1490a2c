"""A run's status, as stored and as folded from its events, and the one answer to "is it live?".

Status is what the run record and the event log say; liveness adds what only the present can tell:
whether some process is still running it. Every panel, the History table, Compare and the manager
ask `liveness`, so "ended" and "interrupted" mean the same everywhere.
"""

from __future__ import annotations

from enum import StrEnum


class RunStatus(StrEnum):
    PENDING = "pending"  # folded view only: no run_started seen yet
    RUNNING = "running"
    PAUSED = "paused"  # waiting for plan review (a checkpoint holds the pause)
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"  # imported from a bundle mid-run: it cannot continue here

    @property
    def terminal(self) -> bool:
        return self in TERMINAL_STATUSES


TERMINAL_STATUSES = frozenset({RunStatus.FINISHED, RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.INTERRUPTED})


class RunLiveness(StrEnum):
    LIVE = "live"  # running now, here or in another process
    PAUSED = "paused"  # waiting for the user (plan review)
    ENDED = "ended"  # finished, failed, cancelled or interrupted for good
    ORPHANED = "orphaned"  # stored as running, but nothing runs it: it can be resumed


def liveness(status: RunStatus | str, *, running_somewhere: bool) -> RunLiveness:
    """Whether a run is live, paused, ended or orphaned.

    `running_somewhere`: a thread of this process runs it, or (across processes) its lease is held.
    """
    status = RunStatus(status)
    if running_somewhere:
        return RunLiveness.LIVE
    if status is RunStatus.PAUSED:
        return RunLiveness.PAUSED
    if status.terminal:
        return RunLiveness.ENDED
    return RunLiveness.ORPHANED  # running or pending with nobody running it


def display_status(status: RunStatus | str, *, running_somewhere: bool) -> RunStatus:
    """The status a person should see: an orphaned run reads "interrupted"."""
    if liveness(status, running_somewhere=running_somewhere) is RunLiveness.ORPHANED:
        return RunStatus.INTERRUPTED
    return RunStatus(status)
