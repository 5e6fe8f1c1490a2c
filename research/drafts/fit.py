"""Whether a sentence addresses the question of its section: the "fit" half of the claim check.

A section's question names the subject (the topic's terms) and what is asked about it (its focus:
"mechanism", "safety", "who uses"). A sentence fits when it speaks to the focus, directly or through
a related stem ("safety" -> "risk", "myocarditis"); a question with no focus beyond the subject
("What is the 1929 stock market crash") asks about the subject as a whole, so the sentence must name
most of it: sharing one word ("stock") is not an answer. The Summary answers the topic itself.
The offline writer picks sentences by the same rule the claim check then applies.

Words compare by one rule everywhere here, the subject's as the focus's: their first six letters
(`word_stem`), so "vaccination" is the subject on a "vaccines" topic, not something asked about it.
"""

from __future__ import annotations

from dataclasses import dataclass

from research.text import tokenize
from research.text.memo import memo_pure
from research.topic.aspects import related

_FILLER = frozenset(
    tokenize(
        "what how why who when which does did is are the of and in on for its their was were behind say "
        "about remain open main define defines address problems work works happen made make do done use used "
        "mean means you we one"
    )
)
SUBJECT_SHARE = 0.5  # of a focus-less question's terms a fitting sentence names
STEM_LETTERS = 6  # related() is keyed by six-letter stems too
SUMMARY_HEADINGS = frozenset({"", "summary"})
# Headings that frame the topic rather than ask about it ("Overview", "Conclusion"): they answer the topic.
_FRAMING = frozenset(
    tokenize(
        "summary overview introduction background conclusion conclusions discussion key findings takeaways "
        "outlook synthesis answer short answer bottom line at a glance in brief"
    )
)


def word_stem(token: str) -> str:
    """What two forms of a word share ("vaccination", "vaccines"): the key every comparison here uses."""
    return token[:STEM_LETTERS]


def focus_terms(question: str, subject_tokens: set[str]) -> list[str]:
    """What a question asks about its subject: its terms that are neither subject nor filler."""
    subject = {word_stem(t) for t in subject_tokens}
    return [t for t in tokenize(question) if word_stem(t) not in subject and t not in _FILLER]


def speaks_to(focus: list[str], tokens: set[str]) -> bool:
    """Whether a sentence's tokens speak to any focus term, directly or through a related stem."""
    stems = {word_stem(t) for t in tokens}
    return any(word_stem(f) in stems or related(word_stem(f)) & stems for f in focus)


def addresses(sentence: str, question: str, topic: str) -> bool:
    """Whether `sentence` answers `question` (a section heading) of a draft on `topic`."""
    return section_fit(question, topic)(sentence)


@dataclass(frozen=True)
class SectionFit:
    """`addresses` for one question of one topic, its terms worked out once: a section's hundreds
    of candidate sentences (and the claim check's draft) then cost a tokenisation and a set
    intersection each, not a re-reading of the question and topic per sentence.

    A sentence fits when at least `needed` of its stems are among `targets`: the subject's stems
    (the Summary, a framing heading), the focus's stems and their related ones (a question with a
    focus), or the stems of a focus-less question, of which it must name SUBJECT_SHARE."""

    targets: frozenset[str]
    needed: float

    def __call__(self, sentence: str) -> bool:
        return not self.needed or len(self.targets & sentence_stems(sentence)) >= self.needed


@memo_pure(maxsize=16_384)
def sentence_stems(sentence: str) -> frozenset[str]:
    """A sentence's stems, worked out once: every section's fit rule reads every source sentence."""
    return frozenset(word_stem(t) for t in tokenize(sentence))


@memo_pure(maxsize=256)
def section_fit(question: str, topic: str) -> SectionFit:
    subject = {t for t in tokenize(topic) if t not in _FILLER}
    focus = focus_terms(question, subject)
    if question.strip().lower() in SUMMARY_HEADINGS or (focus and set(focus) <= _FRAMING):
        return SectionFit(frozenset(word_stem(t) for t in subject), 1 if subject else 0)
    if focus:
        stems = {word_stem(f) for f in focus}
        return SectionFit(frozenset(stems.union(*(related(s) for s in stems))), 1)
    asked = frozenset(word_stem(t) for t in tokenize(question) if t not in _FILLER)
    return SectionFit(asked, SUBJECT_SHARE * len(asked))
