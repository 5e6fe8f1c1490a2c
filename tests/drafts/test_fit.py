"""The fit rule compares words one way for the subject and for what a question asks about it:
by the stem two forms of a word share, so a form of the subject is never read as the question's
focus, and a sentence naming the subject in another form names it."""

from __future__ import annotations

from pathlib import Path

from research.drafts.fit import (
    _FILLER,
    _FRAMING,
    SUBJECT_SHARE,
    SUMMARY_HEADINGS,
    addresses,
    focus_terms,
    section_fit,
    speaks_to,
    word_stem,
)
from research.text import split_sentences, tokenize

VACCINES = "How do vaccines work?"
WHO_GETS = "Who gets vaccination, and when?"


def test_a_form_of_the_subject_is_the_subject_not_the_questions_focus() -> None:
    assert focus_terms(WHO_GETS, set(tokenize(VACCINES))) == ["get"]
    assert not addresses("Vaccines are made in large factories.", WHO_GETS, VACCINES)  # names the subject only
    assert addresses("Children and older adults get vaccinated each autumn.", WHO_GETS, VACCINES)


def test_a_question_about_the_subject_as_a_whole_reads_its_words_in_any_form() -> None:
    topic = "Why did the printing press spread so fast across Europe?"
    sentence = "By 1500 printing presses had reached more than two hundred towns in a dozen European countries."
    assert addresses(sentence, topic, topic)  # "European" names "Europe": three of its six words
    assert not addresses("Paper was made from linen rags.", topic, topic)


def _addresses_as_written(sentence: str, question: str, topic: str) -> bool:
    """The fit rule read afresh for every sentence, as it was before `section_fit` worked a
    question's terms out once: the definition the precomputed rule must not change."""
    tokens = set(tokenize(sentence))
    stems = {word_stem(t) for t in tokens}
    subject = {t for t in tokenize(topic) if t not in _FILLER}
    focus = focus_terms(question, subject)
    if question.strip().lower() in SUMMARY_HEADINGS or (focus and set(focus) <= _FRAMING):
        return not subject or bool({word_stem(t) for t in subject} & stems)
    if focus:
        return speaks_to(focus, tokens)
    asked = {word_stem(t) for t in tokenize(question) if t not in _FILLER}
    return not asked or len(asked & stems) >= SUBJECT_SHARE * len(asked)


def test_a_sections_fit_worked_out_once_answers_as_the_rule_read_per_sentence() -> None:
    library = Path(__file__).resolve().parents[2] / "research" / "data" / "sample_library"
    sentences = [s for p in sorted(library.glob("*.md"))[:12] for s in split_sentences(p.read_text("utf-8"))]
    sentences += ["", "vaccines", "Safety and risk of myocarditis after vaccination."]
    cases = [
        (VACCINES, VACCINES),
        (WHO_GETS, VACCINES),
        ("Summary", VACCINES),
        ("Overview", "Impressionism"),
        ("What are the safety risks?", VACCINES),
        ("How did the Impressionists sell their paintings?", "Impressionism"),
        ("What is Impressionism", "Impressionism"),
        ("What is it", ""),  # no subject, nothing asked beyond filler
        ("Key findings", ""),
    ]
    verdicts = set()
    for question, topic in cases:
        for sentence in sentences:
            expected = _addresses_as_written(sentence, question, topic)
            assert section_fit(question, topic)(sentence) is expected, (question, sentence)
            assert addresses(sentence, question, topic) is expected
            verdicts.add(expected)
    assert verdicts == {True, False}
