"""The one interface behind which the reasoning backends (LLM and offline) sit."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

from research.relevance.coverage import QuestionEvidence
from research.report_shape import STANDARD, ShapeLayout
from research.schemas.llm_shapes import AnalystVerdict
from research.schemas.researchers import ResearcherAllocation, ResearcherKind
from research.schemas.state_shapes import ResearcherReport, ResearcherTask, Source, Usage


class BudgetExceeded(RuntimeError):
    """The run's model budget (RESEARCH_MAX_LLM_CALLS / RESEARCH_MAX_TOKENS) is spent.

    Not a failure of the model: the graph stops researching and writes from what it gathered.
    Fallback wrappers re-raise it rather than hiding it behind the offline brain.
    """

    def __init__(self, message: str, *, limit: str = "") -> None:
        super().__init__(message)
        self.limit = limit  # "max_llm_calls", "max_tokens" or "user_daily_llm_calls"


TextLookup = Callable[[str], str]
"""Returns the full text of a source by id ("" when unknown): the source store's `get`."""


@dataclass
class Plan:
    """The supervisor's plan: questions, and the brain's own allocation suggestion."""

    research_questions: list[str]
    reasoning: str
    allocation: ResearcherAllocation | None = None
    allocation_reasoning: str = ""
    # Why the brain's own allocation was rejected ("" when valid or not asked), so the graph can
    # fall back to the default allocation with a warning instead of crashing.
    allocation_error: str = ""
    # Who chose `allocation`: the model ("llm") or the offline classifier ("offline"), so the
    # origin shown to the user is truthful also when a model's plan step fell back to offline.
    origin: Literal["llm", "offline"] = "llm"


@dataclass
class NumberedSource:
    """A source as the writer cites it: [n]."""

    n: int
    source: Source


def number_sources(sources: Iterable[Source]) -> list[NumberedSource]:
    """The sources as the writer cites them, [1] onwards in the order given."""
    return [NumberedSource(n=i, source=s) for i, s in enumerate(sources, 1)]


# One request object per step with many inputs: the graph node builds it once, and the protocol,
# every brain and the fallback wrapper take it whole, so the list of inputs is written here only.


@dataclass(frozen=True)
class JudgeRequest:
    """What the analyst judges: the research so far against the plan's questions."""

    topic: str
    questions: list[str]
    sources: list[Source]
    reports: list[ResearcherReport]
    iteration: int  # the analyst's review number, 1 for the first
    text_of: TextLookup


@dataclass(frozen=True)
class WriteRequest:
    """What the writer drafts from: every [n] it cites must be one of `sources`."""

    topic: str
    questions: list[str]
    sources: list[NumberedSource]
    text_of: TextLookup
    known_gaps: list[str]
    # Per question, the sources that answer it (research/relevance/coverage.py): a section cites
    # only those, and says nothing relevant was found when there are none.
    coverage: tuple[QuestionEvidence, ...] = ()
    # How long each section runs (research/report_shape.py); the node renders the shape itself.
    layout: ShapeLayout = STANDARD.layout(0)


@dataclass(frozen=True)
class ReviseRequest:
    """A draft (markdown without its Sources list) to rewrite on the user's instruction."""

    draft: str
    instruction: str
    sources: list[NumberedSource]
    text_of: TextLookup
    # The headings of the sections to rewrite (the reviewer's: where its issues are); empty: all.
    sections: tuple[str, ...] = ()


class Brain(Protocol):
    name: str  # "offline" or the model name
    kind: str  # "offline" | "openai"

    def plan(self, topic: str, *, max_researchers: int, wants_allocation: bool) -> Plan: ...

    def queries(self, task: ResearcherTask, kind: ResearcherKind) -> list[str]: ...

    def notes(self, task: ResearcherTask, sources: list[Source], text_of: TextLookup) -> str: ...

    def judge(self, request: JudgeRequest) -> AnalystVerdict: ...

    def write(self, request: WriteRequest) -> str: ...

    def revise(self, request: ReviseRequest) -> str:
        """Rewrite the draft on the instruction, citing [n] only from the request's sources.
        Raises research.brains.offline.offline_revise.RevisionError when it cannot."""
        ...

    def take_usage(self) -> Usage:
        """Usage since the last call (zero for the offline brain)."""
        ...
