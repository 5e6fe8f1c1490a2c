"""A run as its panels show it: the fold of its event log.

The dashboard, the CLI's --json output, history, replay and comparison all read runs through this
one fold, so they can never disagree about what happened.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from research.events import Event
from research.events import payloads as p
from research.events.payloads_trust import StopReasonName
from research.events.status import RunStatus
from research.events.steps import is_current, latest_attempts, supersedes
from research.report_shape import STANDARD, ReportShape
from research.runs.view_parts import DroppedResult, ResearcherView, Revision, UsageTotals
from research.schemas.source_quality import SourceControls
from research.schemas.state_shapes import Critique, RunWarning, Source
from research.sources.identity import WorkIndex

__all__ = ["PHASES", "ResearcherView", "RunView", "fold", "to_json"]

PHASES = ("supervisor", "researchers", "analyst", "writer")


@dataclass
class RunView:
    run_id: str = ""
    topic: str = ""
    status: RunStatus = RunStatus.PENDING
    brain: str = ""
    model: str = ""
    source_mode: str = ""
    researcher_mode: str = "pipeline"
    source_controls: SourceControls = field(default_factory=SourceControls)  # as run_started recorded them
    max_iterations: int | None = None
    phase: str | None = None
    iteration: int = 0
    allocation: p.Counts | None = None  # None until the plan is decided
    allocation_origin: str | None = None
    allocation_reasoning: str = ""
    plan_reasoning: str = ""
    research_questions: list[str] = field(default_factory=list)
    researchers: dict[str, ResearcherView] = field(default_factory=dict)
    sources: dict[str, Source] = field(default_factory=dict)  # id -> Source, one per work
    critiques: list[Critique] = field(default_factory=list)
    draft: str | None = None
    citations: dict[str, str] = field(default_factory=dict)
    known_gaps: list[str] = field(default_factory=list)
    report_shape: ReportShape = STANDARD  # as run_started asked, or the latest revision into a shape
    draft_words: int | None = None  # the writer's draft, in words of prose
    length_note: str = ""  # what the writer said about falling short of the target length
    warnings: list[RunWarning] = field(default_factory=list)
    messages: list[p.Message] = field(default_factory=list)
    stop_reason: StopReasonName | None = None  # why research stopped (research_stopped), e.g. "loop_guard"
    _works: WorkIndex = field(default_factory=WorkIndex, repr=False, compare=False)  # identity of each work
    usage: UsageTotals = field(default_factory=UsageTotals)
    started_ts: float | None = None
    finished_ts: float | None = None
    seconds: float | None = None
    error: str | None = None
    last_seq: int = 0
    # While paused for plan review: the plan_review_requested data (allocation, research_questions,
    # limits); None otherwise.
    plan_review: p.PlanReviewRequested | None = None
    started_by: str | None = None  # the signed-in user who started the run (shared desks)
    # Trust: the evidence_assessed data, the latest claims_checked data, reviewer versions.
    evidence: str | None = None  # none | partial | sufficient
    evidence_detail: p.EvidenceAssessedData | None = None
    claims: p.ClaimsCheckedData | None = None
    claims_by_version: dict[int, p.ClaimsCheckedData] = field(default_factory=dict)
    revisions: list[Revision] = field(default_factory=list)
    # The writer's draft as it streams (draft_delta), until draft_ready replaces it.
    draft_preview: str = ""
    # Model calls in progress outside researchers (supervisor, analyst, writer): node -> tokens.
    model_progress: dict[str, int] = field(default_factory=dict)
    # Each task's latest attempt folded in (research/events/steps.py).
    attempts: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def allocation_notation(self) -> str:
        return self.allocation.notation if self.allocation else ""

    @property
    def cited_source_ids(self) -> set[str]:
        return set(self.citations.values())

    @property
    def done(self) -> bool:
        """The event log has ended (finished, failed, cancelled)."""
        return RunStatus(self.status).terminal

    @property
    def paused(self) -> bool:
        return self.status == RunStatus.PAUSED

    def apply(self, event: Event) -> None:
        handler = getattr(self, f"_on_{event.type}", None)
        if handler:
            handler(event, event.data)
        self.last_seq = max(self.last_seq, event.seq)
        if event.step is not None:
            self.attempts[event.step.task] = max(self.attempts.get(event.step.task, 0), event.step.attempt)

    def superseded_by(self, events: Iterable[Event]) -> bool:
        """True when `events` repeat a step this view already folded (a resumed run's later attempt)."""
        return supersedes(events, self.attempts)

    # --- one handler per event type; `d` is the type's payload model (research/events/payloads.py) ---
    def _on_run_started(self, e: Event, d: p.RunStarted) -> None:
        self.run_id, self.topic, self.status = e.run_id, d.topic, RunStatus.RUNNING
        self.brain, self.model = d.brain, d.model
        self.source_mode, self.max_iterations = d.source_mode, d.max_iterations
        self.researcher_mode = d.researcher_mode or "pipeline"
        self.source_controls = d.source_controls
        self.started_ts = e.ts
        self.phase = "supervisor"
        self.started_by = d.started_by
        self.report_shape = ReportShape(shape=d.report_shape, target_words=d.target_words)

    def _on_phase(self, e: Event, d: p.Phase) -> None:
        self.phase = d.phase
        self.iteration = e.iteration or 0

    def _on_allocation_decided(self, e: Event, d: p.AllocationDecided) -> None:
        self.allocation = d.allocation
        self.allocation_origin = d.origin
        self.allocation_reasoning = d.reasoning
        self.plan_reasoning = d.plan_reasoning
        self.research_questions = list(d.research_questions)
        self.phase = "researchers"

    def _on_researcher_started(self, e: Event, d: p.ResearcherStarted) -> None:
        rid = e.researcher_id or "?"
        earlier = self.researchers.get(rid)  # an agent that fell back to the pipeline starts again
        self.researchers[rid] = ResearcherView(
            id=rid,
            kind=d.kind or rid.split("-")[0],
            iteration=e.iteration or 0,
            question=d.question,
            angle=d.angle,
            started_ts=e.ts,
            tool_calls=earlier.tool_calls if earlier else [],
            transcript=earlier.transcript if earlier else [],
        )

    def _researcher(self, e: Event) -> ResearcherView:
        rid = e.researcher_id or "?"
        if rid not in self.researchers:
            self.researchers[rid] = ResearcherView(id=rid, kind=rid.split("-")[0], iteration=e.iteration or 0)
        return self.researchers[rid]

    def _on_queries_generated(self, e: Event, d: p.QueriesGenerated) -> None:
        self._researcher(e).queries = list(d.queries)

    def _on_sources_found(self, e: Event, d: p.SourcesFound) -> None:
        researcher = self._researcher(e)
        for source in d.sources:
            kept = self._add_source(source)
            if kept not in researcher.source_ids:
                researcher.source_ids.append(kept)

    def _add_source(self, source: Source) -> str:
        """One entry per work (the graph's reducer applies the same rule); returns the kept id."""
        if source.id in self.sources:
            return source.id
        merged, replaced = self._works.add(source)
        if replaced is None:
            self.sources[merged.id] = source
        else:  # the same work again: the richer record takes the earlier one's place
            self.sources = {
                (merged.id if k == replaced else k): (merged if k == replaced else v) for k, v in self.sources.items()
            }
        return merged.id

    def _on_sources_dropped(self, e: Event, d: p.SourcesDroppedData) -> None:
        found = (DroppedResult(query=d.query, **x.model_dump()) for x in d.dropped)
        self._researcher(e).dropped.extend(found)

    def _on_researcher_finished(self, e: Event, d: p.ResearcherFinished) -> None:
        r = self._researcher(e)
        r.status = d.status
        r.source_ids = list(d.source_ids or r.source_ids)
        r.seconds, r.notes, r.error = d.seconds, d.notes, d.error

    def _on_tool_called(self, e: Event, d: p.ToolCalledData) -> None:
        self._researcher(e).tool_calls.append(d)

    def _on_worker_message(self, e: Event, d: p.WorkerMessageData) -> None:
        self._researcher(e).transcript.append(d)

    def _on_critique_issued(self, e: Event, d: p.CritiqueIssued) -> None:
        self.critiques.append(Critique.model_validate({**d.model_dump(), "iteration": e.iteration or 0}))

    def _on_draft_ready(self, e: Event, d: p.DraftReady) -> None:
        self.draft, self.draft_preview = d.markdown, ""
        self.citations = dict(d.citations)
        self.known_gaps = list(d.known_gaps)
        self.draft_words, self.length_note = d.words, d.length_note

    def _on_model_progress(self, e: Event, d: p.ModelProgressData) -> None:
        tokens = 0 if d.done else d.tokens
        if e.researcher_id:
            r = self._researcher(e)
            r.model_step, r.model_tokens = (None, 0) if d.done else (d.step, tokens)
        elif d.done:
            self.model_progress.pop(d.node, None)
        else:
            self.model_progress[d.node] = tokens

    def _on_draft_delta(self, e: Event, d: p.DraftDeltaData) -> None:
        self.draft_preview += d.text

    def _on_message(self, e: Event, d: p.Message) -> None:
        self.messages.append(d)

    def _on_usage(self, e: Event, d: p.UsageReported) -> None:
        self.usage.add(d)

    def _on_evidence_assessed(self, e: Event, d: p.EvidenceAssessedData) -> None:
        self.evidence, self.evidence_detail = d.evidence, d

    def _on_claims_checked(self, e: Event, d: p.ClaimsCheckedData) -> None:
        self.claims = d
        self.claims_by_version[d.version or 1] = d

    def _on_draft_revised(self, e: Event, d: p.DraftRevisedData) -> None:
        self.draft = d.markdown or self.draft
        self.citations = {str(k): v for k, v in d.citations.items()} or self.citations
        self.revisions.append(Revision(version=d.version, reasons=list(d.reasons)))
        if d.known_gaps is not None:
            self.known_gaps = list(d.known_gaps)
        if d.report_shape is not None:
            self.report_shape = ReportShape(shape=d.report_shape, target_words=d.target_words)

    @property
    def citation_precision(self) -> float | None:
        return self.claims.precision if self.claims else None

    def _on_warning(self, e: Event, d: p.Warning) -> None:
        self.warnings.append(RunWarning(source=d.source, message=d.message, researcher_id=e.researcher_id))

    def _on_run_finished(self, e: Event, d: p.RunFinished) -> None:
        self.status = d.status
        self.evidence = d.evidence or self.evidence
        self.finished_ts, self.seconds, self.phase = e.ts, d.seconds, None

    def _on_plan_review_requested(self, e: Event, d: p.PlanReviewRequested) -> None:
        self.status, self.plan_review = RunStatus.PAUSED, d

    def _on_plan_approved(self, e: Event, d: p.PlanApproved) -> None:
        self.status, self.plan_review, self.phase = RunStatus.RUNNING, None, "researchers"
        self.allocation = d.allocation
        self.allocation_origin = d.origin or self.allocation_origin
        self.allocation_reasoning = d.reasoning or self.allocation_reasoning
        self.research_questions = list(d.research_questions) or self.research_questions

    def _on_run_cancelled(self, e: Event, d: p.RunCancelled) -> None:
        self.status, self.plan_review, self.phase, self.finished_ts = RunStatus.CANCELLED, None, None, e.ts
        if self.started_ts:
            self.seconds = round(e.ts - self.started_ts, 3)

    def _on_research_stopped(self, e: Event, d: p.ResearchStoppedData) -> None:
        self.stop_reason = d.reason

    def _on_run_failed(self, e: Event, d: p.RunFailed) -> None:
        self.status, self.error, self.finished_ts = RunStatus.FAILED, d.error, e.ts
        if self.started_ts:
            self.seconds = round(e.ts - self.started_ts, 3)


def fold(events: Iterable[Event], view: RunView | None = None) -> RunView:
    """`view` (or a new one) with `events` applied, leaving out the events of a step's interrupted
    attempt that a resumed run ran again (research/events/steps.py): a resumed run reads as an
    uninterrupted one. Its model usage still counts: those calls were made. A view folded forward
    must be folded again from the whole log when new events supersede ones it holds
    (`RunView.superseded_by`)."""
    view = view or RunView()
    events = list(events)
    latest = {**view.attempts, **latest_attempts(events)}
    for event in events:
        if is_current(event, latest) or event.type == "usage":
            view.apply(event)
        view.last_seq = max(view.last_seq, event.seq)
    return view


_SOURCE_KEYS = ("id", "title", "url", "kind", "provider", "year", "snippet", "authors", "researcher_id")
_CRITIQUE_KEYS = ("iteration", "status", "critique", "missing_topics", "recommended_queries", "coverage")


def to_json(view: RunView) -> dict[str, Any]:
    """The CLI's --json shape (documented in the README)."""
    return {
        "run_id": view.run_id,
        "topic": view.topic,
        "status": view.status,
        "allocation": view.allocation.model_dump() if view.allocation else {},
        "allocation_origin": view.allocation_origin,
        "allocation_reasoning": view.allocation_reasoning,
        "research_questions": view.research_questions,
        "researchers": [
            {
                "id": r.id,
                "kind": r.kind,
                "iteration": r.iteration,
                "question": r.question,
                "queries": r.queries,
                "source_ids": r.source_ids,
                "status": r.status,
                "seconds": r.seconds,
            }
            for r in view.researchers.values()
        ],
        "sources": [
            {**{k: getattr(s, k) for k in _SOURCE_KEYS}, "reliability": s.reliability and s.reliability.model_dump()}
            for s in view.sources.values()
        ],
        "critiques": [{k: c.model_dump(mode="json")[k] for k in _CRITIQUE_KEYS} for c in view.critiques],
        "draft": view.draft,
        "citations": view.citations,
        "known_gaps": view.known_gaps,
        "report_shape": {**view.report_shape.model_dump(), "words": view.draft_words, "length_note": view.length_note},
        "stop_reason": view.stop_reason,
        "warnings": [{"source": w.source, "message": w.message} for w in view.warnings],
        "timings": {
            "seconds": view.seconds,
            "researchers": {r.id: r.seconds for r in view.researchers.values()},
        },
        "usage": {
            "calls": view.usage.calls,
            "failed_calls": view.usage.failed_calls,
            "prompt_tokens": view.usage.prompt_tokens,
            "completion_tokens": view.usage.completion_tokens,
            "cost_usd": view.usage.cost_usd,
        },
        "error": view.error,
        "plan_review": view.plan_review.model_dump(mode="json") if view.plan_review else None,
        "evidence": view.evidence,
        "evidence_detail": view.evidence_detail.model_dump(mode="json") if view.evidence_detail else {},
        "citation_precision": view.citation_precision,
        "claims": [c.model_dump(mode="json") for c in view.claims.claims] if view.claims else [],
        "revisions": [{"version": r.version, "reasons": r.reasons} for r in view.revisions],
    }
