"""What both run managers share (in-process, research/runs/manager.py; remote, research/runs/remote.py):
runs followed by daemon threads of this process, and a run's liveness from those threads and the
run's lease, held by whichever process runs it (another replica's runner, or a server worker)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from research.events.status import RunLiveness, RunStatus, display_status, liveness
from research.runs.lease import live_lease
from research.runs.store import RunRecord, RunStore


class RunThreads:
    thread_prefix = "run"  # thread names: run-<id>, remote-run-<id>

    def __init__(self, store: RunStore) -> None:
        self.store = store
        self._threads: dict[str, threading.Thread] = {}
        self._lock = threading.RLock()  # re-entrant: a resume check under it asks is_live

    def is_active(self, run_id: str) -> bool:
        """A thread of this process runs (or follows) the run."""
        with self._lock:
            thread = self._threads.get(run_id)
            return bool(thread and thread.is_alive())

    def is_live(self, run_id: str) -> bool:
        """Run by a thread here or by any other live process (its lease is held)."""
        return self.is_active(run_id) or live_lease(self.store, run_id) is not None

    def liveness(self, run_id: str) -> RunLiveness | None:
        """Live, paused, ended or orphaned (None: no such run). See research.events.status."""
        record = self.store.get_run(run_id)
        return None if record is None else liveness(record.status, running_somewhere=self.is_live(run_id))

    def display_status(self, record: RunRecord) -> RunStatus:
        """The run's status as a person should see it (an orphaned run reads "interrupted")."""
        return display_status(record.status, running_somewhere=self.is_live(record.run_id))

    def is_orphaned(self, run_id: str) -> bool:
        """Stored as running, but nothing runs it: the process that ran it has gone (killed,
        crashed, or its lease lapsed), or in remote mode no reader here follows it."""
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
        thread = threading.Thread(target=target, name=f"{self.thread_prefix}-{run_id}", daemon=True)
        self._threads[run_id] = thread
        thread.start()
