"""One aspect pattern and one stem table: the subject, the question forms, the coverage of questions
and the claim check's fit read a topic's aspect and its related stems the same way."""

from __future__ import annotations

import pytest

from research.drafts.fit import speaks_to
from research.relevance.coverage import focus_matches
from research.topic.question_forms import topic_form
from research.topic.subject import subject_of


@pytest.mark.parametrize(
    ("topic", "subject"),
    [
        ("What are the health effects of intermittent fasting?", "intermittent fasting"),
        ("What was the impact of the printing press?", "the printing press"),
        ("The state of fusion energy", "fusion energy"),
        ("The history of the printing press", "the printing press"),
    ],
)
def test_the_subject_and_the_question_form_strip_the_same_aspect(topic: str, subject: str) -> None:
    assert subject_of(topic) == subject
    assert topic_form(topic).subject == subject


def test_an_aspect_keeps_what_was_asked_about_it() -> None:
    form = topic_form("The state of fusion energy")
    assert form.asked == "What is the state of fusion energy?"


def test_the_fit_and_the_coverage_relate_the_same_stems() -> None:
    # "mechanism" evidence is often phrased as the immune "response": both readers know it.
    assert speaks_to(["mechanism"], {"response"})
    assert focus_matches(["mechanism"], {"response"}) == 1
    assert not speaks_to(["mechanism"], {"weather"})
    assert focus_matches(["mechanism"], {"weather"}) == 0
