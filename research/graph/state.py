"""Graph state and its reducers.

State carries source ids, metadata and short snippets only; page text lives in the source store,
so checkpoints stay small however much text the researchers read.
"""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from research.schemas import (
    CheckedClaim,
    Critique,
    Draft,
    ResearcherReport,
    ResearcherTask,
    ResolvedAllocation,
    RunWarning,
    Source,
)


def merge_sources(existing: list[Source] | None, new: list[Source] | None) -> list[Source]:
    """Append new sources, dropping any whose normalised URL (or id) is already present.

    First occurrence wins and order is stable, so parallel researchers merge deterministically.
    """
    merged = list(existing or [])
    seen = {s.dedupe_key for s in merged}
    for source in new or []:
        key = source.dedupe_key
        if key not in seen:
            seen.add(key)
            merged.append(source)
    return merged


class ResearchState(TypedDict, total=False):
    run_id: str
    topic: str
    requested_allocation: str | None  # "210" as the user gave it, None = let the model decide
    max_iterations: int
    allocation: ResolvedAllocation
    research_questions: list[str]
    sources: Annotated[list[Source], merge_sources]
    reports: Annotated[list[ResearcherReport], operator.add]
    critiques: Annotated[list[Critique], operator.add]
    research_iterations: int
    route_history: Annotated[list[str], operator.add]
    budget_exhausted: bool
    warnings: Annotated[list[RunWarning], operator.add]
    draft: Draft
    messages: Annotated[list[AnyMessage], add_messages]
    claims: list[CheckedClaim]  # the claim check of the latest draft version
    draft_version: int  # the latest draft version (the writer's is 1; each review adds one)
    evidence: str  # none | partial | sufficient (research.drafts.evidence), set by the writer
    review_plan: bool  # pause after the supervisor for the user to edit the plan (plan_review node)


class ResearcherState(TypedDict, total=False):
    """The researcher subgraph's own state; `sources`, `reports`, `messages`, `warnings` flow back up."""

    task: ResearcherTask
    queries: list[str]
    sources: Annotated[list[Source], merge_sources]
    reports: Annotated[list[ResearcherReport], operator.add]
    warnings: Annotated[list[RunWarning], operator.add]
    messages: Annotated[list[AnyMessage], add_messages]
    started_at: float


class RetrieveTask(TypedDict):
    """The payload of one Send() to the retrieve node: one query of one researcher."""

    task: ResearcherTask
    query: str
