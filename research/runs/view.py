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
from research.events.status import RunStatus
from research.schemas import Source
from research.sources.identity import WorkIndex

PHASES = ("supervisor", "researchers", "analyst", "writer")


@dataclass
class ResearcherView:
    id: str
    kind: str
    iteration: int = 0
    question: str = ""
    angle: str = ""
    queries: list[str] = field(default_factory=list)
    status: str = "running"  # running | done | failed
    source_ids: list[str] = field(default_factory=list)
    seconds: float | None = None
    notes: str = ""
    error: str | None = None
    started_ts: float | None = None
    # Agent mode: the tool_called data in order, and the worker's own messages (its transcript).
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    transcript: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)  # {query, title, url, reason, score}
    # The model call in progress for this researcher (model_progress): step and tokens so far.
    model_step: str | None = None
    model_tokens: int = 0

    @property
    def is_follow_up(self) -> bool:
        return self.iteration > 0


@dataclass
class RunView:
    run_id: str = ""
    topic: str = ""
    status: RunStatus = RunStatus.PENDING
    brain: str = ""
    model: str = ""
    source_mode: str = ""
    researcher_mode: str = "pipeline"
    max_iterations: int | None = None
    phase: str | None = None
    iteration: int = 0
    allocation: dict[str, int] = field(default_factory=dict)
    allocation_origin: str | None = None
    allocation_reasoning: str = ""
    plan_reasoning: str = ""
    research_questions: list[str] = field(default_factory=list)
    researchers: dict[str, ResearcherView] = field(default_factory=dict)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> Source fields, one per work
    critiques: list[dict[str, Any]] = field(default_factory=list)
    draft: str | None = None
    citations: dict[str, str] = field(default_factory=dict)
    known_gaps: list[str] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, str]] = field(default_factory=list)
    stop_reason: str | None = None  # why research stopped (research_stopped), e.g. "loop_guard"
    _works: WorkIndex = field(default_factory=WorkIndex, repr=False, compare=False)  # identity of each work
    usage: dict[str, Any] = field(
        default_factory=lambda: {
            "calls": 0,
            "failed_calls": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cost_usd": 0.0,
            "by_node": {},
        }
    )
    started_ts: float | None = None
    finished_ts: float | None = None
    seconds: float | None = None
    error: str | None = None
    last_seq: int = 0
    # While paused for plan review: the plan_review_requested data (allocation, research_questions,
    # limits); None otherwise.
    plan_review: dict[str, Any] | None = None
    started_by: str | None = None  # the signed-in user who started the run (shared desks)
    # Trust (issue 11): the evidence_assessed data, the latest claims_checked data, reviewer versions.
    evidence: str | None = None  # none | partial | sufficient
    evidence_detail: dict[str, Any] = field(default_factory=dict)
    claims: dict[str, Any] = field(default_factory=dict)
    claims_by_version: dict[int, dict[str, Any]] = field(default_factory=dict)
    revisions: list[dict[str, Any]] = field(default_factory=list)
    # The writer's draft as it streams (draft_delta), until draft_ready replaces it.
    draft_preview: str = ""
    # Model calls in progress outside researchers (supervisor, analyst, writer): node -> tokens.
    model_progress: dict[str, int] = field(default_factory=dict)

    @property
    def allocation_notation(self) -> str:
        a = self.allocation
        return f"{a.get('web', 0)}{a.get('academic', 0)}{a.get('book', 0)}" if a else ""

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

    # --- one handler per event type; `d` is the type's payload model (research/events/payloads.py) ---
    def _on_run_started(self, e: Event, d: p.RunStarted) -> None:
        self.run_id, self.topic, self.status = e.run_id, d.topic, RunStatus.RUNNING
        self.brain, self.model = d.brain, d.model
        self.source_mode, self.max_iterations = d.source_mode, d.max_iterations
        self.researcher_mode = d.get("researcher_mode") or "pipeline"
        self.started_ts = e.ts
        self.phase = "supervisor"
        self.started_by = d.get("started_by")

    def _on_phase(self, e: Event, d: p.Phase) -> None:
        self.phase = d.phase
        self.iteration = e.iteration or 0

    def _on_allocation_decided(self, e: Event, d: p.AllocationDecided) -> None:
        self.allocation = d.allocation.model_dump()
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
            kept = self._add_source(source.model_dump())
            if kept not in researcher.source_ids:
                researcher.source_ids.append(kept)

    def _add_source(self, fields: dict[str, Any]) -> str:
        """One entry per work (the graph's reducer applies the same rule); returns the kept id."""
        known: str = fields["id"]  # a Source's fields, so the id is a str
        if known in self.sources:
            return known
        merged, replaced = self._works.add(Source.model_validate(fields))
        if replaced is None:
            self.sources[merged.id] = fields
        else:  # the same work again: the richer record takes the earlier one's place
            self.sources = {
                (merged.id if k == replaced else k): (merged.model_dump() if k == replaced else v)
                for k, v in self.sources.items()
            }
        return merged.id

    def _on_sources_dropped(self, e: Event, d: p.Payload) -> None:
        dropped = d.model_dump(mode="json").get("dropped", [])
        self._researcher(e).dropped.extend({"query": d.get("query", ""), **x} for x in dropped)

    def _on_researcher_finished(self, e: Event, d: p.ResearcherFinished) -> None:
        r = self._researcher(e)
        r.status = d.status
        r.source_ids = list(d.source_ids or r.source_ids)
        r.seconds, r.notes, r.error = d.seconds, d.notes, d.error

    def _on_tool_called(self, e: Event, d: p.Payload) -> None:
        self._researcher(e).tool_calls.append(d.model_dump(mode="json"))

    def _on_worker_message(self, e: Event, d: p.Payload) -> None:
        self._researcher(e).transcript.append(d.model_dump(mode="json"))

    def _on_critique_issued(self, e: Event, d: p.CritiqueIssued) -> None:
        self.critiques.append({"iteration": e.iteration or 0, **d.model_dump(mode="json")})

    def _on_draft_ready(self, e: Event, d: p.DraftReady) -> None:
        self.draft, self.draft_preview = d.markdown, ""
        self.citations = dict(d.citations)
        self.known_gaps = list(d.known_gaps)

    def _on_model_progress(self, e: Event, d: p.Payload) -> None:
        tokens = 0 if d.get("done") else int(d.get("tokens") or 0)
        if e.researcher_id:
            r = self._researcher(e)
            r.model_step, r.model_tokens = (None, 0) if d.get("done") else (d.get("step"), tokens)
        elif d.get("done"):
            self.model_progress.pop(d.get("node", "?"), None)
        else:
            self.model_progress[d.get("node", "?")] = tokens

    def _on_draft_delta(self, e: Event, d: p.Payload) -> None:
        self.draft_preview += str(d.get("text") or "")

    def _on_message(self, e: Event, d: p.Message) -> None:
        self.messages.append({"name": d.name, "content": d.content})

    def _on_usage(self, e: Event, d: p.UsageReported) -> None:
        counts = {
            "calls": d.calls,
            "failed_calls": d.failed_calls,
            "prompt_tokens": d.prompt_tokens,
            "completion_tokens": d.completion_tokens,
        }
        node = self.usage["by_node"].setdefault(d.node, dict.fromkeys(counts, 0))
        for key, value in counts.items():
            self.usage[key] = self.usage.get(key, 0) + value
            node[key] = node.get(key, 0) + value
        # One call of a model without a price makes the run's cost unknown: null, never a partial sum.
        if d.cost_usd is None and (d.calls or d.prompt_tokens or d.completion_tokens):
            self.usage["price_unknown"] = True
        if self.usage.get("price_unknown"):
            self.usage["cost_usd"] = None
        elif d.cost_usd is not None:
            self.usage["cost_usd"] = (self.usage["cost_usd"] or 0.0) + d.cost_usd

    def _on_evidence_assessed(self, e: Event, d: p.Payload) -> None:
        self.evidence, self.evidence_detail = d.get("evidence"), d.model_dump(mode="json")

    def _on_claims_checked(self, e: Event, d: p.Payload) -> None:
        self.claims = d.model_dump(mode="json")
        self.claims_by_version[int(d.get("version") or 1)] = self.claims

    def _on_draft_revised(self, e: Event, d: p.Payload) -> None:
        self.draft = d.get("markdown") or self.draft
        self.citations = {str(k): v for k, v in (d.get("citations") or {}).items()} or self.citations
        self.revisions.append({"version": d.get("version"), "reasons": list(d.get("reasons") or [])})

    @property
    def citation_precision(self) -> float | None:
        value = self.claims.get("precision") if self.claims else None
        return float(value) if value is not None else None

    def _on_warning(self, e: Event, d: p.Warning) -> None:
        self.warnings.append({"source": d.source, "message": d.message, "researcher_id": e.researcher_id})

    def _on_run_finished(self, e: Event, d: p.RunFinished) -> None:
        self.status = d.status
        self.evidence = d.evidence or self.evidence
        self.finished_ts, self.seconds, self.phase = e.ts, d.seconds, None

    def _on_plan_review_requested(self, e: Event, d: p.PlanReviewRequested) -> None:
        self.status, self.plan_review = RunStatus.PAUSED, d.model_dump(mode="json")

    def _on_plan_approved(self, e: Event, d: p.PlanApproved) -> None:
        self.status, self.plan_review, self.phase = RunStatus.RUNNING, None, "researchers"
        self.allocation = d.allocation.model_dump()
        self.allocation_origin = d.origin or self.allocation_origin
        self.allocation_reasoning = d.reasoning or self.allocation_reasoning
        self.research_questions = list(d.research_questions) or self.research_questions

    def _on_run_cancelled(self, e: Event, d: p.RunCancelled) -> None:
        self.status, self.plan_review, self.phase, self.finished_ts = RunStatus.CANCELLED, None, None, e.ts
        if self.started_ts:
            self.seconds = round(e.ts - self.started_ts, 3)

    def _on_research_stopped(self, e: Event, d: p.Payload) -> None:
        self.stop_reason = d.get("reason")

    def _on_run_failed(self, e: Event, d: p.RunFailed) -> None:
        self.status, self.error, self.finished_ts = RunStatus.FAILED, d.error, e.ts
        if self.started_ts:
            self.seconds = round(e.ts - self.started_ts, 3)


