"""The shape of a topic's subject: its head phrase, what qualifies it, and how it is written.

"the 1929 stock market crash" -> head "stock market crash", qualifiers "1929";
"rust on old cars" -> head "rust", qualifiers "old cars"; "Rust and Go for backend services" ->
two compared heads "Rust" and "Go", qualifier "backend services". A source is about the subject
when it holds the head and what qualifies it, not when it shares a word (research/relevance/ranking.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from research.relevance.terms import ASPECT_TERMS, term_key
from research.text import STOPWORDS, stem
from research.topic.subject import is_comparison, subject_of

# Prepositions that attach a qualifier to the head ("rust on old cars", "prize in literature").
_PREPOSITION_WORDS = (
    "of on in for with from during among across at by about to against without between under over after "
    "before within into onto upon near since throughout"
)
PREPOSITIONS = frozenset(_PREPOSITION_WORDS.split())
CONJUNCTIONS = frozenset({"and", "or", "vs", "versus"})
# A head phrase of up to this many terms must be held whole; a longer one reads as a clause.
MAX_HEAD_TERMS = 3
# Verbs that are rarely nouns: in "critics say about Impressionism" or "Luther use the printing
# press" the subject follows the verb, and what precedes it narrows the subject.
_VERB_WORDS = (
    "say says said think thinks thought won win wins wrote write writes invent invented discover discovered "
    "build built made make makes do play plays played prevent prevents prevented treat treated choose chose "
    "learn learned know knew mean meant become became get gets got take took give gave see saw tell told "
    "show showed teach taught bring brought help helped keep kept try need want use used"
)
VERBS = frozenset(_VERB_WORDS.split())
_RAW_WORD = re.compile(r"[^\W_]+")
_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})s?$")


@dataclass(frozen=True)
class Word:
    key: str  # the comparison key (tokenized, stemmed; see terms.term_key)
    surface: str  # as the topic wrote it
    cased: str | None = None  # "name" (Rust) or "common" (rust) when the topic's casing says which


@dataclass(frozen=True)
class SubjectShape:
    heads: tuple[tuple[Word, ...], ...]  # one phrase, or one per compared item ("Rust", "Go")
    qualifiers: tuple[tuple[Word, ...], ...]  # phrases that narrow the head ("old cars", "1929")
    names_informative: bool  # the topic capitalises names, so its lower-case words are common nouns

    @property
    def comparison(self) -> bool:
        return len(self.heads) > 1

    def head_terms(self) -> list[Word]:
        return [w for head in self.heads for w in head]

    def all_terms(self) -> list[Word]:
        return self.head_terms() + [w for q in self.qualifiers for w in q]


def _words(text: str) -> list[tuple[str, str]]:
    """(lower-case word, surface) for every word; stopwords kept as separators."""
    return [(w.lower(), w) for w in _RAW_WORD.findall(text)]


def _content(pairs: list[tuple[str, str]], aspect: frozenset[str]) -> tuple[Word, ...]:
    out: list[Word] = []
    for lower, surface in pairs:
        if lower in STOPWORDS or lower in CONJUNCTIONS or (len(lower) < 2 and not lower.isdigit()):
            continue
        token = stem(lower)
        if token in aspect or any(w.key == term_key(token) for w in out):
            continue
        out.append(Word(term_key(token), surface))
    return tuple(out)


def _split(pairs: list[tuple[str, str]], at: frozenset[str]) -> list[list[tuple[str, str]]]:
    return [p for _, p in _split_at(pairs, at)]


def _split_at(pairs: list[tuple[str, str]], at: frozenset[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(the word it was split at, the part) for each non-empty part."""
    parts: list[tuple[str, list[tuple[str, str]]]] = [("", [])]
    for pair in pairs:
        if pair[0] in at:
            parts.append((pair[0], []))
        else:
            parts[-1][1].append(pair)
    return [(word, part) for word, part in parts if part]


def casing(word: str) -> str | None:
    """ "name" for a capitalised word (Rust), "common" for a lower-case one (rust); acronyms and
    mixed case (mRNA, DNA) say nothing about sense."""
    if word.islower():
        return "common"
    if word[:1].isupper() and (len(word) == 1 or word[1:].islower()):
        return "name"
    return None


