"""Sentence splitting: paragraphs, headings and list items, and periods that really end a sentence."""

from __future__ import annotations

import re

from research.text.memo import memo_list

# Abbreviations after which a period never ends a sentence.
_TITLE_ABBREVIATIONS = frozenset(
    [
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "sr",
        "jr",
        "st",
        "vs",
        "cf",
        "al",
        "approx",
        "ca",
        "gen",
        "gov",
        "rev",
        "hon",
        "mt",
        "ft",
        "lt",
        "col",
        "sgt",
        "capt",
        "e.g",
        "i.e",
        "viz",
        "resp",
        "dept",
        "univ",
        "assoc",
    ]
)
# Abbreviations that only bind to a following number ("No. 5", "Fig. 2", "pp. 10-12").
_NUMBER_ABBREVIATIONS = frozenset(
    ["no", "nos", "vol", "vols", "pp", "p", "fig", "figs", "eq", "eqs", "ch", "sec", "art", "para", "ref", "refs"]
)
_INITIALISM = re.compile(r"(?:[a-z]\.){2,}")  # U.S., e.g., a.m.
_INITIAL = re.compile(r"[A-Z]\.")  # J. Smith
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s+\S)")
_BLOCK_BREAK = re.compile(r"\n\s*\n")
_LINE_START_BLOCK = re.compile(r"^\s*(?:#{1,6}\s|[-*+•]\s|\d{1,3}[.)]\s|>\s?)")
_OPENERS = "\"'“‘([{"


def _blocks(text: str) -> list[str]:
    """Paragraphs, with headings and list items as blocks of their own; whitespace collapsed."""
    out: list[str] = []
    for paragraph in _BLOCK_BREAK.split(text):
        current: list[str] = []
        for line in paragraph.splitlines():
            if _LINE_START_BLOCK.match(line) and current:
                out.append(" ".join(current))
                current = []
            stripped = line.strip()
            if stripped:
                current.append(stripped)
            if stripped.startswith("#"):  # a heading never runs on into the next line
                out.append(" ".join(current))
                current = []
        if current:
            out.append(" ".join(current))
    return [" ".join(block.split()) for block in out if block.strip()]


def _ends_sentence(block: str, match: re.Match[str], start: int) -> bool:
    punct = match.group()
    rest = block[match.end() :].lstrip()
    next_char = rest[:1]
    if "?" in punct or "!" in punct:
        return True
    if not (next_char.isupper() or next_char.isdigit() or next_char in _OPENERS):
        return False  # "e.g. the", "U.S. and", "3 p.m. on": a lower-case word continues the sentence
    word = block[start : match.start() + 1].rsplit(None, 1)[-1].lstrip(_OPENERS)
    if not word.endswith("."):
        return True  # the period sits after a quote or bracket: a real end
    bare = word.lower()
    if bare.rstrip(".") in _TITLE_ABBREVIATIONS or bare in _TITLE_ABBREVIATIONS:
        return False
    if bare.rstrip(".") in _NUMBER_ABBREVIATIONS and next_char.isdigit():
        return False
    return not (_INITIALISM.fullmatch(bare) or _INITIAL.fullmatch(word))


@memo_list
def split_sentences(text: str) -> list[str]:
    """Sentences in order. Paragraphs, headings and list items always split; inside a paragraph a
    period splits only before a capital, digit or quote, and not after common abbreviations
    (Dr., e.g., U.S., Fig. 2) or initials. Decimals (3.14) never split: no space follows the dot."""
    sentences: list[str] = []
    for block in _blocks(text):
        start = 0
        for match in _BOUNDARY.finditer(block):
            if _ends_sentence(block, match, start):
                sentence = block[start : match.end()].strip()
                if sentence:
                    sentences.append(sentence)
                start = match.end()
        tail = block[start:].strip()
        if tail:
            sentences.append(tail)
    return sentences
