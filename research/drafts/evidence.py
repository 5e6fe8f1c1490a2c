"""How much evidence a run found (none | partial | sufficient), and the honest draft of an empty run.

An empty or thin run is an outcome a reader must see, not a success: the status travels with the
run's result, its JSON and a warning, and an empty run's draft says what was searched instead of
pretending to answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from research.drafts.citations import SOURCES_HEADING
from research.schemas.llm_shapes import QuestionCoverage
from research.schemas.state_shapes import Critique, Evidence

MAX_QUERIES_LISTED = 12


@dataclass(frozen=True)
class EvidenceStatus:
    evidence: Evidence
    questions: int
    questions_covered: int
    sources: int
    reason: str
    searched: list[str] = field(default_factory=list)

    @property
    def warning(self) -> str | None:
        if self.evidence == "sufficient":
            return None
        if self.evidence == "none":
            return f"No relevant evidence: {self.reason} The draft says so instead of answering."
        return f"Thin evidence: {self.reason} Read the draft's uncovered sections with care."


def assess_evidence(
    questions: list[str], source_count: int, critiques: list[Critique], searched: list[str]
) -> EvidenceStatus:
    """The status from the analyst's last verdict: its per-question coverage (see assess_coverage),
    or, for a verdict without one, its status."""
    last = critiques[-1] if critiques else None
    if last and last.coverage:
        return assess_coverage(last.coverage, source_count, searched)
    covered = last is not None and last.status == "APPROVED"
    coverage = [QuestionCoverage(question=q, covered=covered) for q in questions]
    return assess_coverage(coverage, source_count, searched)


def assess_coverage(coverage: list[QuestionCoverage], source_count: int, searched: list[str]) -> EvidenceStatus:
    """`none` without a single relevant source; `sufficient` when every question is covered;
    `partial` in between. The coverage is the run's one per-question computation
    (research/relevance/coverage.py), which the draft's sections and Known gaps also read."""
    searched = list(dict.fromkeys(q for q in searched if q))
    total = len(coverage)
    if source_count == 0:
        reason = f"no source about the topic was found ({len(searched)} searches)."
        return EvidenceStatus("none", total, 0, 0, reason, searched)
    covered = sum(1 for c in coverage if c.covered)
    if total and covered >= total:
        return EvidenceStatus("sufficient", total, covered, source_count, "every question is covered.", searched)
    reason = f"{covered} of {total} questions covered by {source_count} relevant sources."
    return EvidenceStatus("partial", total, covered, source_count, reason, searched)


GAPS_HEADING = "## Known gaps"


def with_known_gaps(markdown: str, gaps: list[str]) -> str:
    """The draft with a Known gaps section that lists exactly `gaps` (the run's coverage), whatever
    the writer listed there, before its Sources list if it has one; no section when there are none."""
    out: list[str] = []
    tail: list[str] = []
    skipping = False
    for line in markdown.rstrip().splitlines():
        if tail or line.strip() == SOURCES_HEADING:
            tail.append(line)
            continue
        if line.startswith("## "):
            skipping = line.strip().lower() == GAPS_HEADING.lower()
        if not skipping:
            out.append(line)
    text = "\n".join(out).rstrip()
    if gaps:
        text += f"\n\n{GAPS_HEADING}\n\n" + "\n".join(f"- {gap}" for gap in gaps)
    return text + ("\n\n" + "\n".join(tail) if tail else "") + "\n"


def empty_draft(topic: str, questions: list[str], searched: list[str]) -> str:
    """The draft of a run that found nothing relevant: what was asked, what was searched, no claims."""
    title = " ".join(topic.split())
    lines = [
        f"# {title[:1].upper()}{title[1:]}",
        "",
        "## Summary",
        "",
        "No relevant sources were found for this topic, so this draft makes no claims about it. "
        f"The researchers ran {len(searched)} searches and found no source about it (results about "
        "other subjects were set aside). Try other words for the topic, other source settings, or import "
        "documents about it into the library.",
    ]
    if questions:
        lines += ["", "## Questions left open", ""] + [f"- {q}" for q in questions]
    if searched:
        lines += ["", "## What was searched", ""] + [f"- {q}" for q in searched[:MAX_QUERIES_LISTED]]
        if len(searched) > MAX_QUERIES_LISTED:
            lines.append(f"- and {len(searched) - MAX_QUERIES_LISTED} more")
    return "\n".join(lines) + "\n"
