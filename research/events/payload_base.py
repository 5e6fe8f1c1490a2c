"""The base of every event payload model, and the list of event types.

`EventType` is the one list of event names. Each payload model names its own type in
`event_type` (checked by mypy against that list) and PAYLOADS (research/events/payloads.py) is
built from the models, so emitting a payload needs no name: the model says which event it is.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict

EventType = Literal[
    "run_started",
    "phase",
    "allocation_decided",
    "researcher_started",
    "queries_generated",
    "sources_found",
    "researcher_finished",
    "critique_issued",
    "draft_ready",
    "message",
    "usage",
    "warning",
    "run_finished",
    "run_failed",
    # Plan review (ResearchRequest.review_plan): the run pauses after the supervisor.
    "plan_review_requested",
    "plan_approved",
    "run_cancelled",
    # Agent-mode researchers (payloads in events/payloads_agent.py).
    "tool_called",
    "worker_message",
    # Why research stopped, and trust (payloads in events/payloads_trust.py).
    "research_stopped",
    "sources_dropped",
    "evidence_assessed",
    "claims_checked",
    "draft_revised",
    # Model calls in progress (payloads in events/payloads_model.py).
    "model_progress",
    "draft_delta",
]
"""Every event type; each has exactly one payload model (PAYLOADS)."""


class Payload(BaseModel):
    """Base of every payload model; read fields by attribute."""

    # What mypy's pydantic plugin reads: code that builds a payload names only declared fields, so
    # a misspelt field is a type error.
    model_config = ConfigDict(extra="forbid")
    event_type: ClassVar[EventType]


# What runs: a log written by a newer version may hold keys this one does not know; they are kept
# (extra="allow"), so reading and re-exporting it loses nothing. Set before any payload model is
# defined: each one takes its config from this base when it is made.
Payload.model_config["extra"] = "allow"
Payload.model_rebuild(force=True)
