"""Remote mode: the run manager as a client of a LangGraph Server (RESEARCH_SERVER_URL).

The graph runs on the server; this process starts, resumes and cancels runs through langgraph-sdk
and writes each streamed event to the local run store as it arrives, so the dashboard's panels,
History, Compare and the CLI read the same event log as in-process. The run's outcome comes from
its own events (run_finished says whether a draft exists), never from the server's run status.

Mapping: a research run is a server thread (a UUID derived from the short run id, so any replica
finds it); starting = `runs.stream` with the input and the run's JSON spec as `context`; plan review
= the graph's `interrupt`, continued with `Command(resume=...)`; a lost reader reattaches with
`join_stream` (the runs are `stream_resumable`, so the stream replays from its first part).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Unpack

import httpx
from langgraph_sdk.client import SyncLangGraphClient
from langgraph_sdk.schema import Command, Run, StreamMode

from research.events import Event, EventAdapter
from research.events.payloads import RunCancelled, RunFailed, RunStarted, Warning
from research.graph.allocation import parse_allocation
from research.graph.context import spec_for, with_controls
from research.graph.state import shape_input
from research.runs.control import LocalParts, ManagedRuns, Work, local_side
from research.runs.daily_cap import cap_spec
from research.runs.event_effects import log_event_while_open
from research.runs.ledger import PlanEdit
from research.schemas.state_shapes import ResearchRequest
from research.secrets import mask, mask_url, url_secrets
from research.settings import Settings

log = logging.getLogger("research.runs.remote")
EventCallback = Callable[[Event], None]

ASSISTANT_ID = "research"  # the graph id in langgraph.json
STREAM_MODES: list[StreamMode] = ["custom", "updates"]
CONNECTION_SOURCE = "server connection"  # warnings this client adds itself (not from the server's stream)
_THREAD_NAMESPACE = uuid.UUID("6f0c5a4e-9d1b-4c1e-8a47-2f3d5b7e9a10")
_ENDED = ("run_finished", "run_failed", "run_cancelled", "plan_review_requested")


class ServerUnreachable(RuntimeError):
    """The LangGraph server did not answer; the message names the URL and what to do."""


def thread_id_of(run_id: str) -> str:
    """The server thread of a run: a UUID (servers require one) that every replica derives alike."""
    return str(uuid.uuid5(_THREAD_NAMESPACE, run_id))


class RemoteRunManager(ManagedRuns):
    """The RunControl protocol (research/runs/control.py) over a LangGraph Server, plus `cancel`
    and the CLI's blocking `run`. A run is live while a reader here follows it or a server worker
    that writes its log holds its lease (RunThreads.is_live). What stays local is given or built
    here: the run store, its plan checks (RunLedger), the library and the provider list."""

    thread_prefix = "remote-run"

    def __init__(self, settings: Settings, *, client: Any = None, **given: Unpack[LocalParts]) -> None:
        super().__init__(*local_side(settings, given))
        self.settings = settings
        self.url = str(settings.server_url or "").rstrip("/")
        self.label = mask_url(self.url)  # what messages, events and logs say: never its credentials
        self.client = client or _sdk_client(self.url, settings.server_timeout)
        self.orphan_message = (
            f"This dashboard lost its connection to the LangGraph server at {self.label} (server unreachable "
            "or the reader stopped). The run may still be going on the server: reattach to follow it."
        )

    # --- what ManagedRuns asks of a manager ----------------------------------------------------
    def _register(self, request: ResearchRequest) -> str:
        """Validate and register a run (the server must answer); returns its id. Raises
        AllocationError on a bad allocation and ServerUnreachable (before anything is stored)."""
        if request.allocation:  # bad input first: the clear allocation error, whatever the server
            parse_allocation(request.allocation, self.settings.max_researchers)
        self.check()
        return self.ledger.register(request)  # no lease here: a server worker runs it and holds it

    create = _register

    def _start_work(self, run_id: str, request: ResearchRequest, on_event: EventCallback | None) -> Work:
        return lambda: self._run(run_id, request, on_event)

    def _resume_work(self, run_id: str, on_event: EventCallback | None) -> Work | None:
        """Reattach to a run whose reader stopped: replay its server stream from the start (events
        already in the log are skipped) and follow it to its end."""
        record = self.ledger.record(run_id)
        if self.is_live(run_id) or record.status != "running":  # followed or run elsewhere, or ended
            return None
        self.check()
        return lambda: self._reattach(run_id, on_event)

    def _continue_work(self, edit: PlanEdit, on_event: EventCallback | None) -> Work:
        self.check()
        run_id = edit.record.run_id
        self.store.update_run(run_id, status="running", error=None)
        command: Command = {"resume": edit.answer()}
        request = self.ledger.stored_request(edit.record)  # the choices it started with travel again
        return lambda: self._follow(run_id, on_event, lambda: self._stream(run_id, request, command=command))

    def cancel(self, run_id: str) -> None:
        """Stop a run: a paused one locally, a running one on the server (its reader logs the end)."""
        record = self.store.get_run(run_id)
        if record is None:
            raise KeyError(f"No run with id {run_id!r}")
        if record.status == "paused":
            self.cancel_plan(run_id)
            return
        # Logged first, so the reader takes the stream's end (or the server's error) as the cancel.
        self._publish(EventAdapter(run_id).make(RunCancelled(reason="Cancelled by the user.")), None)
        latest = self._latest_server_run(run_id)
        if latest and latest["status"] in ("pending", "running"):
            self.client.runs.cancel(thread_id_of(run_id), latest["run_id"], wait=True)

    def check(self) -> None:
        """Raise ServerUnreachable unless the server answers its health check."""
        try:
            response = httpx.get(f"{self.url}/ok", timeout=min(5.0, self.settings.server_timeout))
            response.raise_for_status()
        except httpx.HTTPError as exc:
            reason = mask(str(exc), url_secrets(self.url))  # an HTTP error quotes the URL it asked
            raise ServerUnreachable(
                f"LangGraph server unreachable at {self.label} ({type(exc).__name__}: {reason}). Start it with "
                "`make server`, or unset RESEARCH_SERVER_URL to run research in this process."
            ) from None

    # --- running ------------------------------------------------------------------------------
    def _spec(self, run_id: str, request: ResearchRequest) -> dict[str, Any]:
        # Only what this side chose explicitly travels (its settings, the run's options); the rest
        # is the server's own configuration.
        spec = with_controls(
            spec_for(run_id, self.ledger.run_settings(request), request.llm, only_set=True), request.source_controls
        )
        if request.started_by:
            spec["started_by"] = request.started_by
            spec.update(cap_spec(self.store, self.settings, run_id, request.started_by))  # held per request there
        if request.researcher_mode:  # the dashboard's Researchers control; else the worker's setting
            spec["researcher_mode"] = request.researcher_mode
        if self.store.dialect == "postgres":  # a shared store: a worker that shares it writes the log
            spec["event_log_store"] = self.store.store_id
        return dict(spec)

    def _run(self, run_id: str, request: ResearchRequest, on_event: EventCallback | None) -> None:
        initial = {
            "run_id": run_id,
            "topic": request.topic,
            "requested_allocation": request.allocation,
            "max_iterations": self.ledger.max_iterations(request),
            "review_plan": request.review_plan,
            **shape_input(request.report_shape),
        }

        def open_stream() -> Iterator[Any]:
            self.client.threads.create(
                thread_id=thread_id_of(run_id),
                if_exists="do_nothing",
                metadata={"research_run_id": run_id},
            )
            return self._stream(run_id, request, input=initial, multitask_strategy="reject")

        self._follow(run_id, on_event, open_stream)

    def _stream(self, run_id: str, request: ResearchRequest, **run: Any) -> Iterator[Any]:
        """A new server run on the run's thread (`input` to start, `command` to continue), streamed
        resumably so a lost reader can rejoin it."""
        return self.client.runs.stream(
            thread_id_of(run_id),
            ASSISTANT_ID,
            context=self._spec(run_id, request),
            stream_mode=STREAM_MODES,
            stream_subgraphs=True,
            stream_resumable=True,
            **run,
        )

    def _reattach(self, run_id: str, on_event: EventCallback | None) -> None:
        latest = self._latest_server_run(run_id)
        if latest is None:
            self._publish(
                EventAdapter(run_id, start_seq=self.store.last_seq(run_id)).make(
                    RunFailed(error=f"The LangGraph server at {self.label} has no run for {run_id}.")
                ),
                on_event,
            )
            return
        # Events the server's stream already gave this log are skipped, by their place in it.
        already = sum(1 for e in self.store.events(run_id) if not _connection_warning(e))
        self._follow(
            run_id,
            on_event,
            lambda: self.client.runs.join_stream(
                # No stream_mode filter: langgraph-api 0.16 then drops the custom parts from the replay.
                thread_id_of(run_id),
                latest["run_id"],
                last_event_id="-1",
            ),
            skip=already,
        )

    def _latest_server_run(self, run_id: str) -> Run | None:
        try:
            runs = self.client.runs.list(thread_id_of(run_id), limit=1)
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code == 404:
                return None
            raise
        return runs[0] if runs else None

    def _follow(
        self, run_id: str, on_event: EventCallback | None, open_stream: Callable[[], Iterator[Any]], *, skip: int = 0
    ) -> None:
        """Read one server stream into the event log; a lost connection or a stream that ends
        without the run's own ending becomes a visible event, never a silent 'success'."""
        adapter = EventAdapter(run_id)  # numbers the stream's own events; the log renumbers
        ended = False
        # The worker writes this run's log (its run_started says so): only read here. A continued or
        # reattached stream has no run_started of its own: the log's says.
        worker_logs = any(isinstance(e.data, RunStarted) and e.data.worker_log for e in self.store.events(run_id))

        def cancelled() -> bool:
            return getattr(self.store.get_run(run_id), "status", None) == "cancelled"

        shown_end = False  # the live view has had the run's end: the rest of this stream is not the run's

        def shows(event: Event) -> bool:
            """Whether the live view gets `event` of a log the worker writes. The worker refuses what
            its stream still carries after the run's end or a user's cancel (research/runs/worker_log.py),
            so the view stops at the end it has shown, and once the run is cancelled (by this desk or
            another): events the worker logged just before a cancel then show on the next read of the log."""
            nonlocal shown_end
            if shown_end or cancelled():
                return False
            shown_end = event.type in _ENDED
            return True

        try:
            for part in open_stream():
                for event in adapter.adapt(part):
                    ended = ended or event.type in _ENDED
                    worker_logs = worker_logs or (isinstance(event.data, RunStarted) and event.data.worker_log)
                    if event.type == "run_failed" and cancelled():  # the cancel's own error part
                        continue
                    if skip > 0:  # already in the log (a reattached reader's replay)
                        skip -= 1
                        continue
                    if worker_logs and not (event.type == "run_failed" and self._still_running(run_id)):
                        if on_event and shows(event):  # logged by the worker; a failure outside its nodes is not
                            on_event(event)
                        continue
                    self._publish(event, on_event)
        except httpx.TransportError as exc:
            if cancelled():  # the user stopped it: the stream's end is no failure
                return
            if worker_logs:  # the shared log goes on without this reader (its lease says if the run does)
                log.warning("Lost the stream of run %s from %s (%s)", run_id, self.label, type(exc).__name__)
                return
            self._warn(
                run_id,
                on_event,
                f"LangGraph server unreachable at {self.label} while following the run "
                f"({type(exc).__name__}: {exc}); it may still be going on the server: reattach to follow it.",
            )
            return
        except httpx.HTTPStatusError as exc:
            if cancelled():
                return
            self._fail(
                run_id,
                on_event,
                f"The LangGraph server refused the run: HTTP {exc.response.status_code} {_detail(exc.response)}",
            )
            return
        except Exception as exc:  # noqa: BLE001 - a reader must never crash the dashboard
            log.error(
                "Reading run %s from %s failed: %s", run_id, self.label, mask(repr(exc), self.settings.secret_values())
            )
            self._fail(run_id, on_event, f"{type(exc).__name__}: {exc}")
            return
        if not ended and self._still_running(run_id):
            status = self._thread_status(run_id)
            self._fail(
                run_id, on_event, f"The server's stream ended without the run's result (thread status: {status})."
            )

    def _still_running(self, run_id: str) -> bool:
        """The log has not ended the run (nor has a user cancelled it)."""
        return getattr(self.store.get_run(run_id), "status", None) == "running"

    def _thread_status(self, run_id: str) -> str:
        try:
            return str(self.client.threads.get(thread_id_of(run_id)).get("status", "unknown"))
        except Exception:  # noqa: BLE001 - only for the message
            return "unknown"

    def _publish(self, event: Event, on_event: EventCallback | None) -> None:
        """Log `event` while the run's log is open, as a worker writes it (research/runs/worker_log.py):
        after the run's run_cancelled (a user's cancel, which the server's stream lags behind) or its
        run_finished, nothing the stream still carries is the run's, and it is neither logged nor shown."""
        logged = log_event_while_open(self.store, event, self.settings.secret_values())
        if logged is not None and on_event:
            on_event(logged)

    def _warn(self, run_id: str, on_event: EventCallback | None, message: str) -> None:
        self._publish(EventAdapter(run_id).make(Warning(source=CONNECTION_SOURCE, message=message)), on_event)

    def _fail(self, run_id: str, on_event: EventCallback | None, message: str) -> None:
        self._publish(EventAdapter(run_id).make(RunFailed(error=message)), on_event)


def _sdk_client(url: str, timeout: float) -> SyncLangGraphClient:
    """langgraph-sdk's client over our own httpx client: one connect retry instead of the SDK's
    five with backoff, so a server that went away shows as unreachable in about 20 s (the SDK
    still reconnects a dropped stream five times, 1-5 s apart) rather than in a minute."""
    return SyncLangGraphClient(
        httpx.Client(
            base_url=url,
            transport=httpx.HTTPTransport(retries=1),
            timeout=httpx.Timeout(timeout, connect=min(5.0, timeout)),
        )
    )


def _detail(response: httpx.Response) -> str:
    try:
        return str(response.json().get("detail", ""))[:500]
    except Exception:  # noqa: BLE001 - a body that is not JSON
        return response.text[:500]


def _connection_warning(event: Event) -> bool:
    """A warning this client logged about its connection (not one of the server stream's events)."""
    return isinstance(event.data, Warning) and event.data.source == CONNECTION_SOURCE
