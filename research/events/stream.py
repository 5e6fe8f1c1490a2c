"""Typed run events, and the one adapter from LangGraph stream parts to them.

Nodes report progress with `emit(...)` (a LangGraph custom-stream write); the runner feeds every
stream part through `EventAdapter.adapt`. Nothing else in the project knows LangGraph's stream
format: the dashboard, the run store and the CLI only see `Event`s.
"""

from __future__ import annotations

import time
from typing import Any, Iterator, Literal, get_args

from pydantic import BaseModel, Field

EventType = Literal[
    "run_started",  # topic, allocation_request, brain, model, source_mode, max_iterations
    "phase",  # phase (supervisor|researchers|analyst|writer), iteration
    "allocation_decided",  # allocation {web,academic,book}, origin, reasoning, research_questions
    "researcher_started",  # researcher_id, kind, question, angle, iteration
    "queries_generated",  # researcher_id, queries
    "sources_found",  # researcher_id, query, provider, sources [Source]
    "researcher_finished",  # researcher_id, kind, status, source_ids, seconds, notes, error
    "critique_issued",  # iteration, status, critique, missing_topics, recommended_queries, coverage
    "draft_ready",  # markdown, citations {n: source_id}, known_gaps
    "message",  # name, role, content (the transcript)
    "usage",  # node, calls, prompt_tokens, completion_tokens, cost_usd
    "warning",  # source, message
    "run_finished",  # status, seconds, counts
    "run_failed",  # error
    # Plan review (ResearchRequest.review_plan): the run pauses after the supervisor.
    "plan_review_requested",  # allocation {web,academic,book}, allocation_notation, allocation_origin,
    #                           research_questions, max_researchers, max_questions, max_question_chars
    "plan_approved",  # allocation {web,academic,book}, origin, reasoning, research_questions, edited
    "run_cancelled",  # reason
    # Model calls in progress (issue 12; payloads in events/payloads_model.py).
    "model_progress",  # node, step, model, tokens, seconds, done
    "draft_delta",  # text, chars
]
EVENT_TYPES: frozenset[str] = frozenset(get_args(EventType))
_MARK = "research_event"  # key that marks our custom stream payloads


class Event(BaseModel):
    """One thing that happened in a run. `data` keys per type are listed beside EventType."""

    type: EventType
    run_id: str = ""
    seq: int = 0
    ts: float = Field(default_factory=time.time)
    researcher_id: str | None = None
    iteration: int | None = None
    data: dict[str, Any] = Field(default_factory=dict)


def event_payload(
    type_: EventType, *, researcher_id: str | None = None, iteration: int | None = None, **data: Any
) -> dict[str, Any]:
    """The dict a node writes to the custom stream (kept JSON-friendly for checkpoints)."""
    if type_ not in EVENT_TYPES:
        raise ValueError(f"Unknown event type {type_!r}")
    return {_MARK: type_, "researcher_id": researcher_id, "iteration": iteration, "data": data}


def emit(type_: EventType, *, researcher_id: str | None = None, iteration: int | None = None, **data: Any) -> None:
    """Report progress from inside a node. A no-op outside a graph run (e.g. unit tests of a node)."""
    try:
        from langgraph.config import get_stream_writer

        writer = get_stream_writer()
    except Exception:  # noqa: BLE001 - no runnable context: nothing to stream to
        return
    writer(event_payload(type_, researcher_id=researcher_id, iteration=iteration, **data))


class EventAdapter:
    """Turns LangGraph stream parts into numbered `Event`s for one run."""

    def __init__(
        self, run_id: str, start_seq: int = 0, logged_messages: set[tuple[str, str]] | None = None
    ) -> None:
        self.run_id = run_id
        self._seq = start_seq
        # (name, content) of transcript messages already in the log. On resume LangGraph replays
        # the updates of tasks that finished before the interruption (marked "cached"); those
        # already logged are skipped so the transcript does not show them twice.
        self._logged_messages = logged_messages or set()

    def make(self, type_: EventType, *, researcher_id: str | None = None, iteration: int | None = None, **data: Any) -> Event:
        self._seq += 1
        return Event(
            type=type_, run_id=self.run_id, seq=self._seq, researcher_id=researcher_id,
            iteration=iteration, data=data,
        )

    def adapt(self, part: Any) -> Iterator[Event]:
        """Accepts v2 stream parts ({"type", "ns", "data"}) and v1 tuples ((ns, mode, data))."""
        namespace, mode, data = _unpack(part)
        if mode == "custom" and isinstance(data, dict) and _MARK in data:
            yield self.make(
                data[_MARK], researcher_id=data.get("researcher_id"),
                iteration=data.get("iteration"), **(data.get("data") or {}),
            )
        elif mode == "updates" and not namespace and isinstance(data, dict):
            # The transcript: messages the top-level nodes added (subgraph updates would repeat them).
            replayed = bool((data.get("__metadata__") or {}).get("cached"))
            # A node with several tasks in one part (parallel Sends) maps to a list of updates.
            updates = [u for value in data.values() for u in (value if isinstance(value, list) else [value])]
            for update in updates:
                for message in (update or {}).get("messages", []) if isinstance(update, dict) else []:
                    name, content = getattr(message, "name", None) or "", str(getattr(message, "content", ""))
                    if replayed and (name, content) in self._logged_messages:
                        continue
                    yield self.make("message", name=name, role=getattr(message, "type", "ai"), content=content)


def _unpack(part: Any) -> tuple[tuple, str | None, Any]:
    if isinstance(part, dict) and "type" in part and "data" in part:
        return tuple(part.get("ns") or ()), part["type"], part["data"]
    if isinstance(part, tuple):
        if len(part) == 3:  # (namespace, mode, data) with subgraphs=True
            return tuple(part[0] or ()), part[1], part[2]
        if len(part) == 2 and isinstance(part[0], str):
            return (), part[0], part[1]
    return (), None, None
