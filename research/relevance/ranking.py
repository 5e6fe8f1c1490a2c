"""Rank one retrieved source against the run's topic and the query it answered.

A source is about the topic when it holds the subject as a whole (research/relevance/shape.py):
its head phrase ("stock market crash"; one of the compared items of "Rust vs Go"), what qualifies
it ("of 1929", "on old cars"; a source holding every compared item needs no qualifier), in the
sense the topic means ("Rust" the language is not "rust" on cars, research/relevance/sense.py).
Sharing a word is not enough. The score: the share of the subject's terms held, a bonus for the
head phrase as written, and the share of the query's own terms. A source that fails a gate or
scores below the threshold is dropped with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from research.relevance.sense import namesake
from research.relevance.shape import MAX_HEAD_TERMS, SubjectShape, Word, subject_shape
from research.relevance.terms import term_key
from research.text import tokenize
from research.text.memo import memo_pure

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


def _phrase(words: tuple[Word, ...]) -> str:
    return " ".join(w.surface for w in words)


class _Held:
    """Which subject terms a source holds: in its title or snippet, or often enough in its text."""

    def __init__(self, shape: SubjectShape, head: list[str], body: list[str]) -> None:
        wanted = {w.key for w in shape.all_terms()}
        self.head_keys = {term_key(t) for t in head} & wanted
        self.counts: dict[str, int] = {}
        for token in body:
            key = term_key(token)
            if key in wanted:
                self.counts[key] = self.counts.get(key, 0) + 1

    def word(self, word: Word, mentions: int = MIN_TEXT_MENTIONS) -> bool:
        return word.key in self.head_keys or self.counts.get(word.key, 0) >= mentions

    def phrase(self, words: tuple[Word, ...], tokens: list[str]) -> bool:
        """A head phrase of up to MAX_HEAD_TERMS terms is held whole; its final noun may be a single
        mention when the words that qualify it are held ("sourdough bread ... fermentation"). A
        longer head is a clause ("mRNA vaccines teach the immune system"): half its terms, two of
        them side by side as the topic writes them."""
        if len(words) > MAX_HEAD_TERMS:
            pairs = [(a.key, b.key) for a, b in zip(words, words[1:], strict=False)]
            return 2 * sum(self.word(w) for w in words) >= len(words) and any(_has_phrase(p, tokens) for p in pairs)
        if len(words) == 1:
            return self.word(words[0])
        return all(self.word(w) for w in words[:-1]) and self.word(words[-1], 1)

    def qualifier(self, words: tuple[Word, ...]) -> bool:
        """A qualifier is held through its noun (its last word): "cars" of "old cars"."""
        return self.word(words[-1], 1)


def judge_source(topic: str, query: str, title: str, snippet: str, text: str = "") -> Judgement:
    """The judgement of one source (memoised: researchers sent the same answer by the search cache
    judge it once; a Judgement is immutable)."""
    return _judged(topic, query, title, snippet, text)


@memo_pure(maxsize=2048)
def _judged(topic: str, query: str, title: str, snippet: str, text: str) -> Judgement:
    shape = subject_shape(topic)
    if not shape.heads:
        return Judgement(1.0, True, "the topic names no subject terms")
    head = tokenize(f"{title} {snippet}")
    body = tokenize(text) if text else []
    held = _Held(shape, head, body)
    terms = shape.all_terms()
    share = sum(1 for w in terms if held.word(w, 1)) / len(terms)
    keyed = [term_key(t) for t in head] + ["|"] + [term_key(t) for t in body]
    phrase = _has_phrase(tuple(w.key for w in shape.heads[0]), keyed)
    core_keys = {w.key for w in terms}
    focus = [t for t in dict.fromkeys(tokenize(query)) if term_key(t) not in core_keys]
    all_tokens = set(head) | set(body)
    query_share = sum(1 for t in focus if t in all_tokens) / len(focus) if focus else 1.0
    score = round(SUBJECT_WEIGHT * share + PHRASE_WEIGHT * phrase + QUERY_WEIGHT * query_share, 3)
    heads_held = [h for h in shape.heads if held.phrase(h, keyed)]
    if not heads_held:
        missing = [w.surface.lower() for h in shape.heads for w in h if not held.word(w)]
        wanted = " or ".join(f'"{_phrase(h)}"' for h in shape.heads)
        return Judgement(score, False, f"not about the subject: missing {', '.join(missing) or wanted} (of {wanted})")
    every_item = shape.comparison and len(heads_held) == len(shape.heads)
    if shape.qualifiers and not every_item and not all(held.qualifier(q) for q in shape.qualifiers):
        qualifiers = " / ".join(f'"{_phrase(q)}"' for q in shape.qualifiers)
        reason = f'not about the subject: "{_phrase(heads_held[0])}" without {qualifiers}, which the topic asks about'
        return Judgement(score, False, reason)
    other = namesake(shape, f"{title}\n{snippet}\n{text}")
    if other is not None:
        sense = "a name" if other.cased == "common" else "a common word"
        return Judgement(
            score, False, f'not about the subject: another sense of "{other.surface}" (the source writes it as {sense})'
        )
    if score < MIN_SCORE:
        return Judgement(score, False, f"score {score:.2f} below {MIN_SCORE:.2f}")
    return Judgement(score, True, "on the subject" + (" (phrase)" if phrase else ""))
