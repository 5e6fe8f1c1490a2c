"""The grounded writer and reviser show a section only passages that address its question, and keep
only sentences that do: a passage that shares just the topic's words is not evidence for the question,
and a small model files whatever it is shown under the question it is asked. A section rests only on
the sources the run's coverage found answering its question, and a thin one says it is also a Known
gap. Through the real ChatOpenAI against the loopback OpenAI-compatible server."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from bench.eval.local_model_figures import factual_sentences
from research.brains.base import ReviseRequest, number_sources
from research.brains.llm.grounded_writer import NO_ANSWER, THIN
from research.relevance.coverage import QuestionEvidence
from research.schemas.state_shapes import Source
from research.text import split_sentences
from tests.brains.test_grounded_writer import (
    QUESTIONS,
    SOURCES,
    TEXTS,
    brain_for,
    passages_in,
    request,
    section_requests,
    sections,
    text_of,
)
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def copy_first(user: str) -> dict[str, Any]:
    return {"sentences": [{"passage": 1, "text": passages_in(user)[1]}]}


def test_a_question_the_sources_share_only_the_topic_with_costs_no_call_and_says_so(server: FakeOpenAIServer) -> None:
    # Every source is about mRNA vaccines; none says anything about what they cost.
    question = "What do mRNA vaccines cost?"
    server.responder = sections(copy_first)
    draft = brain_for(server).write(request(questions=[QUESTIONS[0], question]))

    assert draft.split(f"## {question}")[1].split("##")[0].strip() == NO_ANSWER
    assert not any(question in r["messages"][1]["content"] for r in section_requests(server))


MYOCARDITIS = "How often does myocarditis follow the second mRNA dose?"


def test_each_passage_shown_for_a_question_addresses_it(server: FakeOpenAIServer) -> None:
    server.responder = sections(copy_first)
    brain_for(server).write(request(questions=[MYOCARDITIS]))

    asked = next(r for r in section_requests(server) if MYOCARDITIS in r["messages"][1]["content"])
    shown = passages_in(asked["messages"][1]["content"])
    # Only the safety review speaks to myocarditis; the lipid and overview texts are not filler.
    assert shown and all(text in TEXTS["s-safety"] for text in shown.values())


def test_a_sentence_true_to_its_passage_but_not_to_its_question_is_dropped_and_said(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    def answer(user: str) -> dict[str, Any]:
        if QUESTIONS[0] in user:  # the lipid question: "fragile mRNA" is in its passage, delivery is not
            return {
                "sentences": [
                    {"passage": 1, "text": "The mRNA molecule is fragile."},
                    {"passage": 1, "text": "Ionizable lipids in a nanoparticle shell wrap the mRNA."},
                ]
            }
        return copy_first(user)

    server.responder = sections(answer)
    with caplog.at_level(logging.INFO, logger="research.agents"):
        draft = brain_for(server).write(request())

    lipid = draft.split(f"## {QUESTIONS[0]}")[1].split("##")[0]
    assert "Ionizable lipids in a nanoparticle shell wrap the mRNA [1]." in lipid
    assert "fragile" not in lipid
    assert "did not address their section's question" in caplog.text


def test_the_reviser_offers_a_section_no_passage_off_its_question(server: FakeOpenAIServer) -> None:
    draft = (
        "# How do mRNA vaccines work?\n\n"
        f"## {MYOCARDITIS}\n\nMyocarditis was reported mostly in young men, usually within a week of the second dose [2].\n"
    )
    server.responder = sections(copy_first)
    revise = ReviseRequest(draft=draft, instruction="Make it clearer.", sources=SOURCES, text_of=text_of)
    brain_for(server).revise(revise)

    [call] = section_requests(server)
    shown = passages_in(call["messages"][1]["content"])
    assert shown and all(text in TEXTS["s-safety"] for text in shown.values())


def test_a_passage_holds_no_sentence_a_presenter_could_not_read_aloud(server: FakeOpenAIServer) -> None:
    texts = {
        "s-review": (
            "This review summarises 40 studies of myocarditis after the second mRNA dose. "
            "We searched three databases for reports of myocarditis. "
            "Myocarditis after the second mRNA dose was rare and mostly mild."
        )
    }
    only = number_sources(
        [Source(id="s-review", title="Review", url="https://j.example/r", kind="academic", provider="fake")]
    )
    server.responder = sections(copy_first)
    brain_for(server).write(request(questions=[MYOCARDITIS], sources=only, text_of=lambda sid: texts.get(sid, "")))

    asked = next(r for r in section_requests(server) if MYOCARDITIS in r["messages"][1]["content"])
    assert passages_in(asked["messages"][1]["content"]) == {
        1: "Myocarditis after the second mRNA dose was rare and mostly mild."
    }


# --- the run's coverage: the one computation the evidence status and Known gaps read --------------

LNP, SAFETY = QUESTIONS


def section_of(draft: str, heading: str) -> str:
    return draft.split(f"## {heading}")[1].split("##")[0].strip()


def test_a_section_rests_only_on_the_sources_its_coverage_found_and_a_thin_one_says_it_is_a_gap(
    server: FakeOpenAIServer,
) -> None:
    coverage = (
        # The lipid text fits the question, but the run's coverage found no source answering it.
        QuestionEvidence(LNP, covered=False, source_ids=(), origins=0),
        # One source answers it: thin, so a Known gap, and the section says so beside its answer.
        QuestionEvidence(SAFETY, covered=False, source_ids=("s-safety",), origins=1),
    )
    server.responder = sections(copy_first)
    draft = brain_for(server).write(request(coverage=coverage, known_gaps=[LNP, SAFETY]))

    assert section_of(draft, LNP) == NO_ANSWER
    assert not any(LNP in r["messages"][1]["content"] for r in section_requests(server))
    safety = section_of(draft, SAFETY)
    assert safety.endswith(f"[2]. {THIN}") and TEXTS["s-safety"].split(". ")[0] in safety
    [asked] = [r for r in section_requests(server) if SAFETY in r["messages"][1]["content"]]
    shown = passages_in(asked["messages"][1]["content"]).values()
    assert shown and all(s in TEXTS["s-safety"] for text in shown for s in split_sentences(text))
    # The desk's own remark is not a finding the eval counts as an uncited sentence.
    assert THIN not in factual_sentences(draft)


def test_a_covered_section_carries_no_gap_remark(server: FakeOpenAIServer) -> None:
    coverage = (QuestionEvidence(SAFETY, covered=True, source_ids=("s-safety", "s-lnp"), origins=2),)
    server.responder = sections(copy_first)
    draft = brain_for(server).write(request(questions=[SAFETY], coverage=coverage, known_gaps=[]))

    assert THIN not in draft and "[2]" in section_of(draft, SAFETY)
