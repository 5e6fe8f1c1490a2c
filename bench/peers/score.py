"""One reader for every system's report: what it cites, whether that exists, whether it says what
the cited page says. The same rules for the desk and the peers, from the report text and the
world's pages only (never from a system's own account of itself).

A citation is a URL in a sentence (a Markdown link or a bare URL) or an `[n]` marker that a
reference line (`[n] ... URL`) resolves. A cited URL the world never served is invented, and so is
a marker no reference line resolves. A cited sentence is supported when its best passage in a
cited page holds at least SUPPORTED_AT of its terms (the desk's offline claim check,
research/drafts/claims.py). A page about another subject than the topic's is an off-subject
citation (on an uncovered or near-miss topic, every cited page is). A report says it found nothing
when it holds one of NOTHING_FOUND (the honest answer on a no-answer topic, in any system's words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bench.peers.world import PeerWorld
from research.drafts.claims import SUPPORTED_AT, best_passage
from research.text import split_sentences

MAX_REPORT_CHARS = 400_000  # a looping peer writes tens of thousands of characters; read this much
_URL = re.compile(r"https?://[^\s()<>\[\]\"'`]{1,2000}")
_MARKER = re.compile(r"\[(\d{1,3})\]")
_REFERENCE = re.compile(r"^\s{0,8}(?:[-*+]\s{1,4})?\[(\d{1,3})\]")
_REFERENCE_HEADING = re.compile(r"^#{1,6}\s{0,4}(sources|references|bibliography|citations)\b", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s")
_LINK = re.compile(r"\]\((https?://[^\s()]{1,2000})\)")
_TRAILING = ".,;:!?"
NOTHING_FOUND = (
    "no relevant source",
    "no relevant information",
    "no sources were found",
    "no information was found",
    "found no source",
    "could not find",
    "did not find",
    "were unable to find",
    "was unable to find",
    "no results",
    "not enough information",
    "insufficient information",
)


@dataclass(frozen=True)
class Expectation:
    """What a report on this topic may cite: pages of `library_topic` (None: nothing answers it)."""

    library_topic: str | None


def _urls(text: str) -> list[str]:
    return [u.rstrip(_TRAILING) for u in _URL.findall(text)]


def _references(lines: list[str]) -> dict[int, list[str]]:
    refs: dict[int, list[str]] = {}
    for line in lines:
        match = _REFERENCE.match(line)
        if match:
            refs.setdefault(int(match.group(1)), []).extend(_urls(line[match.end() :]))
    return refs


def _body_lines(lines: list[str]) -> list[str]:
    """Lines before the reference section, without reference lines and headings."""
    body: list[str] = []
    for line in lines:
        if _REFERENCE_HEADING.match(line.strip()):
            break
        if _HEADING.match(line.strip()) or _REFERENCE.match(line):
            continue
        body.append(line)
    return body


def _plain(sentence: str) -> str:
    """The sentence as a claim: links kept as their text, markers and URLs gone."""
    text = _LINK.sub("]", sentence)
    text = _URL.sub("", _MARKER.sub("", text))
    return " ".join(text.replace("[", " ").replace("]", " ").split())


def score_report(report: str, world: PeerWorld, expect: Expectation) -> dict[str, Any]:
    text = (report or "")[:MAX_REPORT_CHARS]
    lines = text.splitlines()
    refs = _references(lines)
    cited_urls: list[str] = []
    invented_markers = 0
    cited_sentences = supported = 0
    for line in _body_lines(lines):
        for sentence in split_sentences(line.strip()):
            urls = _urls(sentence)
            for n in dict.fromkeys(int(m) for m in _MARKER.findall(sentence)):
                if refs.get(n):
                    urls.extend(refs[n])
                elif refs or not urls:
                    invented_markers += 1  # a marker nothing resolves
            if not urls:
                continue
            cited_urls.extend(urls)
            pages = [p for p in (world.page(u) for u in urls) if p is not None]
            if not pages:
                continue
            cited_sentences += 1
            claim = _plain(sentence)
            if claim and max(best_passage(claim, p.text)[1] for p in pages) >= SUPPORTED_AT:
                supported += 1
    every_url = list(dict.fromkeys(cited_urls + [u for us in refs.values() for u in us] + _urls(text)))
    served = {p.url: p for p in (world.page(u) for u in every_url) if p is not None}
    invented = [u for u in every_url if world.page(u) is None]
    off_subject = [p for p in served.values() if expect.library_topic is None or p.topic != expect.library_topic]
    return {
        "report_words": len(text.split()),
        "report_chars": len(report or ""),
        "sources_cited": len(served),
        "invented_citations": len(invented) + invented_markers,
        "invented_examples": invented[:3],
        "off_subject_citations": len(off_subject),
        "cited_sentences": cited_sentences,
        "supported_sentences": supported,
        "supported_share": round(supported / cited_sentences, 3) if cited_sentences else None,
        "cites_nothing": not served,
        "says_nothing_found": says_nothing_found(text),
    }


def says_nothing_found(report: str) -> bool:
    folded = " ".join(report[:MAX_REPORT_CHARS].lower().replace("’", "'").split())
    return any(phrase in folded for phrase in NOTHING_FOUND)
