"""Typed run events, and the one adapter from LangGraph stream parts to them.

Nodes report progress with `emit(...)`: the part goes to the run's sink (research/events/sink.py:
the in-process runner's publisher, or a server worker's log) and to LangGraph's custom stream (a
server's clients read it). Every part becomes events in `EventAdapter.adapt`. Nothing else in the
project knows LangGraph's stream format: the dashboard, the run store and the CLI only see `Event`s.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field, SerializeAsAny, model_validator

from research.events.payloads import PAYLOADS, EventType, Message, Payload, PlanReviewRequested, RunFailed
from research.events.sink import current_sink
from research.events.steps import MAX_TASK_CHARS, EventStep, task_namespace

EVENT_TYPES: frozenset[str] = frozenset(PAYLOADS)
"""Every event type (research/events/payload_base.py lists them; PAYLOADS holds their models)."""
_MARK = "research_event"  # key that marks our custom stream payloads


class Event(BaseModel):
    """One thing that happened in a run. `data` is the payload model of its `type` (PAYLOADS): a
    dict given here is validated into that model, so a wrong-typed field fails where it enters."""

    type: EventType
    run_id: str = ""
    seq: int = 0
    ts: float = Field(default_factory=time.time)
    researcher_id: str | None = None
    iteration: int | None = None
    step: EventStep | None = None  # the task and attempt that made it (None: the runner's own)
    data: SerializeAsAny[Payload]

    @model_validator(mode="before")
    @classmethod
    def _typed_data(cls, value: Any) -> Any:
        if isinstance(value, dict) and value.get("type") in PAYLOADS:
            model = PAYLOADS[value["type"]]
            data = value.get("data")
            if not isinstance(data, model):
                value = {**value, "data": model.model_validate(data if data is not None else {})}
        return value


def event_payload(data: Payload, *, researcher_id: str | None = None, iteration: int | None = None) -> dict[str, Any]:
    """The dict a node writes to the custom stream: the payload's event type and its data, kept
    JSON-friendly (a server sends it over the wire). Inside a graph task it names the task, so a
    resumed run can tell the events of an attempt it repeats (research/events/steps.py)."""
    return {
        _MARK: event_type_of(data),
        "researcher_id": researcher_id,
        "iteration": iteration,
        "task": task_namespace(),
        "data": data.model_dump(mode="json"),
    }


def event_type_of(data: Payload) -> EventType:
    """The event type a payload model stands for (ValueError for a model that names none)."""
    type_: EventType | None = getattr(type(data), "event_type", None)
    if type_ is None or PAYLOADS.get(type_) is not type(data):
        raise ValueError(f"{type(data).__name__} is not an event payload")
    return type_


def emit(data: Payload, *, researcher_id: str | None = None, iteration: int | None = None) -> None:
    """Report progress from inside a node: `data` is the event's payload model, which says the
    event's type. A no-op outside a graph run (e.g. unit tests of a node); a no-op write to the
    custom stream when the graph's caller does not stream it (the in-process runner's sink logs it)."""
    part = event_payload(data, researcher_id=researcher_id, iteration=iteration)  # refuses a non-event first
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except Exception:  # noqa: BLE001 - no runnable context: nothing to stream to
        return
    sink = current_sink()
    if sink is not None:  # first into the worker's log, so a reader of the stream finds it logged
        sink(stream_part("custom", part))
    writer(part)


def stream_part(mode: str, data: Any) -> dict[str, Any]:
    """A top-level stream part in LangGraph's v2 dict form (what `EventAdapter.adapt` reads)."""
    return {"type": mode, "ns": (), "data": data}


def error_part(exc: BaseException) -> dict[str, Any]:
    """The part a failed node makes, shaped as a server's `error` part."""
    return stream_part("error", {"error": type(exc).__name__, "message": str(exc)})


