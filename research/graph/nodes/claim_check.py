"""Claim check: after the writer, every cited sentence against the stored text of the source it
cites (research/drafts/claims.py); with a model, a judge in batches on top (brains/llm/claim_judge.py).
A judge that fails degrades to the offline verdicts with a warning; one the run's call cap (or a
failed call) stops part way keeps the verdicts it gave, and each claim says whose verdict it has."""

from __future__ import annotations

from langgraph.runtime import Runtime

from research.brains.llm.claim_judge import judge_claims
from research.drafts.claims import check_claims, precision
from research.events import emit
from research.events.payloads import ClaimsCheckedData
from research.graph.context import RunContext
from research.graph.nodes.common import agent_log, report_usage, warn
from research.graph.services import RunEnv, services_of
from research.graph.state import ResearchState
from research.schemas.state_shapes import CheckedClaim, Draft
from research.secrets import mask

CLAIM_CHECK = "claim_check"


def checked(ctx: RunContext, draft: Draft, version: int) -> list[CheckedClaim]:
    """Check one draft version's claims and emit them (`claims_checked`)."""
    claims = check_claims(draft.markdown, dict(draft.citations), ctx.text_of)
    method = "offline"
    if ctx.brain.kind != "offline" and any(c.verdict != "unverifiable" for c in claims):

        def note(message: str) -> None:
            warn(CLAIM_CHECK, mask(f"{message[:1].upper()}{message[1:]}.", ctx.settings.secret_values()))

        try:
            claims, method = judge_claims(ctx.brain, claims, draft.markdown, note), "model"
        except Exception as exc:  # noqa: BLE001 - a failed judge must not lose the check
            message = mask(f"{type(exc).__name__}: {exc}", ctx.settings.secret_values())
            warn(CLAIM_CHECK, f"The model claim judge failed ({message[:300]}); claims were checked offline.")
        report_usage(ctx, CLAIM_CHECK)
    score = precision(claims)
    emit(ClaimsCheckedData(version=version, method=method, claims=claims, precision=score))
    agent_log.info("Claim check (v%d, %s): %d claims, precision %s", version, method, len(claims), score)
    return claims


def claim_check(state: ResearchState, runtime: Runtime[RunEnv]) -> ResearchState:
    draft = state.get("draft")
    if draft is None:
        return {}
    return {"claims": checked(services_of(runtime), draft, version=1)}
