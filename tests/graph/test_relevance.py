"""Relevance: off-topic library documents never reach the draft, and each drop says why."""

from __future__ import annotations

from research.relevance.ranking import judge_source
from research.runs.runner import ResearchRunner
from research.runs.view import fold
from research.schemas.state_shapes import ResearchRequest


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


def test_sharing_the_head_word_without_its_qualifier_is_not_the_subject() -> None:
    # Rust the language shares "rust" with the topic, never the cars it asks about.
    verdict = judge_source(
        "How do you prevent rust on old cars?",
        "prevent rust old cars",
        "Goroutines and Channels vs Async Rust and Tokio",
        "",
        "Go cannot prevent data races at compile time. Rust prevents them in safe code. " * 3,
    )
    assert not verdict.keep and "old cars" in verdict.reason
    assert judge_source(
        "How do you prevent rust on old cars?",
        "prevent rust old cars",
        "Keeping classic cars free of rust",
        "",
        "Wax the sills of old cars and keep rust from the wheel arches. " * 2,
    ).keep


def test_a_compound_subject_needs_its_whole_head_phrase() -> None:
    # An art-market paper has "stock" and "market", not a crash, let alone the one of 1929.
    topic = "Causes of the 1929 stock market crash"
    market = judge_source(
        topic,
        topic,
        "Dealers, Critics and the Making of the Impressionist Market",
        "",
        "bulk purchases of stock; the market for Impressionism; the art market grew; stock of paintings",
    )
    assert not market.keep and "crash" in market.reason
    other_year = judge_source(topic, topic, "The stock market crash of 2008", "", "the stock market crash " * 3)
    assert not other_year.keep and "1929" in other_year.reason
    assert judge_source(topic, topic, "Black Tuesday: the stock market crash of 1929", "", "").keep


def test_what_of_attaches_belongs_to_the_head() -> None:
    topic = "Exhibitions of modern sculpture in London"
    verdict = judge_source(topic, topic, "Pissarro in London", "", "the first exhibition; exhibitions in London " * 2)
    assert not verdict.keep and "sculpture" in verdict.reason


def test_the_sense_a_source_writes_decides_between_namesakes() -> None:
    language = "Rust is a language. Developers write Rust daily, the Rust compiler checks it, and Rust code is fast."
    corrosion = judge_source("Why does rust spread on Ford trucks?", "rust", "Rust", "", language)
    assert not corrosion.keep and "another sense" in corrosion.reason
    assert judge_source("Why does Rust spread among Google engineers?", "rust", "Rust", "", language).keep
    # The other way round: "Go" the language is not the verb "go".
    verb = "Teams go home early. Rust users go out, and backend services go down when Rust panics."
    verdict = judge_source("Rust vs Go for backend services", "rust go", "Rust backend services", "", verb)
    assert not verdict.keep and '"Go"' in verdict.reason


def test_near_miss_topics_cite_nothing_and_say_so(runner: ResearchRunner) -> None:
    for topic, reason_part in (
        ("How do you prevent rust on old cars?", "old cars"),
        ("Causes of the 1929 stock market crash", "crash"),
    ):
        events = runner.store.events(runner.run(ResearchRequest(topic=topic, allocation="111")))
        view = fold(events)
        assert not view.sources and not view.citations, topic
        assert view.evidence == "none" and "No relevant sources were found" in (view.draft or "")
        dropped = [d for r in view.researchers.values() for d in r.dropped]
        assert dropped and all(d.reason.startswith("not about the subject") for d in dropped)
        assert any(reason_part in d.reason for d in dropped), topic


def test_every_qualifier_counts_and_a_verb_leads_to_the_subject() -> None:
    nobel = "The Nobel Prize in Physiology or Medicine 2023 went to Kariko and Weissman; the Nobel Prize they won"
    verdict = judge_source("Who won the Nobel Prize in Physics in 2023?", "nobel", "Nobel Prize 2023", "", nobel)
    assert not verdict.keep and "Physics" in verdict.reason
    # "critics say about Impressionism": the subject follows the verb, the critics narrow it.
    critics = "Critics mocked the Impressionists; later critics praised Impressionism. " * 2
    assert judge_source("What did critics say about Impressionism?", "critics", "Impressionism", "", critics).keep
    # "stored and shipped" are two aspects of one subject, not two compared subjects.
    stored = "mRNA vaccines are stored frozen and mRNA vaccines need a cold chain. " * 2
    assert judge_source("How are mRNA vaccines stored and shipped?", "storage", "Cold chain", "", stored).keep
    assert not judge_source(
        "How are mRNA vaccines stored and shipped?", "storage", "Shipping", "", "stored shipped"
    ).keep