def fold(events: Iterable[Event], view: RunView | None = None) -> RunView:
    view = view or RunView()
    for event in events:
        view.apply(event)
    return view


def to_json(view: RunView) -> dict[str, Any]:
    """The CLI's --json shape (documented in the README)."""
    return {
        "run_id": view.run_id,
        "topic": view.topic,
        "status": view.status,
        "allocation": view.allocation,
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
            {
                k: s.get(k)
                for k in ("id", "title", "url", "kind", "provider", "year", "snippet", "authors", "researcher_id")
            }
            for s in view.sources.values()
        ],
        "critiques": [
            {
                k: c.get(k)
                for k in ("iteration", "status", "critique", "missing_topics", "recommended_queries", "coverage")
            }
            for c in view.critiques
        ],
        "draft": view.draft,
        "citations": view.citations,
        "known_gaps": view.known_gaps,
        "stop_reason": view.stop_reason,
        "warnings": [{"source": w["source"], "message": w["message"]} for w in view.warnings],
        "timings": {
            "seconds": view.seconds,
            "researchers": {r.id: r.seconds for r in view.researchers.values()},
        },
        "usage": {
            k: view.usage[k] for k in ("calls", "failed_calls", "prompt_tokens", "completion_tokens", "cost_usd")
        },
        "error": view.error,
        "plan_review": view.plan_review,
        "evidence": view.evidence,
        "evidence_detail": view.evidence_detail,
        "citation_precision": view.citation_precision,
        "claims": view.claims.get("claims", []),
        "revisions": view.revisions,
    }
