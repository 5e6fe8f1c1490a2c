"""Payloads of the trust events (issue 11): relevance drops, evidence status, claim checks, reviews."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from research.schemas import CheckedClaim, DroppedSource, Evidence


class SourcesDroppedData(BaseModel):
    query: str
    dropped: list[DroppedSource]


class EvidenceAssessedData(BaseModel):
    evidence: Evidence
    questions: int
    questions_covered: int
    sources: int
    searched: list[str] = Field(default_factory=list)  # the queries that were sent
    reason: str


class ClaimsCheckedData(BaseModel):
    version: int  # the draft version the claims were checked in
    method: Literal["offline", "model"]
    claims: list[CheckedClaim]
    precision: float | None  # supported / (all verifiable claims); None when nothing is cited


class DraftRevisedData(BaseModel):
    version: int
    markdown: str
    citations: dict[str, str]
    reasons: list[str]
