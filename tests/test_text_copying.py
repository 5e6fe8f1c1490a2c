"""copied_share: the longest unbroken run of a source's words inside a sentence, over its length,
which the writer's restating pass and the local-model eval both read (research/text/copying.py)."""

from __future__ import annotations

from research.text.copying import COPIED_AT, MAX_SENTENCE_WORDS, condensed_from, copied, copied_share

SOURCE = "The bridge, completed in 1932 after eight years of work, carries four lanes of traffic across the harbour."


def test_a_sentence_repeated_word_for_word_is_copied_whatever_its_punctuation() -> None:
    assert copied_share("The bridge completed in 1932 after eight years of work carries four lanes", SOURCE) == 1.0
    assert copied("the bridge, completed in 1932, after eight years of work", SOURCE)


def test_a_sentence_that_reorders_the_facts_is_not_copied() -> None:
    restated = "Four lanes of traffic cross the harbour on the bridge, completed in 1932 after eight years."
    # Its longest run is "the bridge, completed in 1932 after eight years": 8 of its 16 words.
    assert copied_share(restated, SOURCE) == 8 / 16 < COPIED_AT
    assert not copied(restated, SOURCE)


def test_nothing_shared_and_empty_texts_are_not_copies() -> None:
    assert copied_share("Rust is a systems language.", SOURCE) == 0.0
    assert copied_share("", SOURCE) == 0.0 and copied_share("The bridge.", "") == 0.0


def test_the_work_is_bounded_by_the_sentence_cap() -> None:
    long_sentence = " ".join(["bridge"] * (MAX_SENTENCE_WORDS * 5))
    assert copied_share(long_sentence, SOURCE) == 1 / MAX_SENTENCE_WORDS


def test_a_sentence_with_phrases_left_out_is_condensed_not_copied_nor_written() -> None:
    condensed = "The bridge carries four lanes across the harbour."
    assert not copied(condensed, SOURCE) and condensed_from(condensed, SOURCE)
    assert not condensed_from(SOURCE, SOURCE)  # a copy is a copy
    assert not condensed_from("Four lanes cross the harbour on the bridge.", SOURCE)  # moved and added words
    assert not condensed_from("The bridge carries four lanes across the harbour.", "Other text. " + "Carries four.")
