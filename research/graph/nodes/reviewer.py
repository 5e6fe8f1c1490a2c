"""Reviewer: a bounded review of the whole draft after the claim check (RESEARCH_REVIEW_ROUNDS).

It sees the draft and its claim check: unsupported claims, repeats across sections, questions left
unanswered (research/drafts/review.py). A model reviser rewrites (the brain's `revise`), the offline
reviser drops or replaces; either way each change is a new draft version with its reasons, checked
again. The writer's draft stays version 1.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from research.brains.base import NumberedSource, ReviseRequest
from research.drafts.citations import finalize_citations
from research.drafts.evidence import EvidenceStatus, assess_coverage, with_known_gaps
from research.drafts.review import ReviewIssues, find_issues, revise_offline
from research.events import emit
from research.events.payloads import DraftRevisedData
from research.graph.context import RunContext
from research.graph.nodes import Node
from research.graph.nodes.claim_check import checked
from research.graph.nodes.common import agent_log, report_usage, warn
from research.graph.nodes.run_coverage import emit_evidence
from research.graph.services import RunEnv, services_of
from research.graph.state import ResearchState
from research.schemas.llm_shapes import QuestionCoverage
from research.schemas.state_shapes import Draft, Source
from research.secrets import mask


def reviewer(state: ResearchState, runtime: Runtime[RunEnv]) -> ResearchState:
    ctx = services_of(runtime)
    draft, claims = state.get("draft"), state.get("claims") or []
    version = state.get("draft_version") or 1
    if draft is None or state.get("evidence") == "none":  # an empty run's draft makes no claims to review
        return {"draft_version": version}
    by_id = {s.id: s for s in state.get("sources", [])}
    questions = state.get("research_questions", [])
    for _round in range(ctx.settings.review_rounds):
        issues = find_issues(draft.markdown, claims, questions)
        if not issues.any:
            break
        numbered = {n: by_id[sid] for n, sid in draft.citations.items() if sid in by_id}
        # A question the review found unanswered is a Known gap now, in the JSON as in the draft,
        # whichever reviser rewrote it.
        gaps = draft.known_gaps + [q for q in issues.unanswered if q not in draft.known_gaps]
        body, reasons = _revise(ctx, draft.markdown, issues, numbered)
        body = with_known_gaps(body, gaps)
        cited = finalize_citations(body, numbered)
        if cited.markdown.strip() == draft.markdown.strip():
            break  # nothing the reviser could change
        version += 1
        draft = Draft(markdown=cited.markdown, citations=cited.citations, known_gaps=gaps)
        citations = {str(k): v for k, v in draft.citations.items()}
        emit(
            DraftRevisedData(
                version=version, markdown=draft.markdown, citations=citations, reasons=reasons, known_gaps=gaps
            )
        )
        agent_log.info("Reviewer: draft v%d (%d changes)", version, len(reasons))
        claims = checked(ctx, draft, version)
    update: ResearchState = {
        "draft": draft,
        "claims": claims,
        "draft_version": version,
        "route_history": [Node.REVIEWER.value],
    }
    first = state.get("draft")
    if first is not None and draft.known_gaps != first.known_gaps:  # the evidence reads the same gaps
        update["evidence"] = reassess(state, draft.known_gaps).evidence
    return update


def reassess(state: ResearchState, gaps: list[str]) -> EvidenceStatus:
    """The evidence again once the review found more questions unanswered (a new evidence_assessed)."""
    coverage = [QuestionCoverage(question=q, covered=q not in gaps) for q in state.get("research_questions", [])]
    searched = [q for r in state.get("reports", []) for q in r.queries]
    evidence = assess_coverage(coverage, len(state.get("sources", [])), searched)
    emit_evidence(evidence)
    return evidence


def _revise(ctx: RunContext, markdown: str, issues: ReviewIssues, numbered: dict[int, Source]) -> tuple[str, list[str]]:
    if ctx.brain.kind != "offline":
        sources = [NumberedSource(n=n, source=s) for n, s in sorted(numbered.items())]
        try:
            request = ReviseRequest(markdown, issues.instruction(), sources, ctx.text_of, tuple(issues.sections))
            body = ctx.brain.revise(request)
            report_usage(ctx, Node.REVIEWER)
            return body, _model_reasons(issues)
        except Exception as exc:  # noqa: BLE001 - a failed model reviser falls back, never loses the draft
            report_usage(ctx, Node.REVIEWER)
            message = mask(f"{type(exc).__name__}: {exc}", ctx.settings.secret_values())
            warn("reviewer", f"The model reviser failed ({message[:300]}); the offline reviser revised the draft.")
    return revise_offline(markdown, issues)


def _model_reasons(issues: ReviewIssues) -> list[str]:
    return (
        [f'Asked the model to fix an unsupported claim: "{s[:160]}"' for s in issues.unsupported]
        + [f'Asked the model to remove a repeated sentence: "{s[:160]}"' for s in issues.repeated]
        + [f'Asked the model to say the sources do not answer: "{q}"' for q in issues.unanswered]
    )
