"""Which sense of a word a source uses, from how it writes it: "Rust" (a name, the language)
against "rust" (corrosion), "Go" against "go".

Only mid-sentence occurrences count (a sentence or heading starts with a capital whatever the
word). A linear scan over words; the text is bounded by the caller.
"""

from __future__ import annotations

import re

from research.relevance.shape import SubjectShape, Word, casing
from research.relevance.terms import term_key
from research.text import stem

MAX_SCAN_CHARS = 400_000
# A source writes the other sense this often, and the topic's sense never: it is about a namesake.
MIN_OTHER_SENSE = 3
_WORD = re.compile(r"[^\W_]+")
_SENTENCE_END = frozenset(".!?:;#>|*-\n\"'([")


def _mid_sentence(text: str, start: int) -> bool:
    i = start - 1
    while i >= 0 and text[i] in " \t":
        i -= 1
    return i >= 0 and text[i] not in _SENTENCE_END


def namesake(shape: SubjectShape, text: str) -> Word | None:
    """The head word the source writes only in the other sense (None when senses agree or the
    topic's casing says nothing)."""
    cased = {w.key: w for w in shape.head_terms() if w.cased}
    if not cased:
        return None
    same: dict[str, int] = {}
    other: dict[str, int] = {}
    text = text[:MAX_SCAN_CHARS]
    for match in _WORD.finditer(text):
        surface = match.group(0)
        key = term_key(stem(surface.lower()))
        word = cased.get(key)
        if word is None or not _mid_sentence(text, match.start()):
            continue
        kind = casing(surface)
        if kind is None:
            continue
        bucket = same if kind == word.cased else other
        bucket[key] = bucket.get(key, 0) + 1
    for key, word in cased.items():
        if other.get(key, 0) >= MIN_OTHER_SENSE and not same.get(key):
            return word
    return None