def _names_informative(topic: str) -> bool:
    """True when the topic writes some later word with a capital but not most of them (Title Case):
    then its lower-case words are common nouns and its capitalised ones names."""
    raw = [w for w in _RAW_WORD.findall(topic)[1:] if w.lower() not in STOPWORDS]
    capitals = sum(1 for w in raw if w[:1].isupper())
    return 0 < capitals <= len(raw) * 0.6


def _with_casing(phrase: tuple[Word, ...], first_word: str) -> tuple[Word, ...]:
    return tuple(Word(w.key, w.surface, casing(w.surface) if w.surface != first_word else None) for w in phrase)


@lru_cache(maxsize=256)
def subject_shape(topic: str) -> SubjectShape:
    subject = subject_of(topic)
    pairs = _words(subject)
    segments = _split_at(pairs, PREPOSITIONS)
    if not segments:
        return SubjectShape((), (), False)
    # "side effects and risks of mRNA vaccines": a head made of aspect words leaves the subject to
    # what follows it.
    while len(segments) > 1 and not _content(segments[0][1], ASPECT_TERMS):
        segments = segments[1:]
    head_pairs, rest = segments[0][1], [part for _, part in segments[1:]]
    narrowing: list[tuple[Word, ...]] = []
    verb = next((i for i, (lower, _) in enumerate(head_pairs) if lower in VERBS), None)
    if verb is not None:  # "Luther use the printing press": the subject follows the verb
        before, after = head_pairs[:verb], head_pairs[verb + 1 :]
        if not after and rest:
            after, rest = rest[0], rest[1:]
            segments = [("", after), *[("", r) for r in rest]]
        if after:
            narrowing = [c for c in [_content(before, ASPECT_TERMS)] if c]
            head_pairs = after
    # "exhibitions of modern sculpture" is one thing (modern sculpture exhibitions): what "of"
    # attaches belongs to the head, the year of "the crash of 1929" excepted.
    of_part = segments[1][1] if verb is None and len(segments) > 1 and segments[1][0] == "of" else []
    if of_part and not all(_YEAR.match(w) for w, _ in of_part):
        head_pairs = of_part + head_pairs
        rest = rest[1:]
    qualifiers = narrowing + [q for q in (_content(s, ASPECT_TERMS) for s in rest) if q]
    # Years qualify ("the 1929 stock market crash"); they are not the head.
    years = tuple(Word(lower, surface) for lower, surface in head_pairs if _YEAR.match(lower))
    head_pairs = [p for p in head_pairs if not _YEAR.match(p[0])]
    if years:
        qualifiers.insert(0, years)
    items = [c for c in (_content(part, ASPECT_TERMS) for part in _split(head_pairs, CONJUNCTIONS)) if c]
    # Compared items are names ("Rust or Go") or set against each other ("X vs Y"); "stored and
    # shipped" is one subject's two aspects.
    compared = is_comparison(topic) or all(casing(item[-1].surface) == "name" for item in items[1:])
    if len(items) > 1 and compared:
        # "backend team choose Rust or Go": the compared items are the words at the conjunction;
        # what comes before the first one qualifies both.
        first, *others = items
        if len(first) > 1 and all(len(o) == 1 for o in others):
            qualifiers.insert(0, first[:-1])
            first = first[-1:]
        heads = tuple([first, *others])
    else:
        merged = _content([p for p in head_pairs if p[0] not in CONJUNCTIONS], ASPECT_TERMS)
        heads = (merged,) if merged else tuple(q for q in qualifiers[:1])
        if not merged and qualifiers:
            qualifiers = qualifiers[1:]
    informative = _names_informative(topic)
    if informative:  # the topic's first word is capitalised as a sentence start, not as a name
        opening = next(iter(_RAW_WORD.findall(topic)), "")
        heads = tuple(_with_casing(h, opening) for h in heads)
    return SubjectShape(heads, tuple(qualifiers), informative)
