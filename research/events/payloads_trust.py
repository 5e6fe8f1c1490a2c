"""Payloads of the trust events: why research stopped, relevance drops, evidence status,
claim checks, reviews."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from research.events.payload_base import Payload
from research.schemas.state_shapes import CheckedClaim, DroppedSource, Evidence

StopReasonName = Literal["approved", "iteration_cap", "loop_guard", "budget", "no_verdict"]


class ResearchStoppedData(Payload):
    """`research_stopped`: after the analyst's last verdict, why no further round went out."""

    event_type = "research_stopped"

    reason: StopReasonName
    message: str  # the round is the event's own `iteration`


class SourcesDroppedData(Payload):
    event_type = "sources_dropped"
    query: str
    dropped: list[DroppedSource]


class EvidenceAssessedData(Payload):
    event_type = "evidence_assessed"
    evidence: Evidence
    questions: int
    questions_covered: int
    sources: int
    searched: list[str] = Field(default_factory=list)  # the queries that were sent
    reason: str


class ClaimsCheckedData(Payload):
    event_type = "claims_checked"
    version: int  # the draft version the claims were checked in
    method: Literal["offline", "model"]
    claims: list[CheckedClaim]
    precision: float | None  # supported / (all verifiable claims); None when nothing is cited


class DraftRevisedData(Payload):
    event_type = "draft_revised"
    version: int
    markdown: str
    citations: dict[str, str]
    reasons: list[str]
    known_gaps: list[str] | None = None  # set when the review listed more questions as unanswered