class EventAdapter:
    """Turns LangGraph stream parts into numbered `Event`s for one run."""

    def __init__(
        self,
        run_id: str,
        start_seq: int = 0,
        *,
        logged_once: frozenset[str] = frozenset(),
        attempt: int = 1,
    ) -> None:
        self.run_id = run_id
        self._seq = start_seq
        self.remote_run_id = ""  # a server stream's run id (its metadata part)
        # Types a log holds once that this log already holds: a run resumed before its begin node
        # finished runs that node again, and its second run_started is not an event.
        self._logged_once = logged_once
        self.attempt = attempt  # this execution of the run (research/events/steps.py)

    def make(self, data: Payload, *, researcher_id: str | None = None, iteration: int | None = None) -> Event:
        """The next numbered event of this run, of the type `data`'s model stands for."""
        return self._next(event_type_of(data), data, researcher_id=researcher_id, iteration=iteration)

    def _next(
        self,
        type_: EventType,
        data: Payload | dict[str, Any],
        *,
        researcher_id: str | None,
        iteration: int | None,
        task: str | None = None,
    ) -> Event:
        self._seq += 1
        step = EventStep(task=task[:MAX_TASK_CHARS], attempt=self.attempt) if task else None
        return Event.model_validate(
            {
                "type": type_,
                "run_id": self.run_id,
                "seq": self._seq,
                "researcher_id": researcher_id,
                "iteration": iteration,
                "step": step,
                "data": data,
            }
        )

    def adapt(self, part: Any) -> Iterator[Event]:
        """Events from one stream part: in-process v2 parts ({"type", "ns", "data"}) and langgraph-sdk's
        remote StreamParts (event "mode|namespace", JSON data)."""
        namespace, mode, data = _unpack(part)
        if mode == "metadata" and isinstance(data, dict):  # the server's run id, first of a stream
            self.remote_run_id = str(data.get("run_id") or "") or self.remote_run_id
        elif mode == "error":
            yield self.make(RunFailed(error=_error_text(data)))
        elif mode == "custom" and isinstance(data, dict) and _MARK in data:
            if data[_MARK] in self._logged_once:
                return
            yield self._next(
                data[_MARK],
                data.get("data") or {},
                researcher_id=data.get("researcher_id"),
                iteration=data.get("iteration"),
                task=data["task"] if isinstance(data.get("task"), str) else None,
            )
        elif mode == "updates" and not namespace and isinstance(data, dict):
            # A pause (plan review's interrupt): the interrupt's value is the event's data.
            for pause in data.get("__interrupt__") or ():
                value = pause.get("value") if isinstance(pause, dict) else getattr(pause, "value", None)
                yield self.make(PlanReviewRequested.model_validate(value if isinstance(value, dict) else {}))
            # The transcript: messages the top-level nodes added (subgraph updates would repeat them).
            # A node with several tasks in one part (parallel Sends) maps to a list of updates.
            updates = [
                u
                for key, value in data.items()
                if not key.startswith("__")
                for u in (value if isinstance(value, list) else [value])
            ]
            for update in updates:
                for message in (update or {}).get("messages", []) if isinstance(update, dict) else []:
                    name, role, content = _message_fields(message)
                    yield self.make(Message(name=name, role=role, content=content))


def _message_fields(message: Any) -> tuple[str, str, str]:
    """(name, role, content) of a message object, or of its JSON form from a server stream."""
    if isinstance(message, dict):
        return str(message.get("name") or ""), str(message.get("type") or "ai"), str(message.get("content", ""))
    return getattr(message, "name", None) or "", getattr(message, "type", "ai"), str(getattr(message, "content", ""))


def _error_text(data: Any) -> str:
    if isinstance(data, dict):
        kind, message = data.get("error") or "Error", data.get("message") or ""
        return f"{kind}: {message}" if message else str(kind)
    return str(data or "run failed on the server")


def _unpack(part: Any) -> tuple[tuple[str, ...], str | None, Any]:
    """A stream part as (namespace, mode, data)."""
    event = getattr(part, "event", None)
    if isinstance(event, str):  # langgraph-sdk StreamPart: "updates", "custom|researcher:<task id>", ...
        mode, _, namespace = event.partition("|")
        return tuple(namespace.split("|")) if namespace else (), mode, getattr(part, "data", None)
    if isinstance(part, dict) and "type" in part and "data" in part:
        return tuple(part.get("ns") or ()), part["type"], part["data"]
    return (), None, None
