"""Sentence features that keep a quote out of the desk's voice (research/text/prose.py): general
features, checked on sentences of every kind, and the plain sentences they must leave alone."""

from __future__ import annotations

import pytest

from research.text.prose import flaws


@pytest.mark.parametrize(
    ("sentence", "flaw"),
    [
        ("In our trial the volcano monitors failed twice during the eruption season.", "first_person"),
        ("We argue that sourdough fermentation depends more on temperature than on flour.", "first_person"),
        ("Having tested every kiln, I found that glaze colour shifts above 1200 degrees.", "first_person"),
        ("This paper describes the origins of bagpipes in the Near East and Europe.", "method"),
        ("The survey therefore shows that most pipers learn by ear from a teacher.", "method"),
        ("Two reviewers screened 412 abstracts of studies on kiln temperatures.", "method"),
        ("Trials were included when they reported eruption forecasts for a full season.", "method"),
        ("Methods: starters were sampled daily for lactic acid bacteria counts.", "method"),
        ("The Breton pipers adopted that tuning system for their own instruments.", "dangling"),
        ("Glassblowers in Venice kept such furnaces burning through the winter.", "dangling"),
        ("The latter proved far more reliable for long eruption forecasts.", "dangling"),
        ("Under those conditions the starter turns sour within two days.", "dangling"),
    ],
)
def test_each_feature_is_found(sentence: str, flaw: str) -> None:
    assert flaw in flaws(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Researchers showed that volcanic gas emissions rise weeks before most eruptions.",
        "Sourdough starters such as San Francisco cultures contain Lactobacillus sanfranciscensis.",
        "The US approved the vaccine after a Phase I trial and World War I veterans were studied.",
        "Bagpipes that use a bellows are common in Ireland and Northumberland.",
        "Magma rises because it is less dense than the surrounding rock, and this pressure builds.",
        "Kiln temperatures above 1200 degrees fuse the glaze to the clay body of the pot.",
    ],
)
def test_plain_sentences_are_left_alone(sentence: str) -> None:
    assert flaws(sentence) == []
