"""Which step of the graph made an event, and the log as one uninterrupted run would have written it.

A run killed mid-step and resumed runs that step again: LangGraph re-runs every task of the
interrupted superstep whose writes were not saved, under the same task id (its checkpoint
namespace), so the events the killed attempt already logged are made a second time. Each event
made inside a node carries its `EventStep` (the task and the runner's attempt); the log keeps both
attempts (nothing written is lost), and `current_events` leaves out the events of a task that a
later attempt ran again, so everything folded from the log reads as an uninterrupted run's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

MAX_TASK_CHARS = 2000  # a checkpoint namespace: a few "node:uuid" segments


class Stepped(Protocol):
    """An event as read here (research/events/stream.py's Event)."""

    @property
    def step(self) -> EventStep | None: ...


E = TypeVar("E", bound=Stepped)


class EventStep(BaseModel):
    """The task that made an event. `task` is LangGraph's checkpoint namespace of the task
    ("analyst:<task id>", "researcher:<id>|retrieve:<id>"): the same for every attempt at it.
    `attempt` counts the runner's executions of the run (1 for the first start, +1 per resume)."""

    model_config = ConfigDict(frozen=True)

    task: str = Field(max_length=MAX_TASK_CHARS)
    attempt: int = Field(1, ge=1)

    @property
    def node(self) -> str:
        """The node's path without task ids ("researcher/retrieve")."""
        return "/".join(segment.partition(":")[0] for segment in self.task.split("|"))


def task_namespace() -> str | None:
    """The checkpoint namespace of the task running this code (None outside a graph task)."""
    try:
        from langgraph.config import get_config

        ns = get_config().get("configurable", {}).get("checkpoint_ns")
    except Exception:  # noqa: BLE001 - no runnable context: not inside a task
        return None
    return ns if isinstance(ns, str) and ns else None


def next_attempt(events: Iterable[Stepped]) -> int:
    """The attempt number of a new execution of a run whose log holds `events`."""
    return 1 + max((e.step.attempt for e in events if e.step is not None), default=0)


def latest_attempts(events: Iterable[Stepped]) -> dict[str, int]:
    """Each task's latest attempt in `events`."""
    latest: dict[str, int] = {}
    for e in events:
        if e.step is not None and e.step.attempt > latest.get(e.step.task, 0):
            latest[e.step.task] = e.step.attempt
    return latest


def is_current(event: Stepped, latest: dict[str, int]) -> bool:
    """False for an event of a task's attempt that a later attempt ran again."""
    return event.step is None or event.step.attempt >= latest.get(event.step.task, 0)


def current_events(events: Sequence[E]) -> list[E]:
    """`events` without those of interrupted attempts that a resumed run repeated (in log order)."""
    latest = latest_attempts(events)
    return [e for e in events if is_current(e, latest)]


def supersedes(events: Iterable[Stepped], seen: dict[str, int]) -> bool:
    """True when one of `events` is a later attempt of a task already in `seen` (task -> attempt)."""
    return any(e.step is not None and e.step.attempt > seen.get(e.step.task, e.step.attempt) for e in events)
