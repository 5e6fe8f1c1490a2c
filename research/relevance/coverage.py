"""Which research questions the gathered sources answer: the one computation that the analyst's
coverage, the evidence status, the draft's sections and its Known gaps (draft and JSON) all read.

A source answers a question when it is on the subject, speaks to half the question's own terms
(directly or through a related stem: "impact" / "effect"), and has a quotable passage that speaks
to one of them. A question is covered when sources of two origins answer it; with one it is thin,
with none the draft says nothing relevant was found and cites nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from research.relevance.scoring import is_on_topic
from research.schemas.llm_shapes import QuestionCoverage
from research.schemas.state_shapes import Source
from research.text import split_sentences, tokenize
from research.topic.aspects import related
from research.topic.subject import subject_of

MIN_SOURCES_PER_QUESTION = 2
MIN_ORIGINS = 2
RELEVANCE_SHARE = 0.5  # of the question's own terms a source must speak to
MIN_PASSAGE_CHARS, MAX_PASSAGE_CHARS = 60, 400
MAX_SENTENCES_SCANNED = 2_000
NOTHING_FOUND = "Nothing relevant to this question was found in the gathered sources."

FILLER = frozenset(
    tokenize(
        "what how why who when which does did is are the of and in on for its their was were behind say "
        "about remain open main define defines address problems"
    )
)
_WORD = re.compile(r"[A-Za-z][A-Za-z\-]+")

TextLookup = Callable[[str], str]


@dataclass(frozen=True)
class QuestionEvidence:
    """One question's coverage and the sources that answer it (what the writer may cite there)."""

    question: str
    covered: bool
    source_ids: tuple[str, ...]
    origins: int

    @property
    def note(self) -> str:
        return f"{len(self.source_ids)} relevant sources from {self.origins} origins"

    def as_coverage(self) -> QuestionCoverage:
        return QuestionCoverage(
            question=self.question, covered=self.covered, source_count=len(self.source_ids), note=self.note
        )


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))


def focus_terms(question: str, subject: str) -> list[str]:
    """The question's own words: not the subject's, not question filler."""
    subject_tokens = set(tokenize(subject))
    return _unique(
        w.lower()
        for w in _WORD.findall(question)
        if (toks := tokenize(w)) and toks[0] not in FILLER and toks[0] not in subject_tokens
    )


def focus_matches(focus: Iterable[str], terms: set[str]) -> int:
    """How many focus terms a text speaks to, directly or through a related stem."""
    stems = {t[:6] for t in terms}
    return sum(1 for f in {t[:6] for t in focus} if f in stems or related(f) & stems)


def origin(source: Source) -> str:
    """Where a source comes from: its domain on the web, the document itself in the library."""
    return source.id if source.provider == "library" or not source.url.startswith("http") else source.domain


def _answers(focus: list[str], needed: int, title: str, text: str) -> bool:
    terms = set(tokenize(f"{title} {text}"))
    if focus_matches(focus, terms) < needed:
        return False
    if not focus:
        return True
    for i, sentence in enumerate(split_sentences(text)):
        if i >= MAX_SENTENCES_SCANNED:
            break
        s = sentence.strip()
        quotable = MIN_PASSAGE_CHARS <= len(s) <= MAX_PASSAGE_CHARS and not s.startswith(("#", "|", ">"))
        if quotable and focus_matches(focus, set(tokenize(s))):
            return True
    return False


def question_coverage(
    topic: str, questions: list[str], sources: list[Source], text_of: TextLookup
) -> list[QuestionEvidence]:
    subject = subject_of(topic)
    texts = {s.id: text_of(s.id) or s.snippet for s in sources}
    on_subject = [s for s in sources if is_on_topic(subject, f"{s.title} {texts[s.id]}")]
    out: list[QuestionEvidence] = []
    for question in questions:
        focus = [t for w in focus_terms(question, subject) for t in tokenize(w)]
        needed = max(1, int(len(set(focus)) * RELEVANCE_SHARE)) if focus else 0
        relevant = [s for s in on_subject if _answers(focus, needed, s.title, texts[s.id])]
        origins = len({origin(s) for s in relevant})
        covered = len(relevant) >= MIN_SOURCES_PER_QUESTION and origins >= MIN_ORIGINS
        out.append(QuestionEvidence(question, covered, tuple(s.id for s in relevant), origins))
    return out


def known_gaps(coverage: Iterable[QuestionEvidence | QuestionCoverage]) -> list[str]:
    """The questions a draft lists under Known gaps: every one not covered, as asked."""
    return [c.question for c in coverage if not c.covered]
