"""The event log written where the run executes: a LangGraph Server worker sharing the client's store.

A dashboard in remote mode sends the id of its run store with the run (`RunSpec.event_log_store`).
A worker whose own run store (RESEARCH_DATABASE_URL) has that id writes the run's events there as
its nodes make them, numbered after the log's last event, and holds the run's lease while it runs:
every replica then shows the run live from the shared store, and a dashboard that dies mid-run
costs nothing. Without a shared store (or with another one) the dashboard following the stream
writes the log, as before.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

from research.events import Event, EventAdapter
from research.events.steps import next_attempt
from research.graph.context import RunSpec
from research.runs.event_effects import log_event_while_open
from research.runs.lease import Heartbeat, RunBusyError, claim, new_owner_id
from research.runs.store import RunStore
from research.settings import Settings

log = logging.getLogger("research.runs.worker_log")

# A paused run (plan review) or an ended one gives up its lease; its next part takes it again.
_LEASE_ENDS = frozenset({"run_finished", "run_failed", "run_cancelled", "plan_review_requested"})


class WorkerEventLog:
    """A PartSink for one run: stream parts -> events (the one adapter) -> the shared run store."""

    def __init__(self, store: RunStore, run_id: str, settings: Settings) -> None:
        self.store, self.run_id, self.settings = store, run_id, settings
        self.owner = new_owner_id()
        self._lock = threading.Lock()  # parallel researcher branches share the log
        self._heartbeat: Heartbeat | None = None
        logged = store.events(run_id)
        # A run resumed before its begin node finished runs that node again: one run_started.
        self._started = any(e.type == "run_started" for e in logged)
        # This worker's execution of the run: a step it runs again supersedes an earlier attempt's events.
        self._attempt = next_attempt(logged)

    def __call__(self, part: dict[str, Any]) -> None:
        with self._lock:
            if not self._running():  # cancelled (or ended) by a client: later parts are not the run's
                return
            once = frozenset({"run_started"}) if self._started else frozenset()
            adapter = EventAdapter(self.run_id, logged_once=once, attempt=self._attempt)
            for event in adapter.adapt(part):
                self._started = self._started or event.type == "run_started"
                self._hold_lease()
                self._write(event)

    def _write(self, event: Event) -> None:
        # While open: a client's cancel can land between the status check and this write.
        logged = log_event_while_open(self.store, event, self.settings.secret_values())
        if logged is None or logged.type in _LEASE_ENDS:
            self._release_lease()

    def _running(self) -> bool:
        record = self.store.get_run(self.run_id)
        return record is not None and record.status == "running"

    def _hold_lease(self) -> None:
        if self._heartbeat is not None and not self._heartbeat.lost.is_set():
            return
        seconds = self.settings.run_lease_seconds
        try:
            claim(self.store, self.run_id, self.owner, seconds)
        except RunBusyError as exc:  # the log is still written; liveness then reads the other holder
            log.warning("Run %s: %s", self.run_id, exc)
            return
        self._heartbeat = Heartbeat(self.store, self.run_id, self.owner, seconds, keep=self._running).start()

    def _release_lease(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None


def worker_event_log(spec: RunSpec, settings: Settings) -> WorkerEventLog | None:
    """The run's worker log, when this worker's run store is the one the run's client reads."""
    store, run_id = client_store(spec, settings), str(spec.get("run_id") or "")
    return WorkerEventLog(store, run_id, settings) if store is not None and run_id else None


def client_store(spec: RunSpec, settings: Settings) -> RunStore | None:
    """The run store the run's client reads, when this worker shares it (None: it does not)."""
    wanted = spec.get("event_log_store")
    if not wanted or settings.database_url is None:
        return None
    store = _shared_store(settings.database_url.get_secret_value())
    return store if store.store_id == wanted else None


@lru_cache(maxsize=4)
def _shared_store(url: str) -> RunStore:
    """One store (one connection pool) per database for all of this worker's runs."""
    return RunStore(url)
