"""Typed run events: their models, the stream writer nodes use, and the one stream adapter."""

from research.events.stream import EVENT_TYPES, Event, EventAdapter, EventType, emit, event_payload

__all__ = ["EVENT_TYPES", "Event", "EventAdapter", "EventType", "emit", "event_payload"]
