"""Researcher allocation: the "210" notation, its rules, and who decides (user > model > default)."""

from __future__ import annotations

from typing import Literal, TypedDict

from research.events.payloads import Counts
from research.schemas.researchers import (
    MAX_PER_KIND,
    RESEARCHER_KINDS,
    ResearcherAllocation,
    ResearcherKind,
    ResolvedAllocation,
)

DEFAULT_ALLOCATION = ResearcherAllocation(web=1, academic=1, book=1)


class AllocationError(ValueError):
    """An allocation broke a rule. The message names the rule and the value given."""


def check_allocation(allocation: ResearcherAllocation, max_total: int = 3) -> ResearcherAllocation:
    if not 1 <= allocation.total <= max_total:
        raise AllocationError(f"Total must be 1-{max_total}, got {allocation.total}")
    return allocation


def parse_allocation(text: str, max_total: int = 3) -> ResearcherAllocation:
    """Parse "210" (2 web, 1 academic, 0 book): exactly 3 digits, each 0-3, total 1-max_total."""
    value = (text or "").strip()
    if len(value) != 3 or not value.isascii() or not value.isdigit():
        raise AllocationError(
            f"Expected 3 digits (web, academic, book), got {value!r}"
            if value
            else "Expected 3 digits (web, academic, book), got nothing"
        )
    digits = [int(ch) for ch in value]
    if any(d > MAX_PER_KIND for d in digits):
        raise AllocationError(f"Each digit must be 0-{MAX_PER_KIND}, got {value!r}")
    return check_allocation(ResearcherAllocation(web=digits[0], academic=digits[1], book=digits[2]), max_total)


def resolve_allocation(
    user: ResearcherAllocation | None,
    model: ResearcherAllocation | None,
    *,
    model_reasoning: str = "",
    max_total: int = 3,
    model_origin: Literal["llm", "offline"] = "llm",
) -> tuple[ResolvedAllocation, str | None]:
    """Pick the allocation by priority. Returns it and a warning when the model's choice was invalid."""
    if user is not None:
        return ResolvedAllocation(
            allocation=check_allocation(user, max_total),
            origin="user",
            reasoning=f"Set by the user ({user.notation}).",
        ), None
    if model is not None:
        try:
            check_allocation(model, max_total)
        except AllocationError as exc:
            warning = f"The model's allocation {model.notation} was invalid ({exc}); used the default 111."
            return _default("The model's allocation was invalid."), warning
        return ResolvedAllocation(allocation=model, origin=model_origin, reasoning=model_reasoning), None
    return _default("No allocation given; the balanced default."), None


def _default(reason: str) -> ResolvedAllocation:
    return ResolvedAllocation(allocation=DEFAULT_ALLOCATION, origin="default", reasoning=reason)


def researcher_ids(allocation: ResearcherAllocation, iteration: int = 0) -> list[tuple[str, ResearcherKind]]:
    """Stable ids in kind order: web-1, web-2, academic-1 ... Follow-ups get an iteration suffix."""
    suffix = f"-r{iteration}" if iteration else ""
    return [(f"{kind}-{i}{suffix}", kind) for kind in RESEARCHER_KINDS for i in range(1, allocation.count(kind) + 1)]


class DecidedPlan(TypedDict):
    """The fields of a plan decision event (payloads.PlanDecision): the supervisor's and plan review's."""

    allocation: Counts
    origin: str
    reasoning: str
    research_questions: list[str]


def decided_plan(resolved: ResolvedAllocation, questions: list[str]) -> DecidedPlan:
    return DecidedPlan(
        allocation=Counts.model_validate(resolved.allocation.model_dump()),
        origin=resolved.origin,
        reasoning=resolved.reasoning,
        research_questions=questions,
    )
