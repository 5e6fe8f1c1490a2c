"""Where a run's stream parts also go as they happen, inside the process that runs the graph.

On a LangGraph Server the graph runs in the server's worker, and a dashboard following the stream
may die. So the worker can write the event log itself: the graph's node wrapper
(research/graph/node_events.py) opens a `sink_scope` around each node, and `emit` and the wrapper
hand the sink the same stream parts the stream carries, in LangGraph's v2 dict form, for the one
adapter (research/events/stream.py) to turn into events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

PartSink = Callable[[dict[str, Any]], None]
"""Takes one stream part: {"type": mode, "ns": namespace, "data": ...}."""

_current: ContextVar[PartSink | None] = ContextVar("research_part_sink", default=None)


def current_sink() -> PartSink | None:
    return _current.get()


@contextmanager
def sink_scope(sink: PartSink | None) -> Iterator[None]:
    """Hand this context's stream parts to `sink` too (a node's duration; threads the node starts
    with a copied context, as LangGraph's own executor does, see the same sink)."""
    token = _current.set(sink)
    try:
        yield
    finally:
        _current.reset(token)
