"""A source's reliability, from what its provider returned (research.schemas.source_quality.SourceFacts),
its URL and year: a base of 0.5 plus each factor's points, within 0-1. Never a black box: every
factor carries its points and its reason, and the README lists them all.

Word checks split text on whitespace and compare whole words (linear time on outside text).
"""

from __future__ import annotations

import datetime
from urllib.parse import urlsplit

from research.schemas.researchers import ResearcherKind
from research.schemas.source_quality import Reliability, ReliabilityFactor, ReliabilityLabel, SourceFacts
from research.schemas.state_shapes import Source

BASE = 0.5
HIGH, MEDIUM = 0.7, 0.45

# Words of a topic that move fast: there a recent source is worth more than an old one.
_FAST_WORDS = (
    "ai llm llms gpt chatgpt transformer transformers model models neural software security vulnerability "
    "vulnerabilities malware crypto cryptocurrency bitcoin blockchain market markets stock stocks price prices "
    "inflation election elections covid pandemic vaccine vaccines variant latest current recent today trends "
    "state-of-the-art startup startups regulation"
)
FAST_MOVING = frozenset(_FAST_WORDS.split())
RECENT_YEARS, OLD_YEARS = 2, 8
# A venue named like these is a reviewed one (the library's front matter names venues in words).
REVIEWED_VENUE_WORDS = frozenset(
    {"journal", "proceedings", "transactions", "quarterly", "letters", "review", "reviews", "annals"}
)
USER_GENERATED = frozenset(
    {
        "medium.com",
        "substack.com",
        "blogspot.com",
        "wordpress.com",
        "tumblr.com",
        "reddit.com",
        "quora.com",
        "x.com",
        "twitter.com",
        "facebook.com",
        "tiktok.com",
        "youtube.com",
        "linkedin.com",
    }
)
COMMUNITY = frozenset({"github.com", "stackoverflow.com", "stackexchange.com", "superuser.com", "serverfault.com"})
REFERENCE = frozenset({"wikipedia.org", "britannica.com"})


def _words(text: str) -> set[str]:
    return {w.strip(".,;:!?()[]\"'").lower() for w in text[:2000].split()}


def is_fast_moving(topic: str) -> bool:
    """Whether the topic is one where a source's age matters (technology, markets, health news...)."""
    return not FAST_MOVING.isdisjoint(_words(topic))


def reviewed_venue(name: str) -> bool:
    return not REVIEWED_VENUE_WORDS.isdisjoint(_words(name))


def library_facts(kind: ResearcherKind, publisher: str) -> SourceFacts:
    """A library document's facts from its front matter's `publisher`: an academic document's venue
    (peer reviewed when named like a journal or proceedings), a book's or page's publisher."""
    if not publisher.strip():
        return SourceFacts()
    if kind == "academic":
        return SourceFacts(venue=publisher, peer_reviewed=True if reviewed_venue(publisher) else None)
    return SourceFacts(publisher=publisher)


def _under(domain: str, names: frozenset[str]) -> bool:
    return any(domain == n or domain.endswith("." + n) for n in names)


def _suffix_type(labels: list[str]) -> tuple[float, str] | None:
    """gov/mil/edu/ac by their suffix, also as a second-level name (gov.uk, ac.jp, edu.au)."""
    tail = labels[-2:] if len(labels[-1]) == 2 else labels[-1:]
    if {"gov", "mil"} & set(tail):
        return 0.25, "government site"
    if {"edu", "ac"} & set(tail):
        return 0.20, "university or academic site"
    return None


