"""How much of a sentence is one unbroken run of a source's words: copied, or written?

A sentence whose longest run of the source's words covers most of it (COPIED_AT) is the source's
sentence repeated, whatever its citation says; the writer asks a model to restate such sentences
and the eval counts them (bench/eval/local_model_figures.py). Words are lower-cased runs of letters
and digits, so punctuation and markers do not break a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from research.text.sentences import split_sentences

COPIED_AT = 0.8  # share of a sentence's words that one unbroken run of its source's words covers
_WORD = re.compile(r"[a-z0-9]+")
# Both sides are bounded (a sentence, a stored text): the work is O(len(sentence) * len(source)).
MAX_SENTENCE_WORDS = 200
MAX_SOURCE_WORDS = 20_000


def copied_share(sentence: str, source_text: str) -> float:
    """The longest unbroken run of the source's words inside the sentence, over its length."""
    mine = _WORD.findall(sentence.lower())[:MAX_SENTENCE_WORDS]
    theirs = _WORD.findall(source_text.lower())[:MAX_SOURCE_WORDS]
    if not mine or not theirs:
        return 0.0
    best = 0
    previous = [0] * (len(theirs) + 1)
    for word in mine:  # longest common substring over words
        current = [0] * (len(theirs) + 1)
        for j, other in enumerate(theirs, 1):
            if word == other:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best / len(mine)


def copied(sentence: str, source_text: str) -> bool:
    return copied_share(sentence, source_text) >= COPIED_AT


def _source_sentences(source_text: str) -> Iterator[list[str]]:
    """The source's sentences as word lists, until MAX_SOURCE_WORDS words have been read."""
    budget = MAX_SOURCE_WORDS
    for theirs in split_sentences(source_text):
        words = _WORD.findall(theirs.lower())
        budget -= len(words)
        if budget < 0:
            return
        yield words


def whole_sentence_of(sentence: str, source_text: str) -> bool:
    """Whether `sentence` is one of the source's sentences word for word (case and punctuation
    aside): a quote of a whole sentence, attribution and hedges included, not a clause lifted out of
    one ("X" from "Critics claim that X"). Linear in the source's words."""
    mine = _WORD.findall(sentence.lower())[:MAX_SENTENCE_WORDS]
    return bool(mine) and any(words == mine for words in _source_sentences(source_text))


def condensed_from(sentence: str, source_text: str) -> bool:
    """Whether `sentence` is one of the source's sentences with words left out and none added or
    moved (its words a subsequence of that sentence's), and not a copy: the writer's condensing pass
    (brains/llm/grounded_condense.py) writes such sentences. Linear in the source's words."""
    mine = _WORD.findall(sentence.lower())[:MAX_SENTENCE_WORDS]
    if not mine or copied(sentence, source_text):
        return False
    for words in _source_sentences(source_text):
        k = 0
        for word in words:
            if k < len(mine) and word == mine[k]:
                k += 1
        if k == len(mine):
            return True
    return False
