"""Is a source about the run's subject at all? Shared by researchers (to drop stray hits) and the
offline brain (to judge coverage and to pick sentences).

A subject's terms are split into its core (the thing asked about: "intermittent fasting") and its
aspect words ("health effects"): aspect words appear in documents about anything, so a source that
matches only them is about something else ("side effects" of a vaccine are no evidence on fasting).
"""

from __future__ import annotations

from functools import lru_cache

from research.relevance.subject import subject_of
from research.text import tokenize

# Words that name an aspect of a subject, not the subject: never enough on their own.
ASPECT_TERMS: frozenset[str] = frozenset(
    tokenize(
        "health effect effects impact impacts influence role significance history histories cause causes "
        "consequence consequences origin origins future state benefit benefits risk risks advantage "
        "advantages disadvantage disadvantages pros cons made make making use uses used work works "
        "overview introduction evidence mechanism mechanisms side long term short main key best way ways "
        "type types kind kinds today modern new recent current problem problems issue issues good bad "
        "choose choosing choice pick select decide compare comparison better worse team teams company companies"
    )
)
# Word forms of one subject compare equal once derivational endings are cut ("Impressionism" /
# "Impressionists", "painters" / "painting", "vaccination" / "vaccine"); a stem keeps 4+ letters.
_ENDINGS = ("ations", "ation", "isms", "ism", "ists", "ist", "ers", "er", "e")


def term_key(term: str) -> str:
    for ending in _ENDINGS:
        if term.endswith(ending) and len(term) - len(ending) >= 4:
            return term[: -len(ending)]
    return term


@lru_cache(maxsize=256)
def subject_terms(topic: str) -> frozenset[str]:
    return frozenset(tokenize(subject_of(topic)))


@lru_cache(maxsize=256)
def core_terms(topic: str) -> tuple[str, ...]:
    """The subject's terms without aspect words, in order (all of them if only aspect words remain)."""
    terms = list(dict.fromkeys(tokenize(subject_of(topic))))
    core = [t for t in terms if t not in ASPECT_TERMS]
    return tuple(core or terms)


def needed_share(topic: str) -> float:
    """All of a one- or two-term core, at least half of a longer one."""
    n = len(core_terms(topic))
    return 1.0 if n <= 2 else ((n + 1) // 2) / n


def topic_relevance(topic: str, text_or_terms: str | set[str] | frozenset[str]) -> float:
    """Share of the subject's core terms that appear (1.0 when the subject has no terms)."""
    needed = core_terms(topic)
    if not needed:
        return 1.0
    terms = text_or_terms if not isinstance(text_or_terms, str) else set(tokenize(text_or_terms))
    keys = {term_key(t) for t in terms}
    return sum(1 for t in needed if term_key(t) in keys) / len(needed)


def is_on_topic(topic: str, text_or_terms: str | set[str] | frozenset[str]) -> bool:
    return topic_relevance(topic, text_or_terms) >= needed_share(topic) - 1e-9