def domain_factor(source: Source) -> ReliabilityFactor:
    """What kind of site a source is on, from its host name (or, for a library document, its publisher)."""
    host = urlsplit(source.url).netloc.lower().split(":", 1)[0].removeprefix("www.")
    if not host or not source.url.startswith(("http://", "https://")):
        publisher = source.facts.publisher or ""
        words = _words(publisher)
        if "blog" in words:
            return ReliabilityFactor(factor="domain", points=-0.15, reason=f"a blog in the local library ({publisher})")
        if words & {"encyclopedia", "encyclopaedia"}:
            return ReliabilityFactor(factor="domain", points=0.05, reason=f"reference work ({publisher})")
        named = f" ({publisher})" if publisher else ""
        return ReliabilityFactor(factor="domain", points=0.0, reason=f"local library document{named}")
    suffix = _suffix_type(host.split("."))
    if suffix:
        return ReliabilityFactor(factor="domain", points=suffix[0], reason=f"{suffix[1]} ({host})")
    if _under(host, REFERENCE):
        return ReliabilityFactor(factor="domain", points=0.05, reason=f"reference encyclopedia ({host})")
    if _under(host, USER_GENERATED) or host.startswith("blog."):
        return ReliabilityFactor(factor="domain", points=-0.15, reason=f"user-generated or social site ({host})")
    if _under(host, COMMUNITY):
        return ReliabilityFactor(factor="domain", points=0.0, reason=f"community site ({host})")
    if host.endswith(".org"):
        return ReliabilityFactor(factor="domain", points=0.05, reason=f"organisation site ({host})")
    return ReliabilityFactor(factor="domain", points=0.0, reason=f"commercial or unknown site ({host})")


def _peer_review(source: Source) -> ReliabilityFactor | None:
    reviewed, venue = source.facts.peer_reviewed, source.facts.venue
    if reviewed is True:
        where = f": {venue}" if venue else ""
        return ReliabilityFactor(factor="peer_review", points=0.25, reason=f"peer-reviewed venue{where}")
    if reviewed is False:
        where = f" on {venue}" if venue else ""
        return ReliabilityFactor(factor="peer_review", points=-0.10, reason=f"preprint{where}, not peer reviewed")
    return None


def _citations(cited_by: int | None) -> ReliabilityFactor | None:
    if cited_by is None:
        return None
    if cited_by >= 100:
        points = 0.20
    elif cited_by >= 10:
        points = 0.10
    elif cited_by >= 1:
        points = 0.05
    else:
        return ReliabilityFactor(factor="citations", points=-0.05, reason="not cited yet (OpenAlex)")
    return ReliabilityFactor(factor="citations", points=points, reason=f"cited {cited_by:,} times (OpenAlex)")


def _publisher(publisher: str | None) -> ReliabilityFactor | None:
    if not publisher:
        return None
    if {"university", "universitaire", "universität"} & _words(publisher):
        return ReliabilityFactor(factor="publisher", points=0.15, reason=f"university press: {publisher}")
    return ReliabilityFactor(factor="publisher", points=0.05, reason=f"publisher named: {publisher}")


def _editions(editions: int | None) -> ReliabilityFactor | None:
    if editions is None or editions < 2:
        return None
    points = 0.10 if editions >= 5 else 0.05
    return ReliabilityFactor(factor="editions", points=points, reason=f"{editions} editions")


def _recency(year: int | None, topic: str, this_year: int) -> ReliabilityFactor | None:
    if year is None or not is_fast_moving(topic):
        return None
    age = max(0, this_year - year)
    if age <= RECENT_YEARS:
        return ReliabilityFactor(factor="recency", points=0.10, reason=f"recent ({year}) on a fast-moving topic")
    if age >= OLD_YEARS:
        return ReliabilityFactor(factor="recency", points=-0.15, reason=f"{age} years old on a fast-moving topic")
    return ReliabilityFactor(factor="recency", points=0.0, reason=f"{age} years old on a fast-moving topic")


def label_of(score: float) -> ReliabilityLabel:
    return "high" if score >= HIGH else "medium" if score >= MEDIUM else "low"


def assess(source: Source, topic: str = "", this_year: int | None = None) -> Reliability:
    """The source's reliability and what it is made of."""
    year = this_year if this_year is not None else datetime.datetime.now(datetime.UTC).year
    factors = [
        _peer_review(source),
        _citations(source.facts.cited_by),
        _publisher(source.facts.publisher) if source.kind == "book" else None,
        _editions(source.facts.editions),
        _recency(source.year, topic, year),
        domain_factor(source) if source.kind == "web" or source.provider == "wikipedia" else None,
    ]
    kept = [f for f in factors if f is not None]
    score = round(min(1.0, max(0.0, BASE + sum(f.points for f in kept))), 3)
    return Reliability(score=score, label=label_of(score), factors=kept)


def with_reliability(source: Source, topic: str = "") -> Source:
    return source.model_copy(update={"reliability": assess(source, topic)})
