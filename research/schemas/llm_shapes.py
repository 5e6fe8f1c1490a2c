"""What a brain returns to the graph: the supervisor's decision and plan, a researcher's queries,
the analyst's verdict and the claim judge's judgements (model output schemas, validated strictly)."""

from __future__ import annotations

import functools
from typing import Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue, create_model, model_validator
from pydantic.json_schema import SkipJsonSchema

from research.schemas.researchers import MAX_PER_KIND, ResearcherAllocation

VerdictStatus = Literal["APPROVED", "NEEDS_IMPROVEMENT"]
SupervisorAction = Literal["conduct_research", "refine_draft", "research_complete"]


class SupervisorDecision(BaseModel):
    """The supervisor's structured decision (the model's output schema, validated strictly)."""

    model_config = ConfigDict(extra="forbid")

    action: SupervisorAction
    reasoning: str
    research_questions: list[str] = Field(default_factory=list)
    web_researchers: int = Field(0, ge=0, le=MAX_PER_KIND)
    academic_researchers: int = Field(0, ge=0, le=MAX_PER_KIND)
    book_researchers: int = Field(0, ge=0, le=MAX_PER_KIND)
    allocation_reasoning: str = ""
    # Not part of the model's schema: the researcher cap in force, set by the caller.
    max_researchers: SkipJsonSchema[int] = Field(3, ge=1, le=9, exclude=True)

    @property
    def allocation(self) -> ResearcherAllocation:
        return ResearcherAllocation(
            web=self.web_researchers, academic=self.academic_researchers, book=self.book_researchers
        )

    @model_validator(mode="after")
    def _research_needs_researchers(self) -> SupervisorDecision:
        if self.action == "conduct_research":
            total = self.allocation.total
            if total < 1:
                raise ValueError("conduct_research needs at least 1 researcher, got 0")
            if total > self.max_researchers:
                raise ValueError(f"conduct_research allows at most {self.max_researchers} researchers, got {total}")
        return self


class ResearchPlan(BaseModel):
    """What the LLM supervisor returns: questions plus an optional allocation."""

    reasoning: str = ""
    research_questions: list[str] = Field(default_factory=list)
    web_researchers: int = 1
    academic_researchers: int = 1
    book_researchers: int = 1
    allocation_reasoning: str = ""


class QueryPlan(BaseModel):
    """Queries one researcher will run (2-3, type-specific)."""

    queries: list[str] = Field(default_factory=list)


class QuestionCoverage(BaseModel):
    question: str
    covered: bool
    source_count: int = 0
    note: str = ""


class AnalystVerdict(BaseModel):
    """The analyst's strict verdict on the gathered research."""

    status: VerdictStatus
    critique: list[str] = Field(default_factory=list)
    missing_topics: list[str] = Field(default_factory=list)
    recommended_queries: list[str] = Field(default_factory=list)
    coverage: list[QuestionCoverage] = Field(default_factory=list)


class ClaimJudgement(BaseModel):
    """The model judge's verdict on one numbered claim (see prompts.CLAIM_JUDGE_SYSTEM)."""

    model_config = ConfigDict(extra="forbid")
    index: int = Field(ge=1, description="the claim's number as given")
    verdict: Literal["supported", "partial", "unsupported"]
    addresses_question: bool = Field(True, description="whether the claim answers its section's question")
    reason: str = Field("", max_length=300)


class ClaimJudgements(BaseModel):
    model_config = ConfigDict(extra="forbid")
    judgements: list[ClaimJudgement] = Field(max_length=200)


@functools.lru_cache(maxsize=16)
def claim_judgements_schema(count: int) -> type[ClaimJudgements]:
    """ClaimJudgements whose `index` may only be 1..count in the JSON schema sent (a grammar on
    llama-cpp: a judgement cannot name a claim the call did not show); validation is unchanged."""
    numbers: list[JsonValue] = list(range(1, max(1, count) + 1))
    build: Any = create_model  # a field redefined at run time: the overloads cannot type it
    index = Field(ge=1, description="the claim's number as given", json_schema_extra={"enum": numbers})
    item: Any = build(ClaimJudgement.__name__, __base__=ClaimJudgement, index=(int, index))
    listed: Any = list[item]
    return cast(
        "type[ClaimJudgements]",
        build(ClaimJudgements.__name__, __base__=ClaimJudgements, judgements=(listed, Field(max_length=200))),
    )
