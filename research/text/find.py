"""Find words in a run's sources: titles, snippets and stored page text, with the passage around
each hit split into plain pieces (before, matched, after) for the reader to highlight.

Outside text is searched as text: the query is folded to lower case and looked up with `str.find`
(linear time, no pattern built from anyone's input), over a bounded prefix of each document, with
a bounded number of hits. Every query word must occur somewhere in a document for it to match;
the passage shown is around the whole phrase when it occurs (and marks it), else around the first
word found (and marks every word).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

MAX_QUERY_CHARS = 200
MAX_TERMS = 8
MAX_TEXT_CHARS = 2_000_000  # of each stored page text: a book's worth
MAX_HITS = 50
PASSAGE_CHARS = 160  # either side of the hit
Field = Literal["title", "snippet", "text"]


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    snippet: str
    text: str


@dataclass(frozen=True)
class Piece:
    text: str
    hit: bool  # one of the query's words (or its phrase)


@dataclass(frozen=True)
class PassageHit:
    source_id: str
    title: str
    field: Field  # where the passage was found
    pieces: tuple[Piece, ...]  # the passage, with the query's words marked
    hits: int  # occurrences of the query's words in the whole document

    @property
    def passage(self) -> str:
        return "".join(p.text for p in self.pieces)


def _fold(text: str) -> str:
    """Lower case, one character for one (so a hit's place in the folded text is its place in the text)."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def query_terms(query: str) -> tuple[str, list[str]]:
    """(phrase, words) of a query, folded, bounded; words shorter than 2 characters are left out."""
    phrase = " ".join(_fold(query[:MAX_QUERY_CHARS]).split())
    words = list(dict.fromkeys(w for w in phrase.split() if len(w) >= 2))[:MAX_TERMS]
    return phrase, words


def find_in_sources(query: str, documents: Iterable[Document], *, limit: int = MAX_HITS) -> list[PassageHit]:
    """One hit per matching document (best first: most occurrences), at most `limit`."""
    phrase, words = query_terms(query)
    if not words:
        return []
    out: list[PassageHit] = []
    for doc in documents:
        fields: list[tuple[Field, str]] = [
            ("title", doc.title),
            ("snippet", doc.snippet),
            ("text", doc.text[:MAX_TEXT_CHARS]),
        ]
        folded = [(name, text, _fold(text)) for name, text in fields]
        if not all(any(w in low for _, _, low in folded) for w in words):
            continue
        count = sum(low.count(w) for _, _, low in folded for w in words)
        hit = _first_passage(folded, phrase, words)
        if hit is not None:
            name, pieces = hit
            out.append(PassageHit(doc.id, doc.title, name, pieces, count))
    out.sort(key=lambda h: -h.hits)
    return out[:limit]


def _first_passage(
    folded: list[tuple[Field, str, str]], phrase: str, words: list[str]
) -> tuple[Field, tuple[Piece, ...]] | None:
    """The passage of the first field holding the phrase, else the first holding a word; page
    text is preferred to the snippet it repeats when both hold the phrase."""
    for wanted in (phrase, *words):
        for name, text, low in sorted(folded, key=lambda f: f[0] != "text"):
            at = low.find(wanted)
            if at >= 0:
                start, end = max(0, at - PASSAGE_CHARS), min(len(text), at + len(wanted) + PASSAGE_CHARS)
                if start > 0:  # whole words at either edge
                    start = text.find(" ", start, at) + 1 or start
                cut = text.rfind(" ", at + len(wanted), end) if end < len(text) else -1
                end = cut if cut > 0 else end
                return name, _pieces(text, low, start, end, phrase, words)
    return None


def _pieces(text: str, low: str, start: int, end: int, phrase: str, words: list[str]) -> tuple[Piece, ...]:
    """text[start:end] cut into plain and matched pieces (the phrase, or each word), left to right."""
    # The phrase where it stands in the passage (not each of its words, "the" among them), else the words.
    wanted = [phrase] if low.find(phrase, start, end) >= 0 else words
    pieces: list[Piece] = []
    i = start
    while i < end:
        best_at, best_len = end, 0
        for w in wanted:  # at most MAX_TERMS + 1 finds per piece: linear in the passage
            at = low.find(w, i, end)
            if 0 <= at < best_at or (at == best_at and len(w) > best_len):
                best_at, best_len = at, len(w)
        if best_len == 0:
            break
        while best_at > i and text[best_at - 1].isalnum():  # the whole word: "nanoparticle" in "nanoparticles"
            best_at, best_len = best_at - 1, best_len + 1
        while best_at + best_len < end and text[best_at + best_len].isalnum():
            best_len += 1
        if best_at > i:
            pieces.append(Piece(text[i:best_at], False))
        pieces.append(Piece(text[best_at : best_at + best_len], True))
        i = best_at + best_len
    if i < end:
        pieces.append(Piece(text[i:end], False))
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    if prefix:
        pieces.insert(0, Piece(prefix, False))
    if suffix:
        pieces.append(Piece(suffix, False))
    return tuple(pieces)
