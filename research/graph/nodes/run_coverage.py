"""The run's coverage per question: one computation the analyst's verdict, the evidence status,
the draft's sections and its Known gaps (draft and JSON) all read.

The sources that answer each question (research/relevance/coverage.py), settled on what the
offline writer can write: a question whose passages all answer other questions better gets a
section that says nothing relevant was found, so it is not covered either. Once any writer has
written, the coverage is settled on the draft itself (`settle_on_draft`): a question whose section
cites nothing (every sentence a model wrote for it failed grounding) is not covered.
"""

from __future__ import annotations

from dataclasses import replace

from research.brains.base import number_sources
from research.brains.offline.offline_writer import answered_questions
from research.drafts.evidence import EvidenceStatus
from research.drafts.review import uncited_questions
from research.events import emit
from research.events.payloads import EvidenceAssessedData
from research.graph.context import RunContext
from research.graph.nodes.common import warn
from research.graph.run_memos import AnsweredCoverage
from research.relevance.coverage import QuestionEvidence, question_coverage
from research.schemas.state_shapes import Source

MAX_SOURCES_FOR_WRITER = 40


def writing_order(sources: list[Source]) -> list[Source]:
    """The sources the writer gets, most relevant first, the more reliable first among equally
    relevant ones (so they get the lower [n] and are cited first), then by kind and id: the same draft
    whatever order the parallel researchers happened to finish in (in-process or on a server)."""
    kinds = {"web": 0, "academic": 1, "book": 2}

    def key(s: Source) -> tuple[float, float, int, str]:
        reliability = s.reliability.score if s.reliability else 0.0
        return (-(s.relevance or 0.0), -reliability, kinds.get(s.kind, 3), s.id)

    ranked = sorted(sources, key=key)
    return ranked[:MAX_SOURCES_FOR_WRITER]


def run_coverage(ctx: RunContext, topic: str, questions: list[str], sources: list[Source]) -> list[QuestionEvidence]:
    """The coverage of `sources`; the last round's analyst worked out the same one beside its
    call, so the writer, given the same sources, reads it back instead of working it out again
    before its first call (the texts behind the sources' ids never change within a run)."""
    last = ctx.memos.coverage
    remembered = last.answers(topic, questions, sources) if last is not None else None
    if remembered is not None:
        return remembered
    coverage = _coverage(ctx, topic, questions, sources)
    ctx.memos.coverage = AnsweredCoverage(topic, list(questions), list(sources), coverage)
    return list(coverage)


def _coverage(ctx: RunContext, topic: str, questions: list[str], sources: list[Source]) -> list[QuestionEvidence]:
    coverage = question_coverage(topic, questions, sources, ctx.text_of)
    if ctx.brain.kind != "offline" or not sources:
        return coverage
    numbered = number_sources(writing_order(sources))
    written = answered_questions(topic, questions, numbered, ctx.text_of, tuple(coverage))
    return [c if c.question in written else replace(c, covered=False, source_ids=(), origins=0) for c in coverage]


def settle_on_draft(coverage: list[QuestionEvidence], markdown: str) -> list[QuestionEvidence]:
    """The coverage once the draft is written: a question it found covered whose section in the
    draft cites nothing (or that has no section) is not covered, so the evidence, the notice and the
    Known gaps (draft and JSON) never call answered what the draft does not answer."""
    unshown = set(uncited_questions(markdown, [c.question for c in coverage if c.covered]))
    return [replace(c, covered=False, source_ids=(), origins=0) if c.question in unshown else c for c in coverage]


def emit_evidence(evidence: EvidenceStatus) -> None:
    """The evidence_assessed event, and its warning when the evidence is thin or absent."""
    emit(
        EvidenceAssessedData(
            evidence=evidence.evidence,
            questions=evidence.questions,
            questions_covered=evidence.questions_covered,
            sources=evidence.sources,
            searched=list(evidence.searched),
            reason=evidence.reason,
        )
    )
    if evidence.warning:
        warn("evidence", evidence.warning)
