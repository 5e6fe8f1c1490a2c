"""What a run asks of its sources (`SourceControls`) and what one source's reliability is made of
(`SourceFacts` from the provider, `Reliability` scored from them by research/sources/reliability.py).

Plain shapes beside `Source`, so the run spec, the events and the dashboard share one contract.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MAX_DOMAINS = 50
MIN_YEAR, MAX_YEAR = 1000, 2100
_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")

# Why a retrieved result was kept out of the run: off_topic is the relevance filter; the others
# are the run's source controls.
DropRule = Literal["off_topic", "min_relevance", "years", "include_domains", "exclude_domains", "peer_reviewed"]


def normalise_domain(value: str) -> str:
    """'https://www.Nature.com/articles' -> 'nature.com'; ValueError when it is not a host name."""
    text = value.strip().lower()
    if "://" in text:
        text = urlsplit(text).netloc
    host = text.split("/", 1)[0].split(":", 1)[0].removeprefix("www.").strip(".")
    labels = host.split(".")
    if len(host) > 253 or len(labels) < 2 or not all(label and set(label) <= _LABEL_CHARS for label in labels):
        raise ValueError(f"not a domain: {value[:80]!r} (write it as example.org)")
    return host


def in_domain(domain: str, domains: tuple[str, ...]) -> bool:
    """Whether `domain` is one of `domains` or a subdomain of one."""
    return any(domain == d or domain.endswith("." + d) for d in domains)


class SourceControls(BaseModel):
    """A run's limits on its sources, applied in the router before anything reaches state.

    Years bound sources whose year is known (an undated page is kept); include domains restrict web
    sources; exclude domains drop any source under them; peer-reviewed only keeps academic
    sources from a reviewed venue; minimum relevance raises the relevance filter's bar.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    year_from: int | None = Field(None, ge=MIN_YEAR, le=MAX_YEAR)
    year_to: int | None = Field(None, ge=MIN_YEAR, le=MAX_YEAR)
    include_domains: tuple[str, ...] = Field((), max_length=MAX_DOMAINS)
    exclude_domains: tuple[str, ...] = Field((), max_length=MAX_DOMAINS)
    peer_reviewed_only: bool = False
    min_relevance: float = Field(0.0, ge=0.0, le=1.0)

    @field_validator("include_domains", "exclude_domains", mode="before")
    @classmethod
    def _domains(cls, value: object) -> object:
        if isinstance(value, str):  # "a.org, b.org" as typed in a form or a flag
            value = value.replace(",", " ").split()
        if isinstance(value, (list, tuple)):
            return tuple(dict.fromkeys(normalise_domain(str(v)) for v in value if str(v).strip()))
        return value

    @model_validator(mode="after")
    def _years_in_order(self) -> SourceControls:
        if self.year_from is not None and self.year_to is not None and self.year_from > self.year_to:
            raise ValueError(f"year from ({self.year_from}) is after year to ({self.year_to})")
        return self

    @property
    def active(self) -> bool:
        return self != SourceControls()

    def describe(self) -> list[str]:
        """Each control that is set, in words (the dashboard and the CLI show these)."""
        parts = []
        if self.year_from is not None or self.year_to is not None:
            parts.append(f"years {self.year_from or '…'}–{self.year_to or '…'}")
        if self.include_domains:
            parts.append("web only from " + ", ".join(self.include_domains))
        if self.exclude_domains:
            parts.append("never from " + ", ".join(self.exclude_domains))
        if self.peer_reviewed_only:
            parts.append("peer-reviewed academic only")
        if self.min_relevance:
            parts.append(f"relevance at least {self.min_relevance:.2f}")
        return parts


class SourceFacts(BaseModel):
    """What a provider said about a source's standing (None = it did not say)."""

    venue: str | None = Field(None, max_length=300)  # journal, proceedings, repository
    peer_reviewed: bool | None = None  # True: a reviewed venue; False: a preprint
    cited_by: int | None = Field(None, ge=0)  # OpenAlex's cited_by_count
    publisher: str | None = Field(None, max_length=300)  # books
    editions: int | None = Field(None, ge=0)  # books: Open Library's edition_count

    @field_validator("venue", "publisher", mode="before")
    @classmethod
    def _short_text(cls, value: object) -> object:
        if isinstance(value, str):
            value = " ".join(value[:1000].split())[:300]
            return value or None
        return value


ReliabilityFactorName = Literal["peer_review", "citations", "publisher", "editions", "recency", "domain"]
ReliabilityLabel = Literal["high", "medium", "low"]


class ReliabilityFactor(BaseModel):
    """One part of a reliability score: the points it adds (or takes) and why."""

    factor: ReliabilityFactorName
    points: float = Field(ge=-1.0, le=1.0)
    reason: str = Field(max_length=400)  # a venue, publisher or host name in words (each bounded)


class Reliability(BaseModel):
    """A source's reliability: a base of 0.5 plus its factors' points, within 0-1."""

    score: float = Field(ge=0.0, le=1.0)
    label: ReliabilityLabel
    factors: list[ReliabilityFactor] = Field(default_factory=list, max_length=6)  # one per factor name

    @property
    def reasons(self) -> str:
        return "; ".join(f"{f.reason} ({f.points:+.2f})" for f in self.factors) or "no signal from the provider"
