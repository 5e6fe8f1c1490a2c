"""An in-process run's events, published from the nodes that make them.

The graph's node wrapper (research/graph/node_events.py) hands a run's stream parts to the run's
`event_log` sink as they happen: each custom event through `emit`, and a node's update (transcript
messages) and pause (plan review) when it returns. In-process that sink is a `RunPublisher`: a part
becomes numbered events (the one adapter) and goes to the run store there and then, on the node's
own thread. So the runner drains no stream: LangGraph keeps no output queue and parks no waiter on
its executor, and a step with one task (supervisor, analyst, writer, claim check) runs inline on
the runner's thread, not handed to a pool thread and back (README, Performance: "Events published
from the nodes"). A resumed run's replayed steps never run their nodes, so nothing is logged twice.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from research.events import Event, EventAdapter
from research.events.payloads import Payload


class RunPublisher:
    """A PartSink for one in-process run: stream parts -> events -> `publish`, one at a time.

    The lock keeps the log's numbering in the order events are stored while parallel researchers
    publish. Once `finish` has published the runner's last event, later parts (a pool thread of a
    failed step still running) are dropped: nothing follows the end of a run's log."""

    def __init__(self, adapter: EventAdapter, publish: Callable[[Event], None]) -> None:
        self._adapter = adapter
        self._publish = publish
        self._lock = threading.Lock()
        self._open = True

    def __call__(self, part: dict[str, Any]) -> None:
        # A node's failure reaches the runner as the graph's exception, and the runner records it
        # (secrets masked, traceback logged): its part here would log it twice, unmasked.
        if part.get("type") == "error":
            return
        with self._lock:
            if self._open:
                for event in self._adapter.adapt(part):
                    self._publish(event)

    def publish(self, data: Payload) -> None:
        """The runner's own event (not a node's), numbered in line with the nodes' events."""
        with self._lock:
            if self._open:
                self._publish(self._adapter.make(data))

    def finish(self, last: Payload | None = None) -> None:
        """Publish the runner's `last` event (a failure), if any, and take no more parts."""
        with self._lock:
            if self._open and last is not None:
                self._publish(self._adapter.make(last))
            self._open = False
