"""What an event from outside (a bundle) must look like before the fold, exports and pages read it.

Only the envelope used to be checked, so a bundle whose `sources` was a string imported fine and
then crashed every page that showed it. Each model below types the fields research/runs/view.py
reads for one event type (extra fields are kept, as newer versions may add some). When the typed
payload models per event type land in research/events/, `check_event_data` becomes a lookup there.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from research.events import Event
from research.schemas import Critique, Source

_SHORT = 10_000  # names, statuses, questions: one line of text
_LONG = 5_000_000  # a draft, a transcript message


class _Data(BaseModel):
    model_config = ConfigDict(extra="allow")


class _RunStarted(_Data):
    topic: str = Field(min_length=1, max_length=_SHORT)
    brain: str = ""
    model: str = ""
    source_mode: str = ""
    max_iterations: int | None = None
    started_by: str | None = None


class _Phase(_Data):
    phase: str | None = None


class _Allocation(_Data):
    allocation: dict[str, int] = Field(default_factory=dict)
    origin: str | None = None
    reasoning: str = ""
    plan_reasoning: str = ""
    research_questions: list[str] = Field(default_factory=list)


class _ResearcherStarted(_Data):
    kind: str = ""
    question: str = ""
    angle: str = ""


class _Queries(_Data):
    queries: list[str] = Field(default_factory=list)


class _SourcesFound(_Data):
    sources: list[Source] = Field(default_factory=list)


class _ResearcherFinished(_Data):
    status: str = "done"
    source_ids: list[str] | None = None
    seconds: float | None = None
    notes: str = ""
    error: str | None = None


class _CritiqueIssued(Critique):
    model_config = ConfigDict(extra="allow")
    iteration: int = 0


class _DraftReady(_Data):
    markdown: str | None = Field(None, max_length=_LONG)
    citations: dict[str, str] = Field(default_factory=dict)
    known_gaps: list[str] = Field(default_factory=list)


class _Message(_Data):
    name: str = ""
    content: str = Field("", max_length=_LONG)


class _Usage(_Data):
    node: str = "?"
    calls: int | None = 0
    prompt_tokens: int | None = 0
    completion_tokens: int | None = 0
    cost_usd: float | None = 0.0


class _Warning(_Data):
    source: str = ""
    message: str = ""


class _RunFinished(_Data):
    status: str = "finished"
    seconds: float | None = None


class _PlanReview(_Data):
    allocation: dict[str, int] = Field(default_factory=dict)
    research_questions: list[str] = Field(default_factory=list)


class _PlanApproved(_Allocation):
    pass


class _Cancelled(_Data):
    reason: str = ""


class _Failed(_Data):
    error: str | None = None


_MODELS: dict[str, type[BaseModel]] = {
    "run_started": _RunStarted, "phase": _Phase, "allocation_decided": _Allocation,
    "researcher_started": _ResearcherStarted, "queries_generated": _Queries,
    "sources_found": _SourcesFound, "researcher_finished": _ResearcherFinished,
    "critique_issued": _CritiqueIssued, "draft_ready": _DraftReady, "message": _Message,
    "usage": _Usage, "warning": _Warning, "run_finished": _RunFinished,
    "plan_review_requested": _PlanReview, "plan_approved": _PlanApproved,
    "run_cancelled": _Cancelled, "run_failed": _Failed,
}


def check_event_data(event: Event) -> None:
    """Raise ValueError naming the first field of `event.data` the readers could not use."""
    model = _MODELS.get(event.type)
    if model is None:
        return
    data: dict[str, Any] = event.data
    if event.type == "critique_issued":
        data = {"iteration": event.iteration or 0, "status": "APPROVED", **data}
    try:
        model.model_validate(data, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"data.{where}: {first['msg']}") from None
