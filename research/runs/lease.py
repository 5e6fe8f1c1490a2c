"""One runner per run, across processes: a lease row in the run store, renewed while the run runs.

A process that runs a run holds its lease (owner id, heartbeat, expiry) and renews it every third of
RESEARCH_RUN_LEASE_SECONDS. Any process can then tell a live run (lease held) from one whose process
died (lease lapsed, or its owner is a process of this host that no longer exists), so the dashboard
shows another process's run as live, never offers it for Resume, and a second runner is refused.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from research.runs.store import LeaseRecord, RunStore

log = logging.getLogger("research.runs.lease")
_HOST = socket.gethostname()


class RunBusyError(RuntimeError):
    """The run is being run by another runner (its lease is held and alive)."""


def new_owner_id() -> str:
    """host:pid:token, so a holder on this host can be checked for being alive."""
    return f"{_HOST}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def owner_is_gone(owner: str) -> bool:
    """True only when the owner is a process of this host that no longer runs (killed, crashed).
    Owners on other hosts (or unreadable ids) are judged by the lease's expiry alone."""
    host, _, rest = owner.partition(":")
    pid_text = rest.partition(":")[0]
    if host != _HOST or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, under another user
    return _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    """A killed child not yet reaped by its parent still answers kill(pid, 0)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


def live_lease(store: RunStore, run_id: str) -> LeaseRecord | None:
    """The run's lease if someone alive holds it, else None."""
    lease = store.get_lease(run_id)
    if lease is None or lease.expires_at < time.time() or owner_is_gone(lease.owner):
        return None
    return lease


def claim(store: RunStore, run_id: str, owner: str, seconds: float) -> None:
    """Take the run's lease for `owner`, clearing a gone holder first; raises RunBusyError."""
    current = store.get_lease(run_id)
    if current and current.owner != owner and owner_is_gone(current.owner):
        store.release_lease(run_id, current.owner)
    if not store.acquire_lease(run_id, owner, seconds):
        holder = store.get_lease(run_id)
        who = holder.owner.rsplit(":", 1)[0] if holder else "another process"
        raise RunBusyError(f"Run {run_id} is being run by another process ({who}); it cannot be run twice.")


class Heartbeat:
    """Renews a held lease on a daemon thread until stopped; `lost` is set if it was taken over."""

    def __init__(
        self, store: RunStore, run_id: str, owner: str, seconds: float, *, keep: Callable[[], bool] | None = None
    ) -> None:
        self.store, self.run_id, self.owner, self.seconds = store, run_id, owner, seconds
        # Asked before each renewal: False ends the lease (a worker's run that ended elsewhere).
        self._keep = keep or (lambda: True)
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"lease-{run_id}", daemon=True)

    def start(self) -> Heartbeat:
        self._thread.start()
        return self

    def _beat(self) -> None:
        while not self._stop.wait(self.seconds / 3):
            try:
                if not self._keep():
                    self.store.release_lease(self.run_id, self.owner)
                    return
                if not self.store.renew_lease(self.run_id, self.owner, self.seconds):
                    log.warning("Run %s: lease taken over by another process; this runner stops", self.run_id)
                    self.lost.set()
                    return
            except Exception as exc:  # noqa: BLE001 - a database hiccup: try again next beat
                log.warning("Run %s: lease renewal failed (%s); retrying", self.run_id, type(exc).__name__)

    def stop(self, *, release: bool = True) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        if release and not self.lost.is_set():
            try:
                self.store.release_lease(self.run_id, self.owner)
            except Exception as exc:  # noqa: BLE001 - it lapses on its own
                log.warning("Run %s: lease release failed (%s); it will expire", self.run_id, type(exc).__name__)
