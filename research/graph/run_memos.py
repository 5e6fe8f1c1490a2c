"""What one run's nodes work out once and share, each memo a typed slot (RunContext.memos)."""

from __future__ import annotations

from dataclasses import dataclass

from research.relevance.coverage import QuestionEvidence
from research.schemas.state_shapes import Source


@dataclass(frozen=True)
class AnsweredCoverage:
    """The coverage last worked out in this run, and what it was worked out from."""

    topic: str
    questions: list[str]
    sources: list[Source]
    coverage: list[QuestionEvidence]

    def answers(self, topic: str, questions: list[str], sources: list[Source]) -> list[QuestionEvidence] | None:
        """A copy of the coverage when it was worked out from these, else None."""
        if (self.topic, self.questions, self.sources) == (topic, questions, sources):
            return list(self.coverage)
        return None


@dataclass
class RunMemos:
    """The run's memos; a slot is None until a node fills it."""

    coverage: AnsweredCoverage | None = None  # the last analyst's, read back by the writer (nodes/run_coverage.py)
