"""Is a source about the run's subject at all? Shared by researchers (to drop stray hits) and the
offline brain (to judge coverage and to pick sentences).

A subject's terms are split into its core (the thing asked about: "intermittent fasting") and its
aspect words ("health effects"): aspect words appear in documents about anything, so a source that
matches only them is about something else ("side effects" of a vaccine are no evidence on fasting).
"""

from __future__ import annotations

from functools import lru_cache

from research.relevance.shape import MAX_HEAD_TERMS, subject_shape
from research.relevance.terms import ASPECT_TERMS, term_key
from research.text import tokenize
from research.topic.subject import subject_of


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
    """The subject's shape held by a bag of terms: a head phrase (every compared item, or one item
    with a qualifier), and one qualifier's noun when the subject has qualifiers. The same gates as
    ranking.judge_source, without its mention counts and sense check (a bag has no casing)."""
    shape = subject_shape(topic)
    if not shape.heads:
        return True
    terms = text_or_terms if not isinstance(text_or_terms, str) else set(tokenize(text_or_terms))
    keys = {term_key(t) for t in terms}
    heads = [
        h
        for h in shape.heads
        if (2 * sum(w.key in keys for w in h) >= len(h) if len(h) > MAX_HEAD_TERMS else all(w.key in keys for w in h))
    ]
    if not heads:
        return False
    if shape.comparison and len(heads) == len(shape.heads):
        return True
    return all(q[-1].key in keys for q in shape.qualifiers)
