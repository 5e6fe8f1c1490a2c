"""Graph state and its reducers.

State carries source ids, metadata and short snippets only; page text lives in the source store,
so checkpoints stay small however much text the researchers read.
"""

from __future__ import annotations

import operator
from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from research.report_shape import ReportShape, ShapeName
from research.schemas.researchers import ResolvedAllocation
from research.schemas.state_shapes import (
    CheckedClaim,
    Critique,
    Draft,
    ResearcherReport,
    ResearcherTask,
    RunWarning,
    Source,
)
from research.sources.identity import add_works


def merge_sources(existing: list[Source] | None, new: list[Source] | None) -> list[Source]:
    """Append new sources, one record per work (research/sources/identity.py): the same URL, arXiv
    id (any version), DOI or title + year is one work, and its richest record is kept.

    Works keep the place of their first appearance and the kept record does not depend on arrival
    order, so parallel researchers merge deterministically.
    """
    return add_works(list(existing or []), new or [])


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
    run_started_at: float  # set by the begin node (epoch seconds), for run_finished's seconds
    claims: list[CheckedClaim]  # the claim check of the latest draft version
    draft_version: int  # the latest draft version (the writer's is 1; each review adds one)
    evidence: str  # none | partial | sufficient (research.drafts.evidence), set by the writer
    review_plan: bool  # pause after the supervisor for the user to edit the plan (plan_review node)
    # The report's shape and target length, as plain values so a server run's JSON input carries them.
    report_shape: ShapeName
    target_words: int | None


def shape_input(shape: ReportShape) -> ResearchState:
    """The graph input that asks for `shape` (nothing for the standard shape)."""
    return {} if shape.is_default else {"report_shape": shape.shape, "target_words": shape.target_words}


def shape_of(state: ResearchState) -> ReportShape:
    return ReportShape(shape=state.get("report_shape", "standard"), target_words=state.get("target_words"))


class ResearcherState(TypedDict, total=False):
    """A researcher's task and what it hands back (`sources`, `reports`, `messages`, `warnings`);
    its queries and start time pass between its own steps (research/graph/nodes/researcher.py)."""

    task: ResearcherTask
    queries: list[str]
    sources: Annotated[list[Source], merge_sources]
    reports: Annotated[list[ResearcherReport], operator.add]
    warnings: Annotated[list[RunWarning], operator.add]
    messages: Annotated[list[AnyMessage], add_messages]
    started_at: float


class RetrieveTask(TypedDict):
    """One query of one researcher, for one retrieve."""

    task: ResearcherTask
    query: str


class PlanAnswer(TypedDict):
    """The user's answer to plan review, the value a paused run is resumed with (None keeps that part)."""

    questions: list[str] | None
    allocation: str | None  # "210"
