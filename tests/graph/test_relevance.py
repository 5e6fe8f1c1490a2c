"""Relevance: off-topic library documents never reach the draft, and each drop says why."""

from __future__ import annotations

from research.relevance.ranking import judge_source
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas import ResearchRequest


def test_aspect_words_alone_are_not_the_subject() -> None:
    # An mRNA document speaks of "side effects" and "health departments": not evidence on fasting.
    verdict = judge_source(
        "What are the health effects of intermittent fasting?",
        "intermittent fasting health effects",
        "Sore Arms, Fevers and Myocarditis",
        "short-lived side effects",
        "health departments " * 3,
    )
    assert not verdict.keep and "intermittent" in verdict.reason and "fast" in verdict.reason


def test_a_passing_mention_in_the_text_is_not_enough_but_the_title_is() -> None:
    topic = "How are bagpipes made?"
    assert not judge_source(topic, "bagpipes", "Folk instruments", "", "one bagpipe among many drums").keep
    assert judge_source(topic, "bagpipes", "Making Bagpipes", "", "").keep
    assert judge_source(topic, "bagpipes", "Folk music", "", "the bagpipe reed ... each bagpipe drone").keep


def test_the_subject_phrase_scores_higher_than_scattered_terms() -> None:
    topic = "How do mRNA vaccines work?"
    phrase = judge_source(topic, "mrna vaccines", "mRNA vaccines explained", "", "")
    scattered = judge_source(topic, "mrna vaccines", "Vaccines, and separately mRNA", "", "")
    assert phrase.keep and scattered.keep and phrase.score > scattered.score


def test_fasting_cites_no_vaccine_document_and_the_drops_are_events(runner: ResearchRunner) -> None:
    run_id = runner.run(ResearchRequest(topic="What are the health effects of intermittent fasting?", allocation="111"))
    events = runner.store.events(run_id)
    view = fold(events)
    assert not view.sources and not view.citations
    assert "mrna" not in (view.draft or "").lower() and "vaccin" not in (view.draft or "").lower()
    dropped = [d for r in view.researchers.values() for d in r.dropped]
    assert dropped, "the drops must be recorded"
    assert any("mRNA" in d.title or "Vaccine" in d.title for d in dropped)
    assert all(d.reason.startswith("not about the subject") for d in dropped)
    assert {e.type for e in events} >= {"sources_dropped"}


def test_a_covered_topic_keeps_its_documents(runner: ResearchRunner) -> None:
    view = fold(runner.store.events(runner.run(ResearchRequest(topic="How do mRNA vaccines work?", allocation="111"))))
    assert len(view.sources) >= 6
    assert all("mrna" in (s.title + s.snippet).lower() or s.relevance for s in view.sources.values())


def test_word_forms_of_the_subject_count_but_loose_prefixes_do_not() -> None:
    assert judge_source("How did Impressionism change painting?", "impressionism", "The Impressionists", "", "").keep
    assert judge_source("Who were the Impressionist painters?", "painters", "Impressionism and painting", "", "").keep
    # "interviews" is not "intermittent", and "fast" alone is not "intermittent fasting".
    verdict = judge_source(
        "What are the health effects of intermittent fasting?",
        "fasting",
        "Developer surveys",
        "",
        "interviews and surveys; fast builds, fast tests " * 3,
    )
    assert not verdict.keep and "intermittent" in verdict.reason


def test_a_long_subject_needs_half_its_core_and_choice_words_are_not_the_subject() -> None:
    topic = "Should a backend team choose Rust or Go?"
    assert judge_source(topic, "rust go", "Rust and Go in production", "", "rust go " * 3).keep
    assert not judge_source(topic, "rust go", "How a team should choose a backend", "", "").keep
