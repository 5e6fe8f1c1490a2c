"""A run as its panels show it: the fold of its event log.

The dashboard, the CLI's --json output, history, replay and comparison all read runs through this
one fold, so they can never disagree about what happened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from research.events import Event

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
    status: str = "pending"  # pending | running | paused | finished | failed | cancelled
    brain: str = ""
    model: str = ""
    source_mode: str = ""
    max_iterations: int | None = None
    phase: str | None = None
    iteration: int = 0
    allocation: dict[str, int] = field(default_factory=dict)
    allocation_origin: str | None = None
    allocation_reasoning: str = ""
    plan_reasoning: str = ""
    research_questions: list[str] = field(default_factory=list)
    researchers: dict[str, ResearcherView] = field(default_factory=dict)
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> Source fields (first seen)
    critiques: list[dict[str, Any]] = field(default_factory=list)
    draft: str | None = None
    citations: dict[str, str] = field(default_factory=dict)
    known_gaps: list[str] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, str]] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=lambda: {"calls": 0, "failed_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "by_node": {}})
    started_ts: float | None = None
    finished_ts: float | None = None
    seconds: float | None = None
    error: str | None = None
    last_seq: int = 0
    # While paused for plan review: the plan_review_requested data (allocation, research_questions,
    # limits); None otherwise.
    plan_review: dict[str, Any] | None = None
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
        return self.status in ("finished", "failed", "cancelled")

    @property
    def paused(self) -> bool:
        return self.status == "paused"

    def apply(self, event: Event) -> None:
        handler = getattr(self, f"_on_{event.type}", None)
        if handler:
            handler(event, event.data)
        self.last_seq = max(self.last_seq, event.seq)

    # --- one handler per event type ---------------------------------------------------------
    def _on_run_started(self, e: Event, d: dict) -> None:
        self.run_id, self.topic, self.status = e.run_id, d.get("topic", ""), "running"
        self.brain, self.model = d.get("brain", ""), d.get("model", "")
        self.source_mode, self.max_iterations = d.get("source_mode", ""), d.get("max_iterations")
        self.started_ts = e.ts
        self.phase = "supervisor"

    def _on_phase(self, e: Event, d: dict) -> None:
        self.phase = d.get("phase")
        self.iteration = e.iteration or 0

    def _on_allocation_decided(self, e: Event, d: dict) -> None:
        self.allocation = d.get("allocation", {})
        self.allocation_origin = d.get("origin")
        self.allocation_reasoning = d.get("reasoning", "")
        self.plan_reasoning = d.get("plan_reasoning", "")
        self.research_questions = d.get("research_questions", [])
        self.phase = "researchers"

    def _on_researcher_started(self, e: Event, d: dict) -> None:
        rid = e.researcher_id or "?"
        self.researchers[rid] = ResearcherView(
            id=rid, kind=d.get("kind", ""), iteration=e.iteration or 0, question=d.get("question", ""),
            angle=d.get("angle", ""), started_ts=e.ts,
        )

    def _researcher(self, e: Event) -> ResearcherView:
        rid = e.researcher_id or "?"
        if rid not in self.researchers:
            self.researchers[rid] = ResearcherView(id=rid, kind=rid.split("-")[0], iteration=e.iteration or 0)
        return self.researchers[rid]

    def _on_queries_generated(self, e: Event, d: dict) -> None:
        self._researcher(e).queries = list(d.get("queries", []))

    def _on_sources_found(self, e: Event, d: dict) -> None:
        researcher = self._researcher(e)
        for source in d.get("sources", []):
            self.sources.setdefault(source["id"], source)
            if source["id"] not in researcher.source_ids:
                researcher.source_ids.append(source["id"])

    def _on_researcher_finished(self, e: Event, d: dict) -> None:
        r = self._researcher(e)
        r.status = d.get("status", "done")
        r.source_ids = list(d.get("source_ids") or r.source_ids)
        r.seconds, r.notes, r.error = d.get("seconds"), d.get("notes", ""), d.get("error")

    def _on_critique_issued(self, e: Event, d: dict) -> None:
        self.critiques.append({"iteration": e.iteration or 0, **d})

    def _on_draft_ready(self, e: Event, d: dict) -> None:
        self.draft, self.draft_preview = d.get("markdown"), ""
        self.citations = {str(k): v for k, v in (d.get("citations") or {}).items()}
        self.known_gaps = list(d.get("known_gaps", []))

    def _on_model_progress(self, e: Event, d: dict) -> None:
        tokens = 0 if d.get("done") else int(d.get("tokens") or 0)
        if e.researcher_id:
            r = self._researcher(e)
            r.model_step, r.model_tokens = (None, 0) if d.get("done") else (d.get("step"), tokens)
        elif d.get("done"):
            self.model_progress.pop(d.get("node", "?"), None)
        else:
            self.model_progress[d.get("node", "?")] = tokens

    def _on_draft_delta(self, e: Event, d: dict) -> None:
        self.draft_preview += str(d.get("text") or "")

    def _on_message(self, e: Event, d: dict) -> None:
        self.messages.append({"name": d.get("name", ""), "content": d.get("content", "")})

    def _on_usage(self, e: Event, d: dict) -> None:
        keys = ("calls", "failed_calls", "prompt_tokens", "completion_tokens")
        for key in keys:
            self.usage[key] = self.usage.get(key, 0) + int(d.get(key) or 0)
        self.usage["cost_usd"] += float(d.get("cost_usd") or 0.0)
        node = self.usage["by_node"].setdefault(d.get("node", "?"), dict.fromkeys(keys, 0))
        for key in keys:
            node[key] = node.get(key, 0) + int(d.get(key) or 0)

    def _on_warning(self, e: Event, d: dict) -> None:
        self.warnings.append({"source": d.get("source", ""), "message": d.get("message", ""), "researcher_id": e.researcher_id})

    def _on_run_finished(self, e: Event, d: dict) -> None:
        self.status = d.get("status", "finished")
        self.finished_ts, self.seconds, self.phase = e.ts, d.get("seconds"), None

    def _on_plan_review_requested(self, e: Event, d: dict) -> None:
        self.status, self.plan_review = "paused", dict(d)

    def _on_plan_approved(self, e: Event, d: dict) -> None:
        self.status, self.plan_review, self.phase = "running", None, "researchers"
        self.allocation = d.get("allocation", self.allocation)
        self.allocation_origin = d.get("origin", self.allocation_origin)
        self.allocation_reasoning = d.get("reasoning", self.allocation_reasoning)
        self.research_questions = d.get("research_questions", self.research_questions)

    def _on_run_cancelled(self, e: Event, d: dict) -> None:
        self.status, self.plan_review, self.phase, self.finished_ts = "cancelled", None, None, e.ts
        if self.started_ts:
            self.seconds = round(e.ts - self.started_ts, 3)

    def _on_run_failed(self, e: Event, d: dict) -> None:
        self.status, self.error, self.finished_ts = "failed", d.get("error"), e.ts
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
            {"id": r.id, "kind": r.kind, "iteration": r.iteration, "question": r.question,
             "queries": r.queries, "source_ids": r.source_ids, "status": r.status, "seconds": r.seconds}
            for r in view.researchers.values()
        ],
        "sources": [
            {k: s.get(k) for k in ("id", "title", "url", "kind", "provider", "year", "snippet", "authors", "researcher_id")}
            for s in view.sources.values()
        ],
        "critiques": [
            {k: c.get(k) for k in ("iteration", "status", "critique", "missing_topics", "recommended_queries", "coverage")}
            for c in view.critiques
        ],
        "draft": view.draft,
        "citations": view.citations,
        "known_gaps": view.known_gaps,
        "warnings": [{"source": w["source"], "message": w["message"]} for w in view.warnings],
        "timings": {
            "seconds": view.seconds,
            "researchers": {r.id: r.seconds for r in view.researchers.values()},
        },
        "usage": {k: view.usage[k] for k in ("calls", "failed_calls", "prompt_tokens", "completion_tokens", "cost_usd")},
        "error": view.error,
        "plan_review": view.plan_review,
    }
