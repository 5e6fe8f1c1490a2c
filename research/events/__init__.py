"""Typed run events: their models, the stream writer nodes use, and the one stream adapter."""

from research.events import payloads
from research.events.payloads import PAYLOADS, EventType, Payload
from research.events.status import RunLiveness, RunStatus, liveness
from research.events.stream import EVENT_TYPES, Event, EventAdapter, emit, event_payload, event_type_of

__all__ = [
    "EVENT_TYPES",
    "PAYLOADS",
    "Event",
    "EventAdapter",
    "EventType",
    "Payload",
    "RunLiveness",
    "RunStatus",
    "emit",
    "event_payload",
    "event_type_of",
    "liveness",
    "payloads",
]
