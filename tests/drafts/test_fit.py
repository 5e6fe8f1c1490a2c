"""The fit rule compares words one way for the subject and for what a question asks about it:
by the stem two forms of a word share, so a form of the subject is never read as the question's
focus, and a sentence naming the subject in another form names it."""

from __future__ import annotations

from research.drafts.fit import addresses, focus_terms
from research.text import tokenize

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
