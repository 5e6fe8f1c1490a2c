"""One payload model per event type: the `data` of an Event, checked when it is made and when it is read.

Emitters, the fold (runs/view.py), replay and bundles all go through these models, so an event's
keys and their types are written down once. Fields have defaults where an older log may lack them;
unknown keys are kept (extra="allow") so a log written by a newer version still reads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from research.events.payload_base import Payload as Payload  # re-exported: the base every payload model shares
from research.events.payload_base import Readable
from research.events.payloads_agent import ToolCalledData, WorkerMessageData
from research.events.payloads_model import DraftDeltaData, ModelProgressData
from research.events.payloads_trust import (
    ClaimsCheckedData,
    DraftRevisedData,
    EvidenceAssessedData,
    ResearchStoppedData,
    SourcesDroppedData,
)
from research.events.status import RunStatus
from research.schemas import AnalystVerdict, ResearcherKind, Source


class Counts(Readable):
    """An allocation as events carry it: researchers per kind."""

    web: int = Field(0, ge=0)
    academic: int = Field(0, ge=0)
    book: int = Field(0, ge=0)

    @property
    def notation(self) -> str:
        return f"{self.web}{self.academic}{self.book}"


class RunStarted(Payload):
    topic: str = ""
    allocation_request: str | None = None
    brain: str = ""
    model: str = ""
    fast_model: str | None = None  # the model of the cheap steps when set apart from `model`
    source_mode: str = ""
    max_iterations: int | None = None
    researcher_mode: str = "pipeline"
    started_by: str | None = None  # the signed-in user on a shared desk
    worker_log: bool = False  # the server worker writes this run's event log (a shared run store)


class Phase(Payload):
    phase: str


class AllocationDecided(Payload):
    allocation: Counts = Field(default_factory=Counts)
    origin: str
    reasoning: str = ""
    research_questions: list[str] = Field(default_factory=list)
    plan_reasoning: str = ""


class ResearcherStarted(Payload):
    kind: ResearcherKind | None = None
    question: str = ""
    angle: str = ""


class QueriesGenerated(Payload):
    queries: list[str] = Field(default_factory=list)


class SourcesFound(Payload):
    query: str = ""
    providers: list[str] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    off_topic: int = 0  # results dropped because they were not about the run's subject


class ResearcherFinished(Payload):
    kind: ResearcherKind | None = None
    status: Literal["done", "failed"] = "done"
    source_ids: list[str] = Field(default_factory=list)
    seconds: float | None = None
    notes: str = ""
    error: str | None = None


class CritiqueIssued(AnalystVerdict, Payload):
    """The analyst's verdict, as research/schemas.py defines it (the iteration is the event's)."""


class DraftReady(Payload):
    markdown: str
    citations: dict[str, str] = Field(default_factory=dict)  # "n" -> source id
    known_gaps: list[str] = Field(default_factory=list)


class Message(Payload):
    name: str = ""
    role: str = "ai"
    content: str = ""


class UsageReported(Payload):
    node: str = "?"
    calls: int = 0
    failed_calls: int = 0  # of `calls`: attempts that failed (rejected shapes, invalid output, faults)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None


class Warning(Payload):  # noqa: A001 - the event is called "warning"; not the builtin exception
    source: str = ""
    message: str = ""


class RunFinished(Payload):
    status: RunStatus = RunStatus.FINISHED
    seconds: float | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    evidence: str | None = None  # none | partial | sufficient (research.drafts.evidence)


class RunFailed(Payload):
    error: str = ""


class PlanReviewRequested(Payload):
    allocation: Counts = Field(default_factory=Counts)
    allocation_notation: str = ""
    allocation_origin: str = ""
    research_questions: list[str] = Field(default_factory=list)
    max_researchers: int = 3
    max_questions: int = 5
    max_question_chars: int = 300


class PlanApproved(Payload):
    allocation: Counts = Field(default_factory=Counts)
    origin: str = ""
    reasoning: str = ""
    research_questions: list[str] = Field(default_factory=list)
    edited: bool = False


class RunCancelled(Payload):
    reason: str = ""


PAYLOADS: dict[str, type[Payload]] = {
    "run_started": RunStarted,
    "phase": Phase,
    "allocation_decided": AllocationDecided,
    "researcher_started": ResearcherStarted,
    "queries_generated": QueriesGenerated,
    "sources_found": SourcesFound,
    "researcher_finished": ResearcherFinished,
    "critique_issued": CritiqueIssued,
    "draft_ready": DraftReady,
    "message": Message,
    "usage": UsageReported,
    "warning": Warning,
    "run_finished": RunFinished,
    "run_failed": RunFailed,
    "plan_review_requested": PlanReviewRequested,
    "plan_approved": PlanApproved,
    "run_cancelled": RunCancelled,
    "tool_called": ToolCalledData,
    "worker_message": WorkerMessageData,
    "research_stopped": ResearchStoppedData,
    "sources_dropped": SourcesDroppedData,
    "evidence_assessed": EvidenceAssessedData,
    "claims_checked": ClaimsCheckedData,
    "draft_revised": DraftRevisedData,
    "model_progress": ModelProgressData,
    "draft_delta": DraftDeltaData,
}
