"""One payload model per event type: the `data` of an Event, checked when it is made and when it is read.

Emitters, the fold (runs/view.py), replay and bundles all go through these models, so an event's
keys and their types are written down once. Fields have defaults where an older log may lack them;
unknown keys are kept (extra="allow") so a log written by a newer version still reads.
"""

from __future__ import annotations

from typing import get_args

from pydantic import BaseModel, Field

from research.events.payload_base import EventType, Payload
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
from research.report_shape import ShapeName
from research.schemas.llm_shapes import AnalystVerdict
from research.schemas.researchers import ResearcherKind, ResearcherOutcome
from research.schemas.source_quality import SourceControls
from research.schemas.state_shapes import Source


class Counts(BaseModel):
    """An allocation as events carry it: researchers per kind."""

    web: int = Field(0, ge=0)
    academic: int = Field(0, ge=0)
    book: int = Field(0, ge=0)

    @property
    def notation(self) -> str:
        return f"{self.web}{self.academic}{self.book}"


class RunStarted(Payload):
    event_type = "run_started"
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
    review_plan: bool = False  # the run pauses after the supervisor for plan review (kept on restart)
    source_controls: SourceControls = Field(default_factory=SourceControls)  # kept on resume and replay
    report_shape: ShapeName = "standard"  # research/report_shape.py (kept on resume and replay)
    target_words: int | None = None


class Phase(Payload):
    event_type = "phase"
    phase: str


class PlanDecision(Payload):
    """What a decided plan says, the supervisor's and then the user's in plan review: the
    allocation, where it came from and why, and the research questions. Names no event type."""

    allocation: Counts = Field(default_factory=Counts)
    origin: str = ""
    reasoning: str = ""
    research_questions: list[str] = Field(default_factory=list)


class AllocationDecided(PlanDecision):
    event_type = "allocation_decided"
    origin: str  # always said by the supervisor
    plan_reasoning: str = ""


class ResearcherStarted(Payload):
    event_type = "researcher_started"
    kind: ResearcherKind | None = None
    question: str = ""
    angle: str = ""


class QueriesGenerated(Payload):
    event_type = "queries_generated"
    queries: list[str] = Field(default_factory=list)


class SourcesFound(Payload):
    event_type = "sources_found"
    query: str = ""
    providers: list[str] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    off_topic: int = 0  # results dropped because they were not about the run's subject


class ResearcherFinished(Payload):
    event_type = "researcher_finished"
    kind: ResearcherKind | None = None
    status: ResearcherOutcome = "done"
    source_ids: list[str] = Field(default_factory=list)
    seconds: float | None = None
    notes: str = ""
    error: str | None = None


class CritiqueIssued(AnalystVerdict, Payload):
    """The analyst's verdict, as research/schemas/llm_shapes.py defines it (the iteration is the event's)."""

    event_type = "critique_issued"


class DraftReady(Payload):
    event_type = "draft_ready"
    markdown: str
    citations: dict[str, str] = Field(default_factory=dict)  # "n" -> source id
    known_gaps: list[str] = Field(default_factory=list)
    words: int | None = None  # the report's prose, in words (research/drafts/report_form.py)
    length_note: str = ""  # what the draft says about falling short of its target length


class Message(Payload):
    event_type = "message"
    name: str = ""
    role: str = "ai"
    content: str = ""


class UsageReported(Payload):
    event_type = "usage"
    node: str = "?"
    calls: int = 0
    failed_calls: int = 0  # of `calls`: attempts that failed (rejected shapes, invalid output, faults)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    spent_by: str | None = None  # a revision: the signed-in user whose daily cap it counts toward


class Warning(Payload):  # noqa: A001 - the event is called "warning"; not the builtin exception
    event_type = "warning"
    source: str = ""
    message: str = ""


class RunFinished(Payload):
    event_type = "run_finished"
    status: RunStatus = RunStatus.FINISHED
    seconds: float | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    evidence: str | None = None  # none | partial | sufficient (research.drafts.evidence)


class RunFailed(Payload):
    event_type = "run_failed"
    error: str = ""


class PlanReviewRequested(Payload):
    event_type = "plan_review_requested"
    allocation: Counts = Field(default_factory=Counts)
    allocation_notation: str = ""
    allocation_origin: str = ""
    research_questions: list[str] = Field(default_factory=list)
    max_researchers: int = 3
    max_questions: int = 5
    max_question_chars: int = 300


class PlanApproved(PlanDecision):
    event_type = "plan_approved"
    edited: bool = False


class RunCancelled(Payload):
    event_type = "run_cancelled"
    reason: str = ""


def _models(base: type[Payload]) -> list[type[Payload]]:
    """Every payload model below `base` that names its event type, in definition order."""
    found: list[type[Payload]] = []
    for model in base.__subclasses__():
        if "event_type" in model.__dict__:
            found.append(model)
        found.extend(_models(model))
    return found


PAYLOADS: dict[EventType, type[Payload]] = {model.event_type: model for model in _models(Payload)}
"""The payload model of each event type, built from the models themselves."""
if sorted(PAYLOADS) != sorted(get_args(EventType)) or len(_models(Payload)) != len(PAYLOADS):
    raise TypeError("each event type needs exactly one payload model")

__all__ = [
    "PAYLOADS",
    "AllocationDecided",
    "ClaimsCheckedData",
    "Counts",
    "CritiqueIssued",
    "DraftDeltaData",
    "DraftReady",
    "DraftRevisedData",
    "EventType",
    "EvidenceAssessedData",
    "Message",
    "ModelProgressData",
    "Payload",
    "Phase",
    "PlanApproved",
    "PlanReviewRequested",
    "QueriesGenerated",
    "ResearchStoppedData",
    "ResearcherFinished",
    "ResearcherStarted",
    "RunCancelled",
    "RunFailed",
    "RunFinished",
    "RunStarted",
    "SourcesDroppedData",
    "SourcesFound",
    "ToolCalledData",
    "UsageReported",
    "Warning",
    "WorkerMessageData",
]
