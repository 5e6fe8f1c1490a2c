"""The shapes the graph's state carries: tasks, sources, reports, critiques, warnings, usage, drafts,
the request that starts a run, dropped sources and checked claims."""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator, model_validator

from research.report_shape import ReportShape
from research.schemas.llm_shapes import AnalystVerdict
from research.schemas.researchers import ResearcherKind, ResearcherOutcome
from research.schemas.source_quality import DropRule, Reliability, SourceControls, SourceFacts
from research.schemas.urls import library_place, normalise_url, source_id_for

MAX_TOPIC_CHARS = 2000
SNIPPET_CHARS = 600


class ResearcherTask(BaseModel):
    """The typed payload of one Send() to a researcher."""

    researcher_id: str
    kind: ResearcherKind
    question: str
    angle: str = ""
    iteration: int = 0
    topic: str = ""
    focus_queries: list[str] = Field(default_factory=list)


class Source(BaseModel):
    """One retrieved source, from any provider. Page text lives in the source store, not here."""

    id: str = ""
    title: str
    url: str = ""
    kind: ResearcherKind
    provider: str
    snippet: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    score: float = 0.0  # the provider's own ranking score
    relevance: float | None = None  # share of the run's subject terms the source contains (0-1)
    researcher_id: str | None = None
    query: str | None = None
    doi: str | None = None  # when the provider knows it (arXiv's DOI field): one work, one source
    facts: SourceFacts = Field(default_factory=SourceFacts)  # venue, citations, publisher, as provided
    reliability: Reliability | None = None  # scored by the router (research/sources/reliability.py)

    @field_validator("snippet")
    @classmethod
    def _short_snippet(cls, value: str) -> str:
        value = " ".join(value.split())
        return value if len(value) <= SNIPPET_CHARS else value[: SNIPPET_CHARS - 1].rstrip() + "…"

    @model_validator(mode="after")
    def _stable_id(self) -> Source:
        if not self.id:
            self.id = source_id_for(self.url or f"{self.provider}:{self.title}")
        return self

    @property
    def domain(self) -> str:
        """The host of a web address; a library document's file or collection (library_place)."""
        netloc = urlsplit(self.url).netloc.lower()
        return library_place(self.url) or netloc.removeprefix("www.") or self.provider

    @property
    def dedupe_key(self) -> str:
        return normalise_url(self.url) if self.url else self.id


class ResearcherReport(BaseModel):
    """What one researcher hands back to the graph."""

    researcher_id: str
    kind: ResearcherKind
    question: str
    iteration: int = 0
    queries: list[str] = Field(default_factory=list)
    source_ids: list[str] = Field(default_factory=list)
    notes: str = ""
    seconds: float = 0.0
    status: ResearcherOutcome = "done"
    error: str | None = None


class Critique(AnalystVerdict):
    """A verdict as recorded for one iteration."""

    iteration: int


class RunWarning(BaseModel):
    source: str
    message: str
    researcher_id: str | None = None


class Usage(BaseModel):
    calls: int = 0  # model calls made, failed attempts included (each one a unit of the call budget)
    failed_calls: int = 0  # of `calls`: attempts that got no usable reply (HTTP error, timeout, cut off)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # Estimated USD cost from the price table; None when no price is known for the model.
    cost_usd: float | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def price_unknown(self) -> bool:
        """Calls or tokens with no price: the cost is unknown (null), never 0."""
        return self.cost_usd is None and bool(self.calls or self.total_tokens)

    def __add__(self, other: Usage) -> Usage:
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        unknown = self.price_unknown or other.price_unknown  # a partial sum would understate the cost
        return Usage(
            calls=self.calls + other.calls,
            failed_calls=self.failed_calls + other.failed_calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=sum(costs) if costs and not unknown else None,
        )


class Draft(BaseModel):
    markdown: str
    citations: dict[int, str] = Field(default_factory=dict)
    known_gaps: list[str] = Field(default_factory=list)


class ResearchRequest(BaseModel):
    """What a caller asks for: a topic and, optionally, an allocation in "210" notation."""

    topic: str
    allocation: str | None = None
    llm: Literal["auto", "offline", "openai"] | None = None
    max_iterations: int | None = Field(None, ge=0, le=5)
    # Pause after the supervisor so the user can edit the questions and allocation (plan review).
    review_plan: bool = False
    # pipeline | agent; None = RESEARCH_RESEARCHER_MODE.
    researcher_mode: Literal["pipeline", "agent"] | None = None
    # Who asked (the signed-in user on a shared desk): recorded in the run_started event.
    started_by: str | None = Field(None, max_length=320)
    # Per-run choices (the dashboard's run options); None keeps the setting.
    model: str | None = Field(None, min_length=1, max_length=200, pattern=r"^[\w.:/@+-]+$")
    fast_model: str | None = Field(None, min_length=1, max_length=200, pattern=r"^[\w.:/@+-]+$")
    sources: Literal["auto", "live", "library"] | None = None
    source_controls: SourceControls = Field(default_factory=SourceControls)
    # Brief, standard, detailed or outline-first, and a target length (research/report_shape.py).
    report_shape: ReportShape = Field(default_factory=ReportShape)

    @field_validator("topic")
    @classmethod
    def _valid_topic(cls, value: str) -> str:
        return validate_topic(value)

    @field_validator("model", "fast_model", mode="before")
    @classmethod
    def _blank_model_is_none(cls, value: object) -> object:
        return value.strip() or None if isinstance(value, str) else value


class TopicError(ValueError):
    pass


def validate_topic(topic: str) -> str:
    stripped = (topic or "").strip()
    if not stripped:
        raise TopicError("Topic is empty: type a research question or subject (1-2,000 characters).")
    if len(stripped) > MAX_TOPIC_CHARS:
        raise TopicError(f"Topic is too long: {len(stripped):,} characters, at most 2,000 allowed.")
    return stripped


class DroppedSource(BaseModel):
    """A retrieved result kept out of the run: not about its subject, or outside its source controls."""

    title: str
    url: str = ""
    reason: str
    score: float = Field(ge=0.0, le=1.0)
    rule: DropRule = "off_topic"


Evidence = Literal["none", "partial", "sufficient"]
ClaimVerdict = Literal["supported", "partial", "unsupported", "unverifiable"]


# not_stated: the passage does not state it (too few of its terms, or the model judge says so);
# changed: a number, unit or identifier of the passage
# changed; off_question: it does not answer its section's question; no_text: nothing to check against.
ClaimFailure = Literal["", "not_stated", "changed", "off_question", "no_text"]


class CheckedClaim(BaseModel):
    n: int  # the [n] the sentence cites
    sentence: str
    source_id: str | None
    verdict: ClaimVerdict
    score: float = Field(ge=0.0, le=1.0)
    passage: str = ""  # the best-matching passage of the cited source's stored text
    section: str = ""
    failure: ClaimFailure = ""  # why it is not supported, as a kind ("" when it is)
    reason: str = ""  # the same in words: which number or identifier changed, which question it misses
    # Whose verdict this is when a model judge ran: "model", or "offline" for a claim it did not
    # reach (the run's call cap, a failed batch, past MAX_JUDGED_CLAIMS, no stored text). None: the
    # check's own method (an offline check, or a record written before claims were marked).
    judged_by: Literal["offline", "model"] | None = None
