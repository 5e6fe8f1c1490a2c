"""The reviewer's reading of a whole draft, and the offline reviser.

Issues: claims the claim check found unsupported, sentences repeated across sections, and research
questions the draft leaves unanswered. The offline reviser drops unsupported and repeated sentences
and lists unanswered questions under Known gaps; each change carries its reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from research import prompts
from research.drafts.citations import SOURCES_HEADING
from research.drafts.markers import CITATION_MARKER as CITATION
from research.drafts.report_form import bullet_lead
from research.schemas.state_shapes import CheckedClaim
from research.text import split_sentences, tokenize
from research.text.quote import md_unquote

REPEAT_OVERLAP = 0.8  # share of the shorter sentence's terms that makes it a repeat
MIN_REPEAT_TERMS = 5
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
GAPS_HEADING = "## Known gaps"
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")


@dataclass
class ReviewIssues:
    unsupported: list[str] = field(default_factory=list)  # claim sentences (markers removed)
    # (section, sentence) of each: the same sentence may fit one section and miss another's question
    unsupported_in: set[tuple[str, str]] = field(default_factory=set)
    repeated: list[str] = field(default_factory=list)  # later occurrences, as written
    repeated_at: list[int] = field(default_factory=list)  # their positions among the body's sentences
    unanswered: list[str] = field(default_factory=list)  # questions
    sections: list[str] = field(default_factory=list)  # the headings of the sections holding an issue

    @property
    def any(self) -> bool:
        return bool(self.unsupported or self.repeated or self.unanswered)

    def instruction(self) -> str:
        """What a model reviser is asked to fix (the templates live in research/prompts.py)."""
        parts = []
        if self.unsupported:
            parts.append(prompts.REVIEW_UNSUPPORTED.format(items=" | ".join(self.unsupported)))
        if self.repeated:
            parts.append(prompts.REVIEW_REPEATED.format(items=" | ".join(self.repeated)))
        if self.unanswered:
            parts.append(prompts.REVIEW_UNANSWERED.format(items=" | ".join(self.unanswered)))
        return " ".join(parts)


def _plain(sentence: str) -> str:
    """A sentence without its markers, spelled as the claim check spells its claims."""
    return md_unquote(re.sub(r"\s+([.,;:!?])", r"\1", " ".join(CITATION.sub("", sentence).split())))


def _question_key(text: str) -> str:
    """A section heading and the question it answers compare equal ("Is it safe?" / "Is it safe")."""
    return " ".join(text.lower().rstrip("?.! ").split())


def _body_and_tail(markdown: str) -> tuple[str, str]:
    index = markdown.find(f"\n{SOURCES_HEADING}")
    return (markdown, "") if index < 0 else (markdown[:index], markdown[index:])


def _lines(body: str) -> Iterator[tuple[str, str, str, list[str]]]:
    """(line, section, bullet prefix, sentences) for every line of the body; headings and blank
    lines come with no sentences. Finding and revising walk the draft the same way."""
    section = ""
    for line in body.splitlines():
        heading = _HEADING.match(line.strip())
        if heading:
            section = heading.group(1).strip()
        if heading or not line.strip():
            yield line, section, "", []
            continue
        lead = bullet_lead(line)  # a brief's key point: its bold lead is the question it answers
        if lead:
            yield line, lead[0], line[: len(line) - len(lead[1])], split_sentences(lead[1])
            continue
        bullet = _BULLET.match(line)
        prefix = bullet.group(0) if bullet else ""
        yield line, section, prefix, split_sentences(line[len(prefix) :])


def uncited_questions(markdown: str, questions: list[str]) -> list[str]:
    """The questions whose section (or a brief's bullet) cites nothing in the draft, or that have
    none: the draft shows no finding for them, whatever the sources gathered."""
    cited = _cited_sections(_body_and_tail(markdown)[0])
    return [q for q in questions if not cited.get(_question_key(q), False)]


def _cited_sections(body: str) -> dict[str, bool]:
    """Per section (its question key), whether any of its lines cites a source; Known gaps aside."""
    cited: dict[str, bool] = {}
    for line, section, _prefix, sentences in _lines(body):
        if sentences and section.lower() != "known gaps":
            key = _question_key(section)
            cited[key] = cited.get(key, False) or bool(CITATION.search(line))
    return cited


def find_issues(markdown: str, claims: list[CheckedClaim], questions: list[str]) -> ReviewIssues:
    issues = ReviewIssues()
    issues.unsupported = list(dict.fromkeys(c.sentence for c in claims if c.verdict == "unsupported"))
    issues.unsupported_in = {(c.section, c.sentence) for c in claims if c.verdict == "unsupported"}
    body, _ = _body_and_tail(markdown)
    seen: list[set[str]] = []
    gaps = ""
    index = 0
    for line, section, _prefix, sentences in _lines(body):
        if section.lower() == "known gaps":
            gaps += line
            continue
        for sentence in sentences:
            terms = set(tokenize(_plain(sentence)))
            if _prefix and not CITATION.search(sentence):
                terms = set()  # an uncited list item (a query searched, a question listed) is no claim
            if len(terms) >= MIN_REPEAT_TERMS and any(
                len(terms & s) / min(len(terms), len(s)) >= REPEAT_OVERLAP for s in seen
            ):
                issues.repeated.append(sentence.strip())
                issues.repeated_at.append(index)
                issues.sections.append(section)
            elif terms:
                seen.append(terms)
            index += 1
    for question in uncited_questions(markdown, questions):
        if question.strip().rstrip("?").strip() not in gaps:
            issues.unanswered.append(question)
    issues.sections += [c.section for c in claims if c.verdict == "unsupported"] + issues.unanswered
    issues.sections = list(dict.fromkeys(issues.sections))
    return issues


def revise_offline(markdown: str, issues: ReviewIssues) -> tuple[str, list[str]]:
    """The draft body without unsupported and repeated sentences, unanswered questions under Known
    gaps; and the reasons, one per change. The caller renumbers citations (finalize_citations)."""
    body, _ = _body_and_tail(markdown)
    drop_plain = set(issues.unsupported)
    drop_at = set(issues.repeated_at)
    reasons: list[str] = []
    lines_out: list[str] = []
    index = 0
    for line, section, prefix, sentences in _lines(body):
        if not sentences:
            lines_out.append(line)
            continue
        known_gaps = section.lower() == "known gaps"
        kept = []
        for sentence in sentences:
            at, index = index, index + (0 if known_gaps else 1)
            plain = _plain(sentence)
            unsupported = (
                bool({(section, plain), ("", plain)} & issues.unsupported_in)  # "": a claim checked without one
                if issues.unsupported_in
                else plain in drop_plain
            )
            if known_gaps:
                kept.append(sentence)
            elif at in drop_at or unsupported:
                what = "a repeated sentence" if at in drop_at else "an unsupported claim"
                reasons.append(f'Removed {what}: "{plain[:160]}"')
                if CITATION.search(sentence):  # its [n] cited the uncited lead-in before it too: it goes with it
                    while kept and not CITATION.search(kept[-1]):
                        kept.pop()
            else:
                kept.append(sentence)
        if kept:
            lines_out.append(prefix + " ".join(kept))
        elif not prefix:
            lines_out.append("The sources checked do not support a statement here.")
    text = "\n".join(lines_out).rstrip()
    if issues.unanswered:
        if GAPS_HEADING not in text:
            text += f"\n\n{GAPS_HEADING}\n"
        text += "\n" + "\n".join(f"- {q}" for q in issues.unanswered)
        reasons += [f'Listed an unanswered question under Known gaps: "{q}"' for q in issues.unanswered]
    return text.rstrip() + "\n", reasons
