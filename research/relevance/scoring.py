"""Is a source about the run's subject at all? Shared by researchers (to drop stray hits) and the
offline brain (to judge coverage and to pick sentences)."""

from __future__ import annotations

from functools import lru_cache

from research.relevance.subject import subject_of
from research.text import tokenize


@lru_cache(maxsize=256)
def subject_terms(topic: str) -> frozenset[str]:
    return frozenset(tokenize(subject_of(topic)))


def topic_relevance(topic: str, text_or_terms: str | set[str] | frozenset[str]) -> float:
    """Share of the subject's terms that appear (1.0 when the subject has no terms)."""
    terms_needed = subject_terms(topic)
    if not terms_needed:
        return 1.0
    terms = text_or_terms if not isinstance(text_or_terms, str) else set(tokenize(text_or_terms))
    return len(terms_needed & terms) / len(terms_needed)


def is_on_topic(topic: str, text_or_terms: str | set[str] | frozenset[str]) -> bool:
    """All of a one- or two-word subject's terms, at least half of a longer subject's."""
    n = len(subject_terms(topic))
    needed = 1.0 if n <= 2 else ((n + 1) // 2) / n
    return topic_relevance(topic, text_or_terms) >= needed - 1e-9
