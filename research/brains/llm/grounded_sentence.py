"""What a sentence of the grounded writer must be to be kept (grounded_writer.py): one plain
sentence written to its end (not cut at the grammar's length bound), sharing enough of its words
with its passage, and not a repeat of one already kept.
"""

from __future__ import annotations

import re

from research.brains.llm.grounded_schema import MAX_SENTENCE_CHARS
from research.drafts.markers import CITATION_MARKER, GROUPED_MARKER, strip_internal_markers
from research.text import split_sentences, tokenize

MIN_WORDS = 4
REPEAT_OVERLAP = 0.8
_LINKISH = re.compile(r"https?://|www\.|\]\(|</?[a-zA-Z][^>\n]{0,80}>", re.IGNORECASE)
_LIST_LEAD = re.compile(r"^(?:[-*•]|\d{1,2}[.)])\s+")
_ENDED = re.compile(r"[.!?][\"')\]]{0,2}$")  # a sentence's own end, not a length bound's


def whole_sentences(text: str, room: int) -> tuple[list[str], int]:
    """The sentences of a reply's text that were written to their end, and how many were not. A
    text that reaches `room` (the grammar's bound ends it there, mid-word as likely as not) loses
    its last sentence unless that one ends as a sentence does; so does any sentence longer than the
    room (from a server that only reads the schema)."""
    pieces = split_sentences(" ".join(text.split()))
    cut = 0
    if reached_bound(text, room) and pieces:
        pieces, cut = pieces[:-1], 1
    whole = [piece for piece in pieces if len(piece) <= room]
    return whole, cut + len(pieces) - len(whole)


def reached_bound(text: str, room: int) -> bool:
    """Whether a reply's text ran to its room without ending as a sentence ends: cut there."""
    text = " ".join(text.split())
    return len(text) >= room and not _ENDED.search(text)


def clean_sentence(text: str) -> str:
    """One plain sentence, or "" when it is not one (markup, a URL, too short, or longer than a
    sentence's room: cutting it would end it mid-word)."""
    text = strip_internal_markers(" ".join(str(text).split()))
    if len(text) > MAX_SENTENCE_CHARS:
        return ""
    text = CITATION_MARKER.sub("", GROUPED_MARKER.sub("", text))
    text = _LIST_LEAD.sub("", text).strip(" \"'")
    if _LINKISH.search(text) or len(text.split()) < MIN_WORDS:
        return ""
    body = " ".join(text.split()).rstrip(" ,;:.!?")
    end = text.rstrip()[-1:]
    text = body + (end if end in "!?" else ".")  # one full stop: "datasets.." -> "datasets."
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.islower() else text  # "mRNA" stays "mRNA"


def grounding(sentence: str, passage: str) -> float:
    """Share of the sentence's content words that its passage holds."""
    wanted = set(tokenize(sentence))
    if not wanted:
        return 0.0
    return len(wanted & set(tokenize(passage))) / len(wanted)


def repeats(text: str, others: list[str]) -> bool:
    mine = set(tokenize(text))
    for other in others:
        theirs = set(tokenize(other))
        shorter = min(len(mine), len(theirs))
        if shorter and len(mine & theirs) / shorter >= REPEAT_OVERLAP:
            return True
    return False
