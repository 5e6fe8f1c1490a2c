"""Claim-level citation check: every cited sentence of a draft against the stored text of its source.

Offline, a claim's support is the share of its content terms found in the best-matching passage
(a window of up to three consecutive sentences) of the cited source; and it is faithful and fits:
a claim that changes a number, unit or identifier of its passage (research/drafts/faithful.py), or
does not address the question of its section (research/drafts/fit.py), is unsupported whatever its
overlap. Each claim that is not supported says why (`failure`, `reason`). A source whose stored text
is missing or unreadable makes its claims `unverifiable`, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from research.drafts.citations import SOURCES_HEADING
from research.drafts.faithful import changed_tokens
from research.drafts.fit import addresses
from research.drafts.markers import CITATION_MARKER as CITATION
from research.schemas.state_shapes import CheckedClaim, ClaimFailure, ClaimVerdict
from research.text import split_sentences, tokenize
from research.text.quote import md_unquote, plain_text

SUPPORTED_AT = 0.8  # share of the claim's terms in the passage
PARTIAL_AT = 0.5
PASSAGE_WINDOW = 3  # sentences
MAX_PASSAGE_CHARS = 600
MAX_CLAIMS = 200  # a draft is bounded, and so is the check
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_UNCHECKED_SECTIONS = frozenset({"known gaps"})  # the desk's own list, not claims about the subject


@dataclass(frozen=True)
class CitedSentence:
    sentence: str  # as written, markers included
    claim: str  # the sentence without its markers
    numbers: tuple[int, ...]
    section: str


def cited_sentences(markdown: str) -> list[CitedSentence]:
    """The draft's sentences that carry [n] markers, with the section they stand in."""
    body = markdown.split(f"\n{SOURCES_HEADING}", 1)[0]
    out: list[CitedSentence] = []
    section = ""
    for block in re.split(r"\n\s*\n", body):
        block = block.strip()
        heading = _HEADING.match(block)
        if heading:
            section = heading.group(1).strip()
            continue
        for line in block.splitlines():
            line = re.sub(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+", "", line)
            for sentence in split_sentences(line):
                numbers = tuple(dict.fromkeys(int(n) for n in CITATION.findall(sentence)))
                if numbers:
                    claim = md_unquote(" ".join(CITATION.sub("", sentence).split()))
                    out.append(
                        CitedSentence(sentence.strip(), re.sub(r"\s+([.,;:!?])", r"\1", claim), numbers, section)
                    )
    return out[:MAX_CLAIMS]


def verdict_for(score: float) -> ClaimVerdict:
    if score >= SUPPORTED_AT:
        return "supported"
    return "partial" if score >= PARTIAL_AT else "unsupported"


def best_passage(claim: str, text: str) -> tuple[str, float]:
    """The window of the source's sentences holding most of the claim's terms, and that share."""
    passage, share = _best_window(claim, text)
    return passage[:MAX_PASSAGE_CHARS], share


def _best_window(claim: str, text: str) -> tuple[str, float]:
    wanted = set(tokenize(claim))
    if not wanted:
        return "", 0.0
    sentences = split_sentences(text)
    tokens = [set(tokenize(s)) for s in sentences]
    best, best_key = "", (0.0, 0)
    for start in range(len(sentences)):
        seen: set[str] = set()
        for width in range(PASSAGE_WINDOW):
            if start + width >= len(sentences):
                break
            seen |= tokens[start + width]
            # A wider window must earn its width: of equal scores, the shortest passage wins.
            key = (round(len(wanted & seen) / len(wanted), 3), -width)
            if key > best_key:
                best, best_key = " ".join(sentences[start : start + width + 1]), key
    return best, best_key[0]


def draft_topic(markdown: str) -> str:
    """The topic a draft answers: its title."""
    for line in markdown.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def judge_offline(
    claim: str, section: str, topic: str, text: str
) -> tuple[str, float, ClaimVerdict, ClaimFailure, str]:
    """(passage, score, verdict, failure, reason) of one claim against its source's stored text."""
    window, score = _best_window(claim, text)
    verdict = verdict_for(score)
    failure: ClaimFailure = "" if verdict == "supported" else "not_stated"
    reason = "" if verdict == "supported" else f"{score:.0%} of its terms are in the best passage of the source"
    changed = changed_tokens(claim, plain_text(window)) if window else None
    if changed:
        verdict, failure, reason = "unsupported", "changed", f"not faithful: {changed}"
    elif section.strip().lower() not in _UNCHECKED_SECTIONS and not addresses(claim, section, topic):
        verdict, failure = "unsupported", "off_question"
        reason = f'does not address its section\'s question ("{section[:120]}")'
    return window[:MAX_PASSAGE_CHARS], score, verdict, failure, reason


def check_claims(markdown: str, citations: dict[int, str], text_of: Callable[[str], str]) -> list[CheckedClaim]:
    """One CheckedClaim per (sentence, cited source)."""
    texts: dict[str, str | None] = {}
    claims: list[CheckedClaim] = []
    topic = draft_topic(markdown)
    for cited in cited_sentences(markdown):
        for n in cited.numbers:
            source_id = citations.get(n)
            text = _text(source_id, text_of, texts) if source_id else None
            if not text:
                claims.append(
                    CheckedClaim(
                        n=n,
                        sentence=cited.claim,
                        source_id=source_id,
                        verdict="unverifiable",
                        score=0.0,
                        section=cited.section,
                        failure="no_text",
                        reason="no stored text for this source" if source_id else f"[{n}] cites no source",
                    )
                )
                continue
            passage, score, verdict, failure, reason = judge_offline(cited.claim, cited.section, topic, text)
            claims.append(
                CheckedClaim(
                    n=n,
                    sentence=cited.claim,
                    source_id=source_id,
                    verdict=verdict,
                    score=score,
                    passage=passage,
                    section=cited.section,
                    failure=failure,
                    reason=reason,
                )
            )
    return claims


def precision(claims: list[CheckedClaim]) -> float | None:
    """Supported claims over all claims that could be checked; None when none could."""
    checked = [c for c in claims if c.verdict != "unverifiable"]
    if not checked:
        return None
    return round(sum(c.verdict == "supported" for c in checked) / len(checked), 3)


def _text(source_id: str, text_of: Callable[[str], str], cache: dict[str, str | None]) -> str | None:
    if source_id not in cache:
        try:
            cache[source_id] = text_of(source_id) or None
        except Exception:  # noqa: BLE001 - an unreadable text makes its claims unverifiable, not a crash
            cache[source_id] = None
    return cache[source_id]
