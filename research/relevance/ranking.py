"""Rank one retrieved source against the run's topic and the query it answered.

The score a reader would agree with: the subject's core terms (all of a short subject, two thirds
of a long one) in title, snippet or text, a bonus when they occur as the subject's phrase, and the
share of the query's own terms. A source below the threshold is dropped with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from research.relevance.scoring import core_terms, needed_share, term_key
from research.text import tokenize

# Weights of the score's parts; a source must hold the subject (the gate) and reach MIN_SCORE.
SUBJECT_WEIGHT, PHRASE_WEIGHT, QUERY_WEIGHT = 0.7, 0.1, 0.2
# Set from `make eval`'s relevance sweep (bench/eval/relevance.py): behind the subject gate, 0.35
# keeps every sample document of its own topic (0.4 already drops 3 %), and no other topic's.
MIN_SCORE = 0.35
# A term seen only once in a long text is a passing mention, not what the source is about.
MIN_TEXT_MENTIONS = 2


@dataclass(frozen=True)
class Judgement:
    score: float
    keep: bool
    reason: str


def _has_phrase(core: tuple[str, ...], tokens: list[str]) -> bool:
    n = len(core)
    if n < 2:
        return bool(core) and core[0] in tokens
    return any(tuple(tokens[i : i + n]) == core for i in range(len(tokens) - n + 1))


def judge_source(topic: str, query: str, title: str, snippet: str, text: str = "") -> Judgement:
    core = core_terms(topic)
    if not core:
        return Judgement(1.0, True, "the topic names no subject terms")
    head = tokenize(f"{title} {snippet}")
    body = tokenize(text) if text else []
    head_keys = {term_key(t) for t in head}
    counts: dict[str, int] = {}
    core_keys = {term_key(t) for t in core}
    for token in body:
        key = term_key(token)
        if key in core_keys:
            counts[key] = counts.get(key, 0) + 1
    present = [t for t in core if term_key(t) in head_keys or counts.get(term_key(t), 0) >= MIN_TEXT_MENTIONS]
    subject_share = len(present) / len(core)
    phrase = _has_phrase(core, head) or _has_phrase(core, body)
    focus = [t for t in dict.fromkeys(tokenize(query)) if t not in core]
    all_terms = set(head) | set(body)
    query_share = sum(1 for t in focus if t in all_terms) / len(focus) if focus else 1.0
    score = round(SUBJECT_WEIGHT * subject_share + PHRASE_WEIGHT * phrase + QUERY_WEIGHT * query_share, 3)
    missing = [t for t in core if t not in present]
    if subject_share < needed_share(topic) - 1e-9:
        return Judgement(score, False, f"not about the subject: missing {', '.join(missing)}")
    if score < MIN_SCORE:
        return Judgement(score, False, f"score {score:.2f} below {MIN_SCORE:.2f}")
    return Judgement(score, True, "on the subject" + (" (phrase)" if phrase else ""))
