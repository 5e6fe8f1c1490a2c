"""Every data shape the engine passes around: allocation, decisions, sources, verdicts, reports.

Nodes, brains and providers import from here; nothing here imports them back.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.json_schema import SkipJsonSchema

from research.source_quality import DropRule, Reliability, SourceControls, SourceFacts

ResearcherKind = Literal["web", "academic", "book"]
RESEARCHER_KINDS: tuple[ResearcherKind, ...] = ("web", "academic", "book")
# user: set by the user; llm: the model chose it; offline: the offline classifier chose it (also when
# the model's plan step fell back to the offline brain); default: the balanced 111.
AllocationOrigin = Literal["user", "llm", "offline", "default"]
VerdictStatus = Literal["APPROVED", "NEEDS_IMPROVEMENT"]
SupervisorAction = Literal["conduct_research", "refine_draft", "research_complete"]

MAX_PER_KIND = 3
MAX_TOPIC_CHARS = 2000
SNIPPET_CHARS = 600


class ResearcherAllocation(BaseModel):
    """How many researchers of each kind a run sends ("210" = 2 web, 1 academic, 0 book)."""

    model_config = ConfigDict(frozen=True)

    web: int = Field(0, ge=0, le=MAX_PER_KIND)
    academic: int = Field(0, ge=0, le=MAX_PER_KIND)
    book: int = Field(0, ge=0, le=MAX_PER_KIND)

    @property
    def total(self) -> int:
        return self.web + self.academic + self.book

    @property
    def notation(self) -> str:
        return f"{self.web}{self.academic}{self.book}"

    def count(self, kind: ResearcherKind) -> int:
        return int(getattr(self, kind))

    def __str__(self) -> str:
        return self.notation


class ResolvedAllocation(BaseModel):
    """The allocation a run uses, where it came from and why."""

    allocation: ResearcherAllocation
    origin: AllocationOrigin
    reasoning: str = ""


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
        netloc = urlsplit(self.url).netloc.lower()
        return netloc.removeprefix("www.") or self.provider

    @property
    def dedupe_key(self) -> str:
        return normalise_url(self.url) if self.url else self.id


_TRACKING_PREFIXES = ("utm_", "mc_")
_TRACKING_NAMES = frozenset({"fbclid", "gclid", "msclkid", "ref", "ref_src", "igshid"})


def _is_tracking(name: str) -> bool:
    name = name.lower()
    return name in _TRACKING_NAMES or name.startswith(_TRACKING_PREFIXES)


def normalise_url(url: str) -> str:
    """Canonical form for dedupe: lower-case host, no www, fragment, tracking params or trailing /."""
    parts = urlsplit(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if not _is_tracking(k)])
    path = parts.path.rstrip("/")
    scheme = "https" if parts.scheme in ("http", "https") else parts.scheme
    return urlunsplit((scheme, host, path, query, ""))


def source_id_for(key: str) -> str:
    return "s" + hashlib.sha1(normalise_url(key).encode()).hexdigest()[:10]


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
    status: Literal["done", "failed"] = "done"
    error: str | None = None


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


# --- run bundles: one run moved between machines as a single file ----------------------------------

BUNDLE_FORMAT = "research-desk-run"
BUNDLE_VERSION = 1


class RunRecordFields(BaseModel):
    """A run's record as the run store keeps it: `RunRecord` (runs/store.py) and a bundle's copy."""

    run_id: str
    topic: str
    status: str
    created_at: float
    requested_allocation: str | None = None
    allocation: str | None = None
    allocation_origin: str | None = None
    brain: str | None = None
    finished_at: float | None = None
    source_count: int = 0
    error: str | None = None
    summary: dict[str, Any] = Field(default_factory=dict)


class BundleRun(RunRecordFields):
    """The run record as a bundle carries it (timestamps as recorded on the exporting machine); an
    imported id and topic are checked."""

    run_id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    topic: str = Field(min_length=1)


class BundleDraft(BaseModel):
    version: int = Field(ge=1)
    created_at: float
    note: str = ""
    markdown: str


class RunBundle(BaseModel):
    """A run as one file: its record, event log, draft versions and the page text of its sources.

    `events` are Event dicts (validated against research.events.Event on import)."""

    format: Literal["research-desk-run"]
    version: int = Field(ge=1)
    exported_at: float
    run: BundleRun
    events: list[dict[str, Any]] = Field(default_factory=list)
    drafts: list[BundleDraft] = Field(default_factory=list)
    source_texts: dict[str, str] = Field(default_factory=dict)


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
